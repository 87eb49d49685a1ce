/**
 * Time bounds under an upstream that accepts and never answers, at a concurrency past the worker
 * pool's cap (2 workers × 4 computing calls): 24 concurrent cold calls and a JSON-RPC batch of 100
 * cold calls each answer -32000 within 1.5 × RPC_TIMEOUT_MS plus their own run time (the same
 * load's on a healthy upstream) — the first calls find the upstream stalled, the later ones fail
 * fast instead of waiting for a budget each — while warm requests (state already in the fork
 * cache) asked meanwhile are answered within their own time on a healthy upstream plus a fraction
 * of RPC_TIMEOUT_MS: the cold calls waiting on the upstream hold none of the places meant for
 * computing. Once the upstream answers again, so do the cold calls, within about RPC_TIMEOUT_MS.
 * Bounds are measured against the configured timeout, not a fixed wall-clock figure.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Hex } from 'viem'
import { loadConfig } from '../../../config/loadConfig.js'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { startWorkerPool, type WorkerPoolEngine } from '../../../host/workers/index.js'
import { createApp } from '../../../src/app.js'
import { createLogger } from '../../../src/logger.js'
import { listen, type Listening } from '../../../host/server.js'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../../support/anvil.js'
import { startHangingUpstream, type HangingUpstream } from '../../support/hangingUpstream.js'

const RPC_TIMEOUT_MS = 1000
const BUDGET_MS = 1.5 * RPC_TIMEOUT_MS
/** room for the scheduler of a loaded machine, as a share of the configured timeout */
const SCHEDULING_MS = RPC_TIMEOUT_MS / 2
/**
 * a warm call's room beyond its own time while cold calls wait on the silent upstream: well below
 * RPC_TIMEOUT_MS, so a warm call queued behind cold calls holding the workers' places (they hold
 * them for a whole timeout) would miss it
 */
const WARM_SCHEDULING_MS = 0.3 * RPC_TIMEOUT_MS
const ready = requireAnvil()
const [A] = DEV_ACCOUNTS as unknown as [Hex]

let fresh = 0x5000
const freshAddress = (): Hex => `0x${(fresh++).toString(16).padStart(40, 'd')}` as Hex

