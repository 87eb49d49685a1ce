/**
 * The worker-pool Engine with real engines in real worker threads (TypeScript under tsx), forking
 * a real Anvil: a long struct-log trace on one worker does not hold back a short simulation (the
 * completion order is measured, not the time), errors cross the thread boundary as EngineError,
 * bigint parameters arrive intact, a simulation stored through one worker is read back through
 * the other (memory:// shared by the main thread), a worker's result waits for the store to take
 * the simulation it wrote one way, and workers=1 runs in-process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hexToBigInt, type Address, type Hex } from 'viem'
import type { CacheStore } from '../../../engine/state/store/cacheStore.js'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { loadSimulation } from '../../../engine/operations/simulation/simulationStore.js'
import { EngineError } from '../../../engine/platform/errors.js'
import type { SimulateParams, TraceCallParams } from '../../../engine/types.js'
import { createWorkerPoolEngine, startWorkerPool, type WorkerPoolEngine } from '../../../host/workers/index.js'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../../support/anvil.js'
import { startCountingProxy, type CountingProxy } from '../../support/countingProxy.js'
import { deploy, engineOptions, requireEngineFacade, STATE_METHODS, pingParams, type Deployed } from './fixtures.js'
import { ON_CHAIN } from '../../../engine/types.js'

const ready = requireAnvil() && requireEngineFacade()
/** iterations of Loop.spin for the long trace: tens of thousands of struct-log steps */
const LONG_SPIN = 2500n

