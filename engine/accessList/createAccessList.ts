/**
 * createAccessList: POST /simulate/access-list with geth eth_createAccessList semantics
 * (decisions.md §7, geth-reference §3): run the call with the current list, trace what it
 * touches, repeat with the traced list until it stops changing; answer that list (sorted by
 * address then slot) and the gas used by the run WITH it. A failing call still gets its list,
 * plus `error` (geth's string).
 *
 * Every run starts on a fresh copy of the block's state (plus overrides), so runs never see each
 * other's writes.
 */
import { toHex } from 'viem'
import { applyStateOverrides, executionContext } from '../trace/index.js'
import type { AccessListParams, AccessListResult } from '../types.js'
import { fixedSelector, type SimulationDeps } from '../simulation/simulate.js'
import { createAccessListTracer, sameAccessList, type AccessListEntries } from './accessListTracer.js'
import { resolveAndPrefetch } from '../chain/resolveAndPrefetch.js'

/** geth loops until stable; a list that keeps changing past this is a pathological contract */
const MAX_ROUNDS = 10

export async function createAccessList(deps: SimulationDeps, params: AccessListParams): Promise<AccessListResult> {
  const header = await resolveAndPrefetch(deps.chain, fixedSelector(params.block), [params.call])
  const base = await deps.chain.stateAfter(header.number)
  await applyStateOverrides(base, params.stateOverrides)
  // geth CallDefaults: an access-list call without gas gets the RPC gas cap
  const gas = params.call.gas === undefined || params.call.gas > deps.gasCap ? deps.gasCap : params.call.gas

  let list: AccessListEntries = (params.call.accessList ?? []).map((e) => ({
    address: e.address.toLowerCase() as AccessListEntries[number]['address'],
    storageKeys: e.storageKeys.map((k) => k.toLowerCase() as AccessListEntries[number]['storageKeys'][number]),
  }))
  for (let round = 0; ; round++) {
    const tracer = createAccessListTracer(list)
    const ctx = executionContext(deps.chain, header, await base.shallowCopy())
    const res = await deps.execute(ctx, { ...params.call, gas, accessList: list }, { tracers: [tracer] })
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
