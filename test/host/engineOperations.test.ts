/**
 * The engine's operations are listed once (ENGINE_OPERATIONS, engine/types.ts, tied to the Engine
 * type by the compiler); the in-process facade, the worker pool and the worker each hold every
 * one of them, each taking the call's address first. A holder that misses an operation,
 * or has one the list lacks, fails here.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../engine/index.js'
import { ENGINE_OPERATIONS, type Engine } from '../../engine/types.js'
import { createMemoryCacheStore } from '../../host/cache/memoryCacheStore.js'
import { createWorkerPoolEngine, startWorkerPool, type WorkerPoolEngine } from '../../host/workers/index.js'

/** the methods `o` answers: its own and its prototypes' (a holder may keep them on a class) */
const methodsOf = (o: object) => {
  const names = new Set<string>()
  for (let p: object | null = o; p && p !== Object.prototype; p = Object.getPrototypeOf(p) as object | null) {
    for (const k of Object.getOwnPropertyNames(p)) if (k !== 'constructor' && typeof (o as Record<string, unknown>)[k] === 'function') names.add(k)
  }
  return [...names].sort()
}

const engineOptions = { gasCap: 50_000_000n, rpcTimeoutMs: 10_000, maxStructLogSteps: 1_000, simulationTtlSeconds: 60 }

describe('the engine operations, listed once', () => {
  const opened: { close(): Promise<void> }[] = []
  afterAll(async () => {
    for (const o of opened) await o.close()
  })

  it('lists each operation once, close apart', () => {
    expect(new Set(ENGINE_OPERATIONS).size).toBe(ENGINE_OPERATIONS.length)
    expect(ENGINE_OPERATIONS).not.toContain('close')
    expect(ENGINE_OPERATIONS.length).toBeGreaterThan(10)
  })

  it('the in-process facade holds exactly the listed operations and close', async () => {
    const engine: Engine = await createEngine({ cache: createMemoryCacheStore(), ...engineOptions })
    opened.push(engine)
    expect(methodsOf(engine)).toEqual([...ENGINE_OPERATIONS, 'close'].sort())
  })

  it('the in-process engine with its runs counted holds them too', async () => {
    const engine = await createWorkerPoolEngine({ cache: createMemoryCacheStore(), ...engineOptions, workers: 1 })
    opened.push(engine)
    expect(methodsOf(engine)).toEqual([...ENGINE_OPERATIONS, 'close', 'runs'].sort())
    // a run with a stop is counted while it runs
    const running = engine.readChain({ stop: { deadline: Date.now() + 5_000 } }, 'eth_chainId', [])
    expect(engine.runs().inFlight).toBe(1)
    await running
    expect(engine.runs().inFlight).toBe(0)
  })

  it('the pool forwards every listed operation to a worker, which serves it with its arguments', async () => {
    const pool: WorkerPoolEngine = await startWorkerPool({
      cache: createMemoryCacheStore(),
      ...engineOptions,
      workers: 2,
      cacheUrl: 'memory://',
      engineModule: new URL('./workers/fixtures/echoEngine.ts', import.meta.url).href,
    })
    opened.push(pool)
    expect(methodsOf(pool)).toEqual([...ENGINE_OPERATIONS, 'close', 'runs', 'stats'].sort())
    // metrics is asked of every worker and summed (host/workers/workerPool.ts): not echoed
    for (const method of ENGINE_OPERATIONS.filter((m) => m !== 'metrics')) {
      // the address crosses as its chain and fork (its stop stays with the pool), then the arguments
      // (the pool's own getSimulation passes the id alone, health none)
      const at = { chain: 'c', fork: 'f', stop: { deadline: Date.now() + 5_000 } }
      const args =
        method === 'health' || method === 'listForks' || method === 'listSources' ? [] : method === 'getSimulation' ? ['sim-id'] : [`${method}-arg`, 7n]
      const answer = await (pool[method] as (...a: unknown[]) => Promise<unknown>)(at, ...args)
      expect(answer, method).toEqual(method === 'health' ? { method, at: {}, args } : { method, at: { chain: 'c', fork: 'f' }, args })
    }
  })
})