describe.runIf(ready)('worker pool engine', () => {
  let anvil: AnvilInstance
  let loop: Deployed
  let store: Deployed
  let pool: WorkerPoolEngine
  let proxy: CountingProxy
  const cache = createMemoryCacheStore()

  const ping = (): SimulateParams => pingParams(loop)

  beforeAll(async () => {
    anvil = await startAnvil()
    loop = await deploy(anvil, 'Loop')
    store = await deploy(anvil, 'Store')
    // upstream requests counted, to see what the workers share through the pool's memory store
    proxy = await startCountingProxy(anvil.url)
    pool = await startWorkerPool({ ...engineOptions(proxy.url, cache), workers: 2, cacheUrl: 'memory://', healthTimeoutMs: 200 })
    // warm both workers (module JIT, first upstream reads) so the race below is about work only
    await Promise.all([pool.simulate(ON_CHAIN, ping()), pool.simulate(ON_CHAIN, ping())])
  })
  afterAll(async () => {
    await pool?.close()
    await proxy?.close()
    await anvil?.stop()
  })

  const longTrace = (spin = LONG_SPIN): TraceCallParams => ({
    call: { from: DEV_ACCOUNTS[1] as Address, to: loop.address, data: loop.call('spin', [spin]) },
    block: { tag: 'latest' },
    tracerConfig: { structLogger: { disableMemory: true, disableStorage: true } },
  })

  it('serves eth_simulateV1: bigint params in, blocks out, the spec error kind kept across the thread', async () => {
    const from = DEV_ACCOUNTS[1] as Address
    const blocks = await pool.simulateV1(ON_CHAIN, {
      blockStateCalls: [{ stateOverrides: { [from]: { balance: 10n ** 18n } }, calls: [{ from, to: DEV_ACCOUNTS[2] as Address, data: '0x', value: 1n }] }],
      block: { tag: 'latest' },
      traceTransfers: true,
      validation: false,
      returnFullTransactions: false,
    })
    expect(blocks).toHaveLength(1)
    expect(blocks[0]!.calls[0]!.logs[0]!.address).toBe('0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee')
    const err = await pool
      .simulateV1(ON_CHAIN, {
        blockStateCalls: [{ blockOverrides: { number: 1n }, calls: [] }],
        block: { tag: 'latest' },
        traceTransfers: false,
        validation: false,
        returnFullTransactions: false,
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      )
    expect(err).toBeInstanceOf(EngineError)
    expect((err as EngineError).details?.simulateError).toBe('blockNumberOrder')
  })

  it('a long trace on one worker does not delay a short simulation on the other', async () => {
    const order: string[] = []
    const long = pool.traceCall(ON_CHAIN, longTrace()).then((r) => (order.push('long'), r))
    expect(pool.stats().workers.filter((w) => w.inflight === 1)).toHaveLength(1)
    const short = pool.simulate(ON_CHAIN, ping()).then((r) => (order.push('short'), r))
    expect(pool.stats().workers.map((w) => w.inflight)).toEqual([1, 1])
    const [trace, sim] = await Promise.all([long, short])
    expect(order).toEqual(['short', 'long'])
    expect(sim.status).toBe('success')
    expect(hexToBigInt(sim.calls[0]!.returnData)).toBe(1n)
    const structLogger = trace.structLogger as { failed: boolean; structLogs: unknown[] }
    expect(structLogger.failed).toBe(false)
    expect(structLogger.structLogs.length).toBeGreaterThan(Number(LONG_SPIN) * 10)
  })

  it('between two busy workers, a new call goes to the one whose call started last', async () => {
    const order: string[] = []
    const long = pool.traceCall(ON_CHAIN, longTrace()).then(() => order.push('long'))
    const medium = pool.simulate(ON_CHAIN, ping()).then(() => order.push('medium'))
    const short = pool.simulate(ON_CHAIN, ping()).then(() => order.push('short'))
    // not behind the long trace (rotation alone would have put it there)
    expect(
      pool
        .stats()
        .workers.map((w) => w.inflight)
        .sort(),
    ).toEqual([1, 2])
    await Promise.all([long, medium, short])
    expect(order.indexOf('short')).toBeLessThan(order.indexOf('long'))
  })

  it('answers health from the last check while every worker is busy computing', async () => {
    const first = await pool.health(ON_CHAIN)
    const order: string[] = []
    const traces = [pool.traceCall(ON_CHAIN, longTrace()), pool.traceCall(ON_CHAIN, longTrace())].map((t) => t.then(() => order.push('trace')))
    expect(pool.stats().workers.map((w) => w.inflight)).toEqual([1, 1])
    const h = await pool.health(ON_CHAIN)
    order.push('health')
    await Promise.all(traces)
    expect(order).toEqual(['health', 'trace', 'trace'])
    expect(h).toEqual(first)
  })

  it('stops a call past callTimeoutMs with EXECUTION_TIMEOUT, replaces its worker and keeps serving', async () => {
    const timed = await startWorkerPool({
      // a gas cap that lets a loop run for hours
      ...engineOptions(anvil.url, createMemoryCacheStore()),
      gasCap: 10n ** 12n,
      workers: 2,
      cacheUrl: 'memory://',
      callTimeoutMs: 2000,
    })
    try {
      await Promise.all([timed.simulate(ON_CHAIN, ping()), timed.simulate(ON_CHAIN, ping())])
      // a runaway loop: a trillion gas of spin under callTracer, whose output does not grow with
      // the steps, so nothing but the timeout can end it on any machine (a long struct log, used
      // before, ran into its size cap within 2 s once the interpreter got faster)
      const runaway: TraceCallParams = {
        call: { from: DEV_ACCOUNTS[1] as Address, to: loop.address, data: loop.call('spin', [10n ** 15n]), gas: 10n ** 12n },
        block: { tag: 'latest' },
        tracerConfig: { callTracer: {} },
      }
      const err = await timed.traceCall(ON_CHAIN, runaway).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(EngineError)
      expect((err as EngineError).code).toBe('EXECUTION_TIMEOUT')
      expect((err as EngineError).suggestion).toMatch(/cleanStructLogs|disableMemory/)
      const after = await Promise.all([timed.simulate(ON_CHAIN, ping()), timed.simulate(ON_CHAIN, ping())])
      expect(after.map((s) => s.status)).toEqual(['success', 'success'])
      // a replacement worker loads the whole engine: on a loaded machine that takes seconds
      for (let i = 0; i < 2400 && !timed.stats().workers.every((w) => w.ready); i++) await new Promise((r) => setTimeout(r, 25))
      expect(timed.stats().workers.every((w) => w.ready)).toBe(true)
    } finally {
      await timed.close()
    }
  }, 150_000)

  it('queues calls when every worker is at its cap and answers them all', async () => {
    const many = await Promise.all(Array.from({ length: 12 }, () => pool.simulate(ON_CHAIN, ping())))
    expect(many.every((s) => s.status === 'success')).toBe(true)
    expect(new Set(many.map((s) => s.simulationId)).size).toBe(12)
    expect(pool.stats().queued).toBe(0)
  })

  it('passes an EngineError across the thread with its code, details and suggestion', async () => {
    const err = await pool.simulate(ON_CHAIN, { ...ping(), block: { number: 10n ** 12n } }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(EngineError)
    expect((err as EngineError).code).toBe('BLOCK_NOT_FOUND')
    expect((err as EngineError).message).toMatch(/block/i)
    // the same request in-process gives the same error, field for field
    const local = await createWorkerPoolEngine({ ...engineOptions(anvil.url, createMemoryCacheStore()), workers: 1 })
    try {
      const direct = (await local.simulate(ON_CHAIN, { ...ping(), block: { number: 10n ** 12n } }).catch((e: unknown) => e)) as EngineError
      expect(direct).toBeInstanceOf(EngineError)
      expect({ ...(err as EngineError), message: (err as EngineError).message }).toEqual({ ...direct, message: direct.message })
    } finally {
      await local.close()
    }
  })

  it('bigint parameters survive the crossing (value, gas)', async () => {
    const to = '0x000000000000000000000000000000000000beef' as Address
    const sim = await pool.simulate(ON_CHAIN, {
      calls: [{ from: DEV_ACCOUNTS[2] as Address, to: store.address, data: store.call('pay', [to]), value: 123_456_789n, gas: 200_000n }],
      block: { tag: 'latest' },
      validation: false,
      traceAssetChanges: false,
      traceTransfers: true,
    })
    expect(sim.status).toBe('success')
    const native = sim.calls[0]!.transfers!.filter((t) => t.type === 'native')
    expect(native.map((t) => [t.to, hexToBigInt(t.amount)])).toContainEqual([to, 123_456_789n])
  })

  it('a simulation stored through one worker is read back through the other (memory:// via the pool)', async () => {
    const sim = await pool.simulate(ON_CHAIN, ping())
    const before = pool.stats().workers.map((w) => w.served)
    const reads = await Promise.all([pool.getSimulation(ON_CHAIN, sim.simulationId), pool.getSimulation(ON_CHAIN, sim.simulationId)])
    const after = pool.stats().workers.map((w) => w.served)
    // the two concurrent reads went to different workers, and both found it
    expect(after.map((n, i) => n - before[i]!)).toEqual([1, 1])
    for (const r of reads) expect(r).toEqual(sim)
  })

  it("a worker's result is answered only once the store has taken the simulation it wrote one way", async () => {
    // a store whose writes land late (as the primary's store of several HTTP processes does, over IPC)
    const backing = createMemoryCacheStore()
    const slow: CacheStore = {
      ...backing,
      set: async (key, value, ttl) => {
        await new Promise((r) => setTimeout(r, 300))
        await backing.set(key, value, ttl)
      },
    }
    const slowPool = await startWorkerPool({ ...engineOptions(proxy.url, slow), workers: 1, cacheUrl: 'memory://' })
    try {
      const sim = await slowPool.simulate(ON_CHAIN, ping())
      // read at once, not through the pool: the write must be in the store already
      expect(await loadSimulation(backing, sim.simulationId)).toEqual(sim)
    } finally {
      await slowPool.close()
    }
  })

  it('state one worker fetched is not fetched upstream again by the other (memory:// via the pool)', async () => {
    const blockNumber = hexToBigInt(await anvil.rpc('eth_blockNumber'))
    const sum = (): SimulateParams => ({
      calls: [{ from: DEV_ACCOUNTS[3] as Address, to: store.address, data: store.call('sum') }],
      block: { number: blockNumber },
      validation: false,
      traceAssetChanges: false,
      traceTransfers: false,
    })
    const served = () => pool.stats().workers.map((w) => w.served)
    const s0 = served()
    proxy.reset()
    const first = await pool.simulate(ON_CHAIN, sum())
    const s1 = served()
    expect(hexToBigInt(first.calls[0]!.returnData)).toBe(22n)
    expect(proxy.total(STATE_METHODS)).toBeGreaterThan(0)
    proxy.reset()
    const second = await pool.simulate(ON_CHAIN, sum())
    const s2 = served()
    // two different workers answered (idle workers take turns)
    const firstWorker = s1.findIndex((n, i) => n > s0[i]!)
    const secondWorker = s2.findIndex((n, i) => n > s1[i]!)
    expect(firstWorker).not.toBe(secondWorker)
    expect(second.calls[0]!.returnData).toBe(first.calls[0]!.returnData)
    expect(proxy.total(STATE_METHODS), JSON.stringify(proxy.counts())).toBe(0)
  })

  it('traces a whole block through a worker (traceBlock crosses the thread boundary)', async () => {
    const block = await anvil.rpc<{ number: Hex; transactions: Hex[] }>('eth_getBlockByNumber', ['latest', false])
    expect(block.transactions.length).toBeGreaterThan(0)
    const entries = await pool.traceBlock(ON_CHAIN, { block: { number: hexToBigInt(block.number) }, tracerConfig: { callTracer: {} } })
    expect(entries.map((e) => e.txHash)).toEqual(block.transactions)
    for (const e of entries) expect('result' in e && (e.result.callTracer as { type: string }).type).toMatch(/^(CALL|CREATE)$/)
  })

  it('answers health through a worker', async () => {
    const h = await pool.health(ON_CHAIN)
    expect(h).toMatchObject({ chainId: 31337, upstreamOk: true, cacheOk: true })
  })

  it('workers=1 is the in-process engine, no threads', async () => {
    const local = await createWorkerPoolEngine({ ...engineOptions(anvil.url, createMemoryCacheStore()), workers: 1 })
    try {
      expect('stats' in local).toBe(false)
      const sim = await local.simulate(ON_CHAIN, ping())
      expect(sim.status).toBe('success')
    } finally {
      await local.close()
    }
  })
})
