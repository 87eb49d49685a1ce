/**
 * Tracer `gasProfile` against Foundry: transactions of the source-trace corpus (the default
 * profile: solc 0.8.37, legacy pipeline, no optimizer; test/support/sourceCorpus.ts) mined on a
 * real Anvil, the build-info registered through POST /v1/sources, profiled by the service and
 * traced by `cast run --decode-internal`. For every function cast shows — internal functions,
 * the contracts' external functions and constructors — the profile has it with as many calls and
 * the same total gas, cast's activations summed as the profile counts them (an activation inside
 * another of the same function not again); the top function's total is cast's top frame's gas.
 *
 * The transactions are ones that succeed: cast leaves out internal calls still open when their
 * frame reverted, which the profile keeps (docs/decisions/0107).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Address, Hex } from 'viem'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../../support/anvil.js'
import { castBinary, requireCast } from '../../support/cast.js'
import { parseCastTrace, type CastNode } from '../../support/castTrace.js'
import { buildProfile, foundry, mineProfile, requireForge, type CorpusTx } from '../../support/sourceCorpus.js'
import { startForkApp, type ForkApp } from '../forks/forkApp.js'

const ready = requireAnvil() && requireCast() && requireForge()

type Totals = Map<string, { calls: number; totalGas: number }>

/** cast's frames summed by function: calls, and the gas of the activations no activation of the same function encloses */
function castTotals(root: CastNode): Totals {
  const out: Totals = new Map()
  const onPath = new Map<string, number>()
  const visit = (n: CastNode) => {
    // a selector nothing names: forge prints its bare hex, the profile `0x` and the hex
    const name = n.kind === 'create' ? `${n.name}::constructor` : n.kind === 'emit' ? undefined : n.name.replace(/::([0-9a-f]{8})$/, '::0x$1')
    // a contract cast did not recognise is an address: not compared
    const known = name !== undefined && !name.startsWith('0x')
    if (known) {
      const entry = out.get(name) ?? { calls: 0, totalGas: 0 }
      entry.calls++
      if ((onPath.get(name) ?? 0) === 0) entry.totalGas += n.gas ?? 0
      out.set(name, entry)
      onPath.set(name, (onPath.get(name) ?? 0) + 1)
    }
    for (const c of n.children) visit(c)
    if (known) onPath.set(name, onPath.get(name)! - 1)
  }
  visit(root)
  return out
}

describe.runIf(ready)('gasProfile: functions and their gas as cast run --decode-internal shows them', () => {
  let anvil: AnvilInstance
  let app: ForkApp
  let txs: CorpusTx[] = []

  beforeAll(async () => {
    anvil = await startAnvil()
    app = await startForkApp({ rpcUrl: anvil.url })
    const built = await buildProfile('default')
    for (const buildInfo of built.buildInfos) expect((await app.request('POST', '/v1/sources', { buildInfo })).status).toBe(201)
    txs = await mineProfile(anvil.rpc, built, DEV_ACCOUNTS[0] as Address, DEV_ACCOUNTS[1] as Address)
  }, 120_000)

  afterAll(async () => {
    await app?.close()
    await anvil?.stop()
  })

  it('internal and external functions: the same calls and total gas; self gas summing to the top frame', async () => {
    const chosen = txs.filter(
      (t) =>
        t.status === 'success' &&
        /^(deposit:|withdraw within|fib|try\/catch, the call reverts|external library|factory: CREATE of|proxy: DELEGATECALL)/.test(t.label),
    )
    expect(chosen.length).toBe(7)
    let internal = 0
    for (const tx of chosen) {
      const [text, res] = await Promise.all([
        foundry(castBinary()!, ['run', tx.hash, '--quick', '--with-local-artifacts', '--decode-internal', '--rpc-url', anvil.url], tx.profile),
        app.request('POST', '/v1/trace/tx', { transactionHash: tx.hash as Hex, tracerConfig: { gasProfile: true } }),
      ])
      expect(res.status).toBe(200)
      const profile = res.json.data.gasProfile as {
        executionGas: number
        functions: { contract: string; function: string; kind: string; calls: number; selfGas: number; totalGas: number }[]
      }
      const cast = parseCastTrace(text)
      const theirs = castTotals(cast)
      const ours = new Map(profile.functions.map((f) => [`${f.contract}::${f.function}`, f]))
      for (const [name, { calls, totalGas }] of theirs) {
        expect(ours.get(name), `${tx.label}: ${name} in ${[...ours.keys()].join(', ')}`).toMatchObject({ calls, totalGas })
        if (ours.get(name)!.kind === 'internal') internal += calls
      }
      expect(profile.executionGas, tx.label).toBe(cast.gas)
      expect(profile.functions.reduce((s, f) => s + f.selfGas, 0)).toBe(profile.executionGas)
    }
    // internal activations compared (fib(6) alone enters _fib 25 times)
    expect(internal).toBeGreaterThanOrEqual(30)
  }, 90_000)
})
