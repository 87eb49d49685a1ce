/**
 * Where a warm /simulate of an ERC-20 transfer spends its time, measured in this process on the
 * same fork the service runs on (a pinned block, every read cached), each phase by itself:
 * - execution: the call alone, no tracer (a fresh VM and runTx on a warm state) — the EVM's cost,
 *   the baseline the goals are stated against;
 * - run set-up: openRun (block resolved, state opened, context built);
 * - traced execution: the same call observed as with `traceTransfers` (a plain simulation that
 *   succeeds runs untraced, engine/execution/explainedCall.ts: set against execution, this is
 *   what the option costs);
 * - decoding: the logs decoded and summarized (token metadata cached);
 * - storing: the result stored for GET /simulations/{id};
 * - engine total: engine.simulate in process.
 * The HTTP total is the service's own median from the warm table; HTTP and validation is what it
 * adds to the engine total. Then, as CPU per call on this thread (means): the EVM alone and the
 * engine call, to set against the service's main-thread CPU per request. The amount varies per call, so no answer comes from a result cache.
 */
import type { Address, Hex } from 'viem'
import { encodeFunctionData, type Abi } from 'viem'
import { createMemoryCacheStore } from '../host/cache/memoryCacheStore.js'
import { createTokenInfoReader, decodeLogs } from '../engine/decoding/index.js'
import { executeCall } from '../engine/execution/executeTransaction.js'
import { createEngine } from '../engine/index.js'
import { createStateBalanceReader, createTransfersTracer } from '../engine/execution/observers/index.js'
import { openRun } from '../engine/run/index.js'
import { createRpcChain } from '../engine/chains/remote/rpcChain.js'
import { storeSimulation } from '../engine/operations/simulation/simulationStore.js'
import { cpuMs } from './threadCpu.js'
import { ON_CHAIN } from '../engine/types.js'

export interface Phase {
  name: string
  ms: number[]
}

const GAS = 100_000n
/** calls the CPU means are taken over */
const CPU_CALLS = 1_000
/** calls that warm the EVM-alone baseline before its first measurement */
const BASELINE_WARMUP_CALLS = 3_000

export async function measureBreakdown(opts: {
  rpcUrl: string
  token: Hex
  abi: Abi
  from: Address
  to: Address
  iterations: number
}): Promise<{ phases: Phase[]; cpu: { evm: number; engine: number } }> {
  const cache = createMemoryCacheStore()
  const chain = await createRpcChain({ url: opts.rpcUrl, timeoutMs: 10_000, cache })
  const engine = await createEngine({
    rpcUrl: opts.rpcUrl,
    cache,
    gasCap: 50_000_000n,
    rpcTimeoutMs: 10_000,
    maxStructLogSteps: 1_000_000,
    simulationTtlSeconds: 60,
  })
  const block = { number: (await chain.resolveBlock({ tag: 'latest' })).number }
  const call = (i: number) => ({
    from: opts.from,
    to: opts.token as Address,
    gas: GAS,
    data: encodeFunctionData({ abi: opts.abi, functionName: 'transfer', args: [opts.to, BigInt(1 + i)] }),
  })
  const phases: Phase[] = ['execution (the EVM alone)', 'run set-up', 'traced execution (traceTransfers)', 'decoding', 'storing', 'engine total'].map(
    (name) => ({ name, ms: [] }),
  )
  const [execution, setUp, traced, decoding, storing, total] = phases as [Phase, Phase, Phase, Phase, Phase, Phase]
  const time = async <T>(p: Phase, fn: () => Promise<T>, keep: boolean): Promise<T> => {
    const t = performance.now()
    const out = await fn()
    if (keep) p.ms.push(performance.now() - t)
    return out
  }
  for (let i = 0; i < opts.iterations + 20; i++) {
    const keep = i >= 20 // the first runs warm the caches and the JIT
    const run = await time(setUp, () => openRun(chain, { block, calls: [call(i)] }), keep)
    const plain = { ...run.ctx, state: await run.state.shallowCopy() }
    await time(execution, () => executeCall(plain, call(i)), keep)
    const res = await time(traced, () => executeCall(run.ctx, call(i), { tracers: [createTransfersTracer()] }), keep)
    const logs = res.logs.map((l, j) => ({ ...l, logIndex: `0x${j.toString(16)}` as Hex }))
    const tokens = createTokenInfoReader(createStateBalanceReader(run.ctx, executeCall).call, { store: cache, scope: `bench:${block.number}` })
    await time(decoding, () => decodeLogs(logs, tokens), keep)
    const result = await time(
      total,
      () => engine.simulate(ON_CHAIN, { calls: [call(i)], block, validation: false, traceAssetChanges: false, traceTransfers: false }),
      keep,
    )
    await time(storing, () => storeSimulation(cache, { ...result, simulationId: `${result.simulationId}-again` }, 60), keep)
  }
  // CPU per call on this thread (means, as the service's figure): the EVM alone on states opened
  // beforehand, then the whole engine call. Over at least 1,000 calls: the thread's CPU clock
  // ticks every 10 ms, so 150 calls of a millisecond would read to within ±7%
  const n = Math.max(opts.iterations, CPU_CALLS)
  const states = []
  for (let i = 0; i < n; i++) {
    const run = await openRun(chain, { block, calls: [call(i)] })
    states.push({ ...run.ctx, state: await run.state.shallowCopy() })
  }
  let t = cpuMs()
  for (let i = 0; i < n; i++) await executeCall(states[i]!, call(i))
  const evm = (cpuMs() - t) / n
  t = cpuMs()
  for (let i = 0; i < n; i++)
    await engine.simulate(ON_CHAIN, { calls: [call(n + i)], block, validation: false, traceAssetChanges: false, traceTransfers: false })
  const engineCpu = (cpuMs() - t) / n
  await engine.close()
  await chain.close()
  return { phases, cpu: { evm, engine: engineCpu } }
}

/**
 * The EVM alone, measured again when asked: CPU per call on this thread of `executeCall` (no
 * tracer) on states opened beforehand, over `calls` calls of `callOf` (each call another input, so
 * nothing is answered from a cache). The bench measures it between the throughput windows it sets
 * it against, so the machine's drift (its speed can move by 1.5× within an hour) falls on both
 * sides of the ratio alike.
 */
export async function createEvmBaseline(opts: {
  rpcUrl: string
  callOf: (i: number) => { from: Address; to: Address; data: Hex }
  gas?: bigint
}): Promise<{ measure(calls: number): Promise<number>; close(): Promise<void> }> {
  const chain = await createRpcChain({ url: opts.rpcUrl, timeoutMs: 10_000, cache: createMemoryCacheStore() })
  const block = { number: (await chain.resolveBlock({ tag: 'latest' })).number }
  const call = (i: number) => ({ ...opts.callOf(i), gas: opts.gas ?? GAS })
  let next = 0
  const measure = async (calls: number): Promise<number> => {
    const states = []
    const inputs = []
    for (let i = 0; i < calls; i++) {
      const input = call(next++)
      const run = await openRun(chain, { block, calls: [input] })
      states.push(run.ctx)
      inputs.push(input)
    }
    const t = cpuMs()
    for (let i = 0; i < calls; i++) {
      const result = await executeCall(states[i]!, inputs[i]!)
      // a call that failed would time the wrong path
      if (result.status !== 'success') throw new Error(`the EVM-alone baseline call failed: ${result.error}`)
    }
    return (cpuMs() - t) / calls
  }
  // the JIT and the fork's reads: with 200 calls the first measurements still ran a third slower
  await measure(BASELINE_WARMUP_CALLS)
  return { measure, close: () => chain.close() }
}
