/**
 * The per-IP rate limit is global: two instances of the HTTP app (createApp, real HTTP, each with
 * its own cache store: its own Redis connection and in-process level, as two processes would
 * have) share one Redis, and the limit counts across both. With Redis gone the instances keep
 * answering, each counting on its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCacheStore } from '../../../host/cache/createCacheStore.js'
import { createRedisCacheStore } from '../../../host/cache/redisCacheStore.js'
import type { CacheStore } from '../../../engine/state/store/cacheStore.js'
import type { Engine } from '../../../engine/types.js'
import { createEngine, requireEngineFacade } from '../workers/fixtures.js'
import { authed, startTestApp, type TestApp } from '../../src/support/startTestApp.js'
import { requireRedisServer, startRedisServer, type RedisServer } from '../../support/redisServer.js'

const ready = requireRedisServer() && requireEngineFacade()
const LIMIT = 5
const path = '/v1/simulations/sim_00000000-0000-4000-8000-0000000000ab'

describe.runIf(ready)('rate limit shared by two instances through Redis', () => {
  let redis: RedisServer
  const engines: Engine[] = []
  const caches: CacheStore[] = []
  const apps: TestApp[] = []

  const instance = async () => {
    const cache = createCacheStore(redis.url, { prefix: 'rl-apps:' })
    caches.push(cache)
    for (let i = 0; i < 200 && !(await cache.ping()); i++) await new Promise((r) => setTimeout(r, 25))
    // as src/main.ts wires an instance: one cache store for the engine and the HTTP layer
    const engine = await createEngine({ cache, gasCap: 50_000_000n, rpcTimeoutMs: 10_000, maxStructLogSteps: 100_000, simulationTtlSeconds: 60 })
    engines.push(engine)
    const app = await startTestApp({ env: { RATE_LIMIT_REQUESTS: String(LIMIT), RATE_LIMIT_DURATION: '60' }, engine: engine as never, cache })
    apps.push(app)
    return app
  }

  beforeAll(async () => {
    redis = await startRedisServer()
  })
  afterAll(async () => {
    for (const a of apps) await a.close()
    for (const c of caches) await c.close()
    for (const e of engines) await e.close()
    await redis?.stop()
  })

  it('counts requests to either instance against one limit', async () => {
    const a = await instance()
    const b = await instance()
    const statuses: number[] = []
    const remaining: string[] = []
    // alternate between the instances: neither alone reaches the limit
    for (let i = 0; i < LIMIT; i++) {
      const res = await (i % 2 ? b : a).fetch(path, authed())
      statuses.push(res.status)
      remaining.push(res.headers.get('ratelimit-remaining')!)
    }
    expect(statuses).toEqual(Array(LIMIT).fill(404)) // answered by the engine: unknown simulation
    expect(remaining).toEqual(Array.from({ length: LIMIT }, (_, i) => String(LIMIT - 1 - i)))
    for (const app of [a, b]) {
      const res = await app.fetch(path, authed())
      expect(res.status).toBe(429)
      expect((await res.json()).error.code).toBe('RATE_LIMIT_EXCEEDED')
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    }
  })

  it('keeps answering with per-instance counting while Redis is down, and uses Redis again once it is back', async () => {
    const [a, b] = apps.length >= 2 ? apps : [await instance(), await instance()]
    await redis.kill()
    for (let i = 0; i < 200 && (await caches[0]!.ping()); i++) await new Promise((r) => setTimeout(r, 25))
    // the shared window is out of reach: each instance starts its own and still enforces it
    for (const app of [a!, b!]) {
      const statuses: number[] = []
      for (let i = 0; i < LIMIT + 1; i++) statuses.push((await app.fetch(path, authed())).status)
      expect(statuses).toEqual([...Array(LIMIT).fill(404), 429])
    }
    const health = await a!.fetch('/v1/health')
    expect(health.status).toBe(503)
    expect((await health.json()).status).toBe('degraded')

    // Redis back: the client reconnects by itself, health is ok again and the store is used
    await redis.restart()
    for (let i = 0; i < 200 && !(await caches[0]!.ping()); i++) await new Promise((r) => setTimeout(r, 25))
    const back = await a!.fetch('/v1/health')
    expect(back.status).toBe(200)
    expect((await back.json()).status).toBe('ok')
    // a write through the instance's cache lands in Redis again (read back by another client)
    await caches[0]!.set('back-again', new Uint8Array([9]), 60)
    const direct = createRedisCacheStore({ url: redis.url, prefix: 'rl-apps:' })
    for (let i = 0; i < 40 && !direct.ready; i++) await new Promise((r) => setTimeout(r, 25))
    expect(await direct.get('back-again')).toEqual(new Uint8Array([9]))
    await direct.close()
  })
})
