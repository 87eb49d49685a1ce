/**
 * Two engine instances (two processes' worth: separate in-process levels) forking one Anvil on
 * one Redis. State the first fetched is not fetched upstream again by the second (counted by a
 * proxy in front of Anvil), and a simulation stored by the first is read back by id from the
 * second.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hexToBigInt, type Address } from 'viem'
import { createCacheStore } from '../../../host/cache/createCacheStore.js'
import type { CacheStore } from '../../../engine/state/store/cacheStore.js'
import type { Engine, SimulateParams } from '../../../engine/types.js'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../../support/anvil.js'
import { requireRedisServer, startRedisServer, type RedisServer } from '../../support/redisServer.js'
import { startCountingProxy, type CountingProxy } from '../../support/countingProxy.js'
import { startWorkerPool, type WorkerPoolEngine } from '../../../host/workers/index.js'
import { createEngine, deploy, engineOptions, requireEngineFacade, STATE_METHODS, type Deployed } from './fixtures.js'
import { ON_CHAIN } from '../../../engine/types.js'

const ready = requireAnvil() && requireRedisServer() && requireEngineFacade()

describe.runIf(ready)('two engines on one Redis', () => {
  let anvil: AnvilInstance
  let redis: RedisServer
  let proxy: CountingProxy
  let store: Deployed
  let blockNumber: bigint
  const caches: CacheStore[] = []
  const engines: Engine[] = []

  const open = async () => {
    // the same namespace, a separate in-process level: like a second instance of the service
    const cache = createCacheStore(redis.url, { prefix: 'shared-engines:' })
    caches.push(cache)
    const engine = await createEngine(engineOptions(proxy.url, cache))
    engines.push(engine)
    return engine
  }

  beforeAll(async () => {
    ;[anvil, redis] = await Promise.all([startAnvil(), startRedisServer()])
    store = await deploy(anvil, 'Store')
    blockNumber = hexToBigInt(await anvil.rpc('eth_blockNumber'))
    proxy = await startCountingProxy(anvil.url)
  })
  afterAll(async () => {
    for (const e of engines) await e.close().catch(() => {})
    for (const c of caches) await c.close()
    await proxy?.close()
    await anvil?.stop()
    await redis?.stop()
  })

  const params = (): SimulateParams => ({
    calls: [{ from: DEV_ACCOUNTS[1] as Address, to: store.address, data: store.call('sum') }],
    block: { number: blockNumber },
    validation: false,
    traceAssetChanges: false,
    traceTransfers: false,
  })

  it('the second instance reads the state the first fetched from Redis, not upstream', async () => {
    const first = await open()
    const second = await open()

    proxy.reset()
    const a = await first.simulate(ON_CHAIN, params())
    expect(a.status).toBe('success')
    expect(hexToBigInt(a.calls[0]!.returnData)).toBe(22n)
    const fetchedByFirst = proxy.total(STATE_METHODS)
    expect(fetchedByFirst).toBeGreaterThan(0)

    proxy.reset()
    const b = await second.simulate(ON_CHAIN, params())
    expect(b.calls[0]!.returnData).toBe(a.calls[0]!.returnData)
    expect(b.gasUsed).toBe(a.gasUsed)
    const fetchedBySecond = proxy.counts()
    expect(proxy.total(STATE_METHODS), `state fetched again upstream: ${JSON.stringify(fetchedBySecond)}`).toBe(0)
  })

  it('a simulation repeated at a fixed block on another instance makes no upstream request at all', async () => {
    const first = await open()
    const third = await open()
    await first.simulate(ON_CHAIN, params())
    proxy.reset()
    const again = await third.simulate(ON_CHAIN, params())
    expect(again.status).toBe('success')
    // header, access-list hint and state all come from the shared store
    expect(proxy.requests(), `asked upstream: ${JSON.stringify(proxy.counts())}`).toBe(0)
  })

  it('a simulation stored by one instance is read back by id from the other', async () => {
    const [first, second] = engines.length >= 2 ? engines : [await open(), await open()]
    const sim = await first!.simulate(ON_CHAIN, params())
    expect(sim.simulationId).toMatch(/^sim_[0-9a-f-]{36}$/)
    const back = await second!.getSimulation(ON_CHAIN, sim.simulationId)
    expect(back).toEqual(sim)
    expect(await second!.getSimulation(ON_CHAIN, 'sim_00000000-0000-4000-8000-000000000000')).toBeUndefined()
  })

  it('a worker pool on the same Redis shares both: no upstream state reads, stored simulations by id', async () => {
    const first = engines[0] ?? (await open())
    const sim = await first.simulate(ON_CHAIN, params())
    // the pool's own main-thread store only serves health; the workers connect to Redis themselves
    const mainCache = createCacheStore(redis.url, { prefix: 'shared-engines:' })
    caches.push(mainCache)
    const pool = await startWorkerPool({
      ...engineOptions(proxy.url, mainCache),
      workers: 2,
      cacheUrl: redis.url,
      cachePrefix: 'shared-engines:',
    })
    engines.push(pool)
    proxy.reset()
    const [x, y] = await Promise.all([pool.simulate(ON_CHAIN, params()), pool.simulate(ON_CHAIN, params())])
    expect(pool.stats().workers.map((w) => w.served)).toEqual([1, 1])
    for (const r of [x, y]) expect(r.calls[0]!.returnData).toBe(sim.calls[0]!.returnData)
    expect(proxy.total(STATE_METHODS), `state fetched again upstream: ${JSON.stringify(proxy.counts())}`).toBe(0)
    const [b1, b2] = await Promise.all([pool.getSimulation(ON_CHAIN, sim.simulationId), pool.getSimulation(ON_CHAIN, sim.simulationId)])
    expect(b1).toEqual(sim)
    expect(b2).toEqual(sim)
    expect(await first.getSimulation(ON_CHAIN, x.simulationId)).toEqual(x)
  })

  it('with Redis gone, a simulation is still read back by id through either worker of the pool', async () => {
    const pool = engines.find((e): e is WorkerPoolEngine => 'stats' in e)
    expect(pool).toBeDefined()
    await redis.kill()
    for (let i = 0; i < 400 && (await caches[0]!.ping()); i++) await new Promise((r) => setTimeout(r, 25))
    // stored only in the local level of the worker that ran it
    const sim = await pool!.simulate(ON_CHAIN, params())
    expect(sim.status).toBe('success')
    const before = pool!.stats().workers.map((w) => w.served)
    const reads = await Promise.all([pool!.getSimulation(ON_CHAIN, sim.simulationId), pool!.getSimulation(ON_CHAIN, sim.simulationId)])
    const after = pool!.stats().workers.map((w) => w.served)
    expect(after.every((n, i) => n > before[i]!)).toBe(true) // both workers were asked
    for (const r of reads) expect(r).toEqual(sim)
    expect(await pool!.getSimulation(ON_CHAIN, 'sim_00000000-0000-4000-8000-0000000000ff')).toBeUndefined()
  })
})