describe.runIf(ready)('a hanging upstream at a concurrency past the engine cap', () => {
  let anvil: AnvilInstance
  let upstream: HangingUpstream
  let engine: WorkerPoolEngine
  let server: Listening
  let token: string
  let block: Hex
  /** the own run time of a cold call and of a batch of 100, at this concurrency on a healthy upstream */
  let coldMs = 0
  let batchMs = 0
  /** the own run time of a warm call, four at once, on a healthy upstream */
  let warmMs = 0

  const rpc = async (body: unknown): Promise<{ json: any; ms: number }> => {
    // eslint-disable-line @typescript-eslint/no-explicit-any
    const t0 = performance.now()
    const res = await fetch(`${server.url}/v1/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    })
    const json = await res.json()
    expect(res.status).toBe(200)
    return { json, ms: performance.now() - t0 }
  }
  const coldCall = (id: number) => ({ jsonrpc: '2.0', id, method: 'eth_call', params: [{ from: A, to: freshAddress(), value: '0x1' }, block] })
  const warmCall = (id: number) => ({ jsonrpc: '2.0', id, method: 'eth_getBalance', params: [A, block] })

  beforeAll(async () => {
    anvil = await startAnvil()
    await anvil.rpc('evm_mine')
    upstream = await startHangingUpstream(anvil.port)
    const config = loadConfig({
      env: {
        APP_ENV: 'test',
        RPC_URL: upstream.url,
        RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS),
        WORKERS: '2',
        MAX_RPC_BATCH: '100',
        RATE_LIMIT_REQUESTS: '100000',
      },
    })
    token = config.api.auth_token
    const cache = createMemoryCacheStore()
    engine = await startWorkerPool({
      rpcUrl: upstream.url,
      cache,
      cacheUrl: 'memory://',
      workers: 2,
      gasCap: BigInt(config.chain.gas_cap),
      rpcTimeoutMs: RPC_TIMEOUT_MS,
      maxStructLogSteps: config.limits.max_struct_log_steps,
      simulationTtlSeconds: config.cache.simulation_ttl_seconds,
    })
    server = await listen(createApp({ config, engine, cache, logger: createLogger({ level: 'silent', secrets: [] }) }), { host: '127.0.0.1', port: 0 })
    block = `0x${(await anvil.rpc<string>('eth_blockNumber')).slice(2)}` as Hex
    // warm on both workers: the block's header and A's account in the shared cache
    for (let i = 0; i < 4; i++) expect((await rpc(warmCall(i))).json.result).toMatch(/^0x/)
    for (const { json, ms } of await Promise.all(Array.from({ length: 4 }, (_, i) => rpc(warmCall(4 + i))))) {
      expect(json.result).toMatch(/^0x/)
      warmMs = Math.max(warmMs, ms)
    }
    // the same load on a healthy upstream: its own run time
    const singles = Array.from({ length: 24 }, (_, i) => rpc(coldCall(10 + i)))
    const batch = await rpc(Array.from({ length: 100 }, (_, i) => coldCall(500 + i)))
    for (const { json, ms } of await Promise.all(singles)) {
      expect(json.result).toBe('0x')
      coldMs = Math.max(coldMs, ms)
    }
    for (const item of batch.json) expect(item.result).toBe('0x')
    batchMs = batch.ms
  }, 120_000)
  afterAll(async () => {
    upstream?.hang(false)
    await server?.close(1000)
    await engine?.close()
    await upstream?.close()
    await anvil?.stop()
  })

  it('answers every cold call and every batch item within the budget, and warm calls meanwhile', async () => {
    upstream.hang(true)
    try {
      const bound = BUDGET_MS + coldMs + SCHEDULING_MS
      const batchBound = BUDGET_MS + batchMs + SCHEDULING_MS
      const singles = Array.from({ length: 24 }, (_, i) => rpc(coldCall(100 + i)))
      const batch = rpc(Array.from({ length: 100 }, (_, i) => coldCall(1000 + i)))
      // warm requests sent while the cold ones wait on the upstream: once every cold call is with
      // a worker and waiting (what they compute before they ask the upstream is their own work,
      // which a warm call asked behind them in the queue waits for as any call would), and at
      // most RPC_TIMEOUT_MS / 2 after them, well before the first of them gives up on the upstream
      const sent = performance.now()
      const allWaiting = () => {
        const { queued, workers } = engine.stats()
        return queued === 0 && workers.reduce((n, w) => n + w.waiting, 0) >= 24 + 100
      }
      while (performance.now() - sent < RPC_TIMEOUT_MS / 2 && !allWaiting()) await new Promise((r) => setTimeout(r, 10))
      const warm = Array.from({ length: 4 }, (_, i) => rpc(warmCall(200 + i)))
      const got = await Promise.all(singles)
      for (const { json, ms } of got) {
        expect(json.error?.code, JSON.stringify(json)).toBe(-32000)
        expect(json.error.message).toMatch(/upstream/)
        expect(json.error.message).not.toContain('sk_test_hanging')
        expect(ms, `a cold call answered after ${Math.round(ms)} ms`).toBeLessThan(bound)
      }
      const b = await batch
      expect(b.json).toHaveLength(100)
      for (const item of b.json) expect(item.error?.code, JSON.stringify(item)).toBe(-32000)
      expect(b.ms, `the batch of 100 answered after ${Math.round(b.ms)} ms`).toBeLessThan(batchBound)
      // the cold calls wait on the upstream without holding the places meant for computing
      for (const { json, ms } of await Promise.all(warm)) {
        expect(json.result, JSON.stringify(json)).toMatch(/^0x[0-9a-f]+$/)
        expect(ms, `a warm call answered after ${Math.round(ms)} ms (${Math.round(warmMs)} ms on a healthy upstream)`).toBeLessThan(warmMs + WARM_SCHEDULING_MS)
      }
    } finally {
      upstream.hang(false)
    }
  }, 60_000)

  it('answers cold calls again once the upstream does', async () => {
    // calls fail fast until a probe of the upstream is answered: the probe sent while it hung
    // gives up after RPC_TIMEOUT_MS, the next one finds it well
    let result: unknown
    const t0 = performance.now()
    // when the call that found the upstream again was sent: its own run time is the machine's
    let answeredFrom = t0
    for (let i = 0; i < 12 && result === undefined; i++) {
      answeredFrom = performance.now()
      const { json } = await rpc(coldCall(300 + i))
      result = json.result
      if (result === undefined) {
        expect(json.error.code).toBe(-32000)
        await new Promise((r) => setTimeout(r, RPC_TIMEOUT_MS / 4))
      }
    }
    expect(result).toBe('0x')
    expect(answeredFrom - t0).toBeLessThan(2 * RPC_TIMEOUT_MS + SCHEDULING_MS)
  }, 30_000)
})
