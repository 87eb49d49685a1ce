/**
 * A worker replaced while the upstream is silent starts at once: the pool hands it the chain id
 * the first worker learnt (EngineOptions.knownChainId), so its engine need not ask the upstream,
 * which would leave it failing to start, and retrying with a growing pause, until the upstream
 * answers again (both workers of a pool could be left starting for many seconds that way).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { startWorkerPool, type WorkerPoolEngine } from '../../../host/workers/index.js'
import { requireAnvil, startAnvil, type AnvilInstance } from '../../support/anvil.js'
import { startHangingUpstream, type HangingUpstream } from '../../support/hangingUpstream.js'
import { ON_CHAIN, type RunAt } from '../../../engine/types.js'

const RPC_TIMEOUT_MS = 1000
const CALL_TIMEOUT_MS = 500
const ready = requireAnvil()

describe.runIf(ready)('a worker replaced while the upstream is silent', () => {
  let anvil: AnvilInstance
  let upstream: HangingUpstream
  let pool: WorkerPoolEngine

  beforeAll(async () => {
    anvil = await startAnvil()
    upstream = await startHangingUpstream(anvil.port)
    pool = await startWorkerPool({
      rpcUrl: upstream.url,
      cache: createMemoryCacheStore(),
      cacheUrl: 'memory://',
      workers: 2,
      gasCap: 50_000_000n,
      rpcTimeoutMs: RPC_TIMEOUT_MS,
      maxStructLogSteps: 1000,
      simulationTtlSeconds: 60,
      callTimeoutMs: CALL_TIMEOUT_MS,
      engineModule: new URL('./fixtures/stubbornEngine.ts', import.meta.url).href,
    })
  }, 120_000)
  afterAll(async () => {
    upstream?.hang(false)
    await pool?.close()
    await upstream?.close()
    await anvil?.stop()
  })

  it('starts without asking the upstream, and serves while it stays silent', async () => {
    upstream.hang(true)
    const busy = (pool.call as unknown as (at: RunAt, p: unknown) => Promise<unknown>)(ON_CHAIN, { busyMs: 20 * CALL_TIMEOUT_MS }).catch(
      (e: { code?: string }) => e.code,
    )
    expect(await busy).toBe('EXECUTION_TIMEOUT')
    // the worker that did not let go is replaced, and its replacement starts, the upstream silent all along
    for (let i = 0; i < 1200 && !(pool.stats().workers.some((w) => w.starts === 2) && pool.stats().workers.every((w) => w.ready && w.inflight === 0)); i++) {
      await new Promise((r) => setTimeout(r, 50))
    }
    expect(
      pool
        .stats()
        .workers.map((w) => w.starts)
        .sort(),
    ).toEqual([1, 2])
    expect(pool.stats().workers.every((w) => w.ready)).toBe(true)
    // both answer what needs no upstream, the chain id the replacement was started with among it
    for (let i = 0; i < 4; i++) expect(await pool.readChain(ON_CHAIN, 'eth_chainId', [])).toBe(`0x${(31337).toString(16)}`)
  }, 120_000)
})
