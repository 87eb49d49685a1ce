/**
 * Two upstream counts of the bench, measured over HTTP through a proxy that counts upstream requests:
 * - a simulation at a fixed block number, run on one instance and repeated on a second instance
 *   over the same Redis: the second makes no upstream request (headers, hints and state are in
 *   the shared store);
 * - simulations at `latest`: with head tracking (`HEAD_MAX_AGE_MS`, default 1000) a request uses
 *   the newest head seen within that age, so most requests make no upstream request; with 0 every
 *   request resolves `latest` anew (one round trip each).
 * The services are started by the caller (bench/run.ts), as `npm start` runs them.
 */
import type { Hex } from 'viem'
import { redisServerBinary, startRedisServer } from '../test/support/redisServer.js'
import { startCountingProxy } from '../test/support/countingProxy.js'

/** the table's heading; `BENCH_ONLY=` any part of it runs only this */
export const SHARED_STATE_ROW = 'a second instance over one Redis, and `latest` with head tracking'

type Service = { url: string; stop(): Promise<void> }

export interface SharedStateOptions {
  /** the upstream (Anvil) the services fork */
  anvilUrl: string
  startService(rpcUrl: string, env: Record<string, string>): Promise<Service>
  /** POST /v1/simulate of `calls` at `block` (a number, or the tag `latest`); throws unless it succeeded */
  simulate(svc: Service, call: object, block: Hex | 'latest'): Promise<unknown>
  /** the i-th call (a different amount each: no answer from a result cache) */
  callOf(i: number): object
  block: Hex
}

export interface SharedStateResult {
  /** upstream requests of the repeat on the second instance; undefined: no redis-server here */
  secondInstanceRequests?: number
  /** per HEAD_MAX_AGE_MS: upstream round trips over `requests` sequential requests at latest, and how long they took */
  latest: { maxAgeMs: string; trips: number; requests: number; ms: number }[]
}

const LATEST_REQUESTS = 50

export async function measureSharedState(o: SharedStateOptions): Promise<SharedStateResult> {
  const proxy = await startCountingProxy(o.anvilUrl)
  const result: SharedStateResult = { latest: [] }
  try {
    if (redisServerBinary()) {
      const redis = await startRedisServer()
      const env = { CACHE_URL: redis.url }
      const first = await o.startService(proxy.url, env)
      const second = await o.startService(proxy.url, env)
      try {
        const call = o.callOf(90_000)
        await o.simulate(first, call, o.block)
        proxy.reset()
        await o.simulate(second, call, o.block)
        result.secondInstanceRequests = proxy.requests()
      } finally {
        await first.stop()
        await second.stop()
        await redis.stop()
      }
    }
    for (const maxAgeMs of ['1000', '0']) {
      const svc = await o.startService(proxy.url, { HEAD_MAX_AGE_MS: maxAgeMs })
      try {
        // the state at the head read once, and V8 warmed up
        for (let i = 0; i < 20; i++) await o.simulate(svc, o.callOf(91_000 + i), 'latest')
        proxy.reset()
        const start = performance.now()
        for (let i = 0; i < LATEST_REQUESTS; i++) await o.simulate(svc, o.callOf(92_000 + i), 'latest')
        result.latest.push({ maxAgeMs, trips: proxy.requests(), requests: LATEST_REQUESTS, ms: performance.now() - start })
      } finally {
        await svc.stop()
      }
    }
  } finally {
    await proxy.close()
  }
  return result
}
