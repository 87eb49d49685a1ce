/**
 * createAccessList: POST /simulate/access-list with geth eth_createAccessList semantics
 * (interface §7, geth-reference §3): run the call with the current list, trace what it
 * touches, repeat with the traced list until it stops changing; answer that list (sorted by
 * address then slot) and the gas used by the run WITH it. A failing call still gets its list,
 * plus `error` (geth's string).
 *
 * Every run starts on a fresh copy of the block's state (plus overrides), so runs never see each
 * other's writes.
 */
import { toHex } from 'viem'
import { executeCall } from '../../execution/executeTransaction.js'
import { openRun, withCallDefaults, type RunDeps } from '../../run/index.js'
import type { AccessListParams, AccessListResult } from '../../types.js'
import { createAccessListTracer, sameAccessList, type AccessListEntries } from '../../../tracers/accessListTracer.js'

/** geth loops until stable; a list that keeps changing past this is a pathological contract */
const MAX_ROUNDS = 10

export async function createAccessList(deps: Pick<RunDeps, 'chain' | 'gasCap' | 'sources'>, params: AccessListParams): Promise<AccessListResult> {
  const { header, state: base, ctx: blockCtx } = await openRun(deps.chain, { ...params, calls: [params.call], sources: deps.sources })
  const call = withCallDefaults('accessList', params.call, { blockGasLimit: header.gasLimit, gasCap: deps.gasCap })

  let list: AccessListEntries = (params.call.accessList ?? []).map((e) => ({
    address: e.address.toLowerCase() as AccessListEntries[number]['address'],
    storageKeys: e.storageKeys.map((k) => k.toLowerCase() as AccessListEntries[number]['storageKeys'][number]),
  }))
  for (let round = 0; ; round++) {
    const tracer = createAccessListTracer(list)
    const ctx = { ...blockCtx, state: await base.shallowCopy() }
    const res = await executeCall(ctx, { ...call, accessList: list }, { tracers: [tracer] })
    const traced = tracer.result()
    if (sameAccessList(traced, list) || round + 1 >= MAX_ROUNDS) {
      return {
        accessList: list,
        gasUsed: toHex(res.gasUsed),
        ...(res.status !== 'success' && { error: res.error ?? 'execution reverted' }),
      }
    }
    // the traced list holds the one it ran with (seeded), so the lists only grow: this ends
    list = traced
  }
}
