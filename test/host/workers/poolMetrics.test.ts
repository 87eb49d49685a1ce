/**
 * A pool's metrics: every worker's counts summed (forks open too on memory://, where each worker
 * holds its own), how its runs stand, and workers replaced; a worker replaced at the call timeout
 * keeps what it last answered in the totals, which therefore never go back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { startWorkerPool, type WorkerPoolEngine } from '../../../host/workers/index.js'
import type { CallParams } from '../../../engine/types.js'
import { ON_CHAIN } from '../../../engine/types.js'

const engineOptions = { gasCap: 50_000_000n, rpcTimeoutMs: 10_000, maxStructLogSteps: 1_000, simulationTtlSeconds: 60 }
const call = (pool: WorkerPoolEngine, busyMs = 0) => pool.call(ON_CHAIN, { busyMs } as unknown as CallParams)

describe('worker pool metrics', () => {
  let pool: WorkerPoolEngine
  beforeAll(async () => {
    pool = await startWorkerPool({
      cache: createMemoryCacheStore(),
      ...engineOptions,
      workers: 2,
      cacheUrl: 'memory://',
      callTimeoutMs: 1_500,
      engineModule: new URL('./fixtures/countingEngine.ts', import.meta.url).href,
    })
  }, 60_000)
  afterAll(async () => {
    await pool?.close()
  })

  it("sums the workers, and keeps a replaced worker's counts", async () => {
    await Promise.all([call(pool), call(pool), call(pool), call(pool)])
    const m = await pool.metrics()
    expect(m.upstream?.httpRequests).toBe(4)
    expect(m.upstream?.calls.eth_call?.ok).toBe(4)
    // forks on memory:// live in each worker: summed
    expect(m.forksOpen).toBe(2)
    // the head is the highest either saw
    expect(m.head).toBeGreaterThanOrEqual(2)
    expect(pool.runs()).toEqual({ queued: 0, inFlight: 0, engines: 2, replacements: { crash: 0, timeout: 0 } })

    // a run past the call timeout that its engine cannot stop: answered at once, its worker
    // replaced when it does not let go
    const busy = call(pool, 20_000).catch((e: { code?: string }) => e.code)
    for (let i = 0; i < 40 && pool.runs().inFlight === 0; i++) await new Promise((r) => setTimeout(r, 25))
    expect(pool.runs().inFlight).toBe(1)
    expect(await busy).toBe('EXECUTION_TIMEOUT')
    for (let i = 0; i < 100 && pool.runs().replacements.timeout === 0; i++) await new Promise((r) => setTimeout(r, 25))
    expect(pool.runs().replacements).toEqual({ crash: 0, timeout: 1 })
    for (let i = 0; i < 200 && pool.runs().engines < 2; i++) await new Promise((r) => setTimeout(r, 50))
    expect(pool.runs().engines).toBe(2)
    const after = await pool.metrics()
    // the replaced worker's 2 calls as it last answered stay counted (the busy one it never reported)
    expect(after.upstream?.httpRequests).toBe(4)
    // forks open is a gauge: the replaced worker's are not carried over
    expect(after.forksOpen).toBe(2)
    await call(pool)
    expect((await pool.metrics()).upstream?.httpRequests).toBe(5)
  }, 60_000)
})
