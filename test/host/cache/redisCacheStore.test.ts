/**
 * The Redis cache store against a real redis-server of this file's own: byte-exact values, TTLs,
 * MGET / pipelined SET, the atomic rate-limit counter shared by two clients, key namespacing,
 * and the outage behaviour (down at start, killed mid-run, stalled): never a throw, misses,
 * ping false, and back in use once Redis returns.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClient } from 'redis'
import { createRedisCacheStore, type RedisCacheStore } from '../../../host/cache/redisCacheStore.js'
import { createCacheStore, redactUrl } from '../../../host/cache/createCacheStore.js'
import { isEngineError } from '../../../engine/platform/errors.js'
import { freePort } from '../../support/anvil.js'
import { bytes, requireRedisServer, startRedisServer, waitFor, type RedisServer } from '../../support/redisServer.js'

const hasRedis = requireRedisServer()

describe.runIf(hasRedis)('redisCacheStore', () => {
  let server: RedisServer
  let raw: ReturnType<typeof createClient>
  const stores: RedisCacheStore[] = []
  const open = (prefix = 'test:', url = server.url) => {
    const s = createRedisCacheStore({ url, prefix })
    stores.push(s)
    return s
  }
  const ready = (s: RedisCacheStore) => waitFor(() => s.ping(), 'redis ready')

  beforeAll(async () => {
    server = await startRedisServer()
    raw = createClient({ url: server.url })
    raw.on('error', () => {})
    await raw.connect()
  })
  afterAll(async () => {
    for (const s of stores) await s.close()
    raw?.destroy()
    await server?.stop()
  })

  it('stores every byte value exactly (binary-safe, not UTF-8)', async () => {
    const s = open()
    await ready(s)
    const all = new Uint8Array(512).map((_, i) => (i * 7 + 3) & 0xff)
    all[0] = 0xff
    all[1] = 0xc3 // lone UTF-8 lead byte: would be mangled by a string decode
    await s.set('bin', all)
    const back = await s.get('bin')
    expect(back).toBeInstanceOf(Uint8Array)
    expect(Array.from(back!)).toEqual(Array.from(all))
    // a subarray view is stored as its own bytes, not its whole backing buffer
    await s.set('view', all.subarray(10, 14))
    expect(Array.from((await s.get('view'))!)).toEqual(Array.from(all.subarray(10, 14)))
    await s.set('empty', new Uint8Array(0))
    expect((await s.get('empty'))?.length).toBe(0)
    expect(await s.get('absent')).toBeUndefined()
  })

  it('sets a TTL when asked and none otherwise', async () => {
    const s = open()
    await ready(s)
    await s.set('ttl', bytes(1), 30)
    await s.set('forever', bytes(2))
    const pttl = await raw.pTTL('test:ttl')
    expect(pttl).toBeGreaterThan(0)
    expect(pttl).toBeLessThanOrEqual(30_000)
    expect(await raw.pTTL('test:forever')).toBe(-1)
    // an expired key is a miss
    await raw.pExpire('test:ttl', 1)
    await waitFor(async () => (await raw.exists('test:ttl')) === 0, 'expiry')
    expect(await s.get('ttl')).toBeUndefined()
  })

  it('getMany keeps the order and marks misses; setMany applies per-entry TTLs', async () => {
    const s = open()
    await ready(s)
    await s.setMany([
      { key: 'm1', value: bytes(1, 1) },
      { key: 'm2', value: bytes(2, 2), ttlSeconds: 60 },
      { key: 'm3', value: bytes(3, 3), ttlSeconds: 5 },
    ])
    const got = await s.getMany(['m3', 'nope', 'm1', 'm2'])
    expect(got.map((v) => (v ? Array.from(v) : null))).toEqual([[3, 3], null, [1, 1], [2, 2]])
    expect(await raw.pTTL('test:m1')).toBe(-1)
    expect(await raw.pTTL('test:m2')).toBeGreaterThan(5_000)
    const m3 = await raw.pTTL('test:m3')
    expect(m3).toBeGreaterThan(0)
    expect(m3).toBeLessThanOrEqual(5_000)
    expect(await s.getMany([])).toEqual([])
  })

  it('namespaces keys by prefix', async () => {
    const a = open('a:')
    const b = open('b:')
    await Promise.all([ready(a), ready(b)])
    await a.set('same', bytes(0xa))
    await b.set('same', bytes(0xb))
    expect(Array.from((await a.get('same'))!)).toEqual([0xa])
    expect(Array.from((await b.get('same'))!)).toEqual([0xb])
    expect((await raw.keys('*same')).sort()).toEqual(['a:same', 'b:same'])
  })

  it('increments atomically across two clients, one window with a TTL', async () => {
    const a = open('rl:')
    const b = open('rl:')
    await Promise.all([ready(a), ready(b)])
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).increment('ip:1.2.3.4', 60)))
    const counts = results.map((r) => r.count).sort((x, y) => x - y)
    expect(counts).toEqual(Array.from({ length: 100 }, (_, i) => i + 1))
    for (const r of results) {
      expect(r.resetSeconds).toBeGreaterThanOrEqual(1)
      expect(r.resetSeconds).toBeLessThanOrEqual(60)
    }
    const pttl = await raw.pTTL('rl:ip:1.2.3.4')
    expect(pttl).toBeGreaterThan(0)
    expect(pttl).toBeLessThanOrEqual(60_000)
    // a counter whose TTL was lost (e.g. PERSIST by an operator) gets its window back
    await raw.persist('rl:ip:1.2.3.4')
    const next = await a.increment('ip:1.2.3.4', 60)
    expect(next.count).toBe(101)
    expect(await raw.pTTL('rl:ip:1.2.3.4')).toBeGreaterThan(0)
    // once the window is gone a new one starts at 1
    await raw.del('rl:ip:1.2.3.4')
    expect((await b.increment('ip:1.2.3.4', 60)).count).toBe(1)
    // several counts reserved at once (an HTTP process's block, host/cluster/leasedCounter.ts); a
    // window that starts with a block gets its TTL too
    expect((await a.increment('ip:1.2.3.4', 60, 10)).count).toBe(11)
    await raw.del('rl:ip:1.2.3.4')
    expect((await a.increment('ip:1.2.3.4', 60, 10)).count).toBe(10)
    expect(await raw.pTTL('rl:ip:1.2.3.4')).toBeGreaterThan(0)
  })

  it('is usable while Redis is unreachable from the start: misses, dropped sets, local counters', async () => {
    const port = await freePort()
    const s = open('down:', `redis://127.0.0.1:${port}/0`)
    expect(await s.get('x')).toBeUndefined()
    await expect(s.set('x', bytes(1), 10)).resolves.toBeUndefined()
    await expect(s.setMany([{ key: 'y', value: bytes(2) }])).resolves.toBeUndefined()
    expect(await s.getMany(['x', 'y'])).toEqual([undefined, undefined])
    expect((await s.increment('c', 60)).count).toBe(1)
    expect((await s.increment('c', 60)).count).toBe(2)
    expect(await s.ping()).toBe(false)
    expect(s.ready).toBe(false)
  })

  it('survives Redis being killed mid-run and uses it again once it is back', async () => {
    const s = open('outage:')
    await ready(s)
    await s.set('k', bytes(7))
    expect(Array.from((await s.get('k'))!)).toEqual([7])
    expect((await s.increment('c', 60)).count).toBe(1)

    await server.kill()
    await waitFor(async () => !(await s.ping()), 'ping false after kill')
    expect(await s.get('k')).toBeUndefined()
    await expect(s.set('k2', bytes(8))).resolves.toBeUndefined()
    expect(await s.getMany(['k', 'k2'])).toEqual([undefined, undefined])
    // counters keep counting in-process meanwhile
    const c1 = await s.increment('c', 60)
    const c2 = await s.increment('c', 60)
    expect(c2.count).toBe(c1.count + 1)

    await server.restart()
    await waitFor(() => s.ping(), 'reconnect after restart')
    expect(s.ready).toBe(true)
    await s.set('k3', bytes(9), 60)
    expect(Array.from((await s.get('k3'))!)).toEqual([9])
    // really in Redis, not only in this process
    await raw.connect().catch(() => {})
    await waitFor(async () => raw.isReady, 'raw client back')
    expect(await raw.exists('outage:k3')).toBe(1)
    expect((await s.increment('c', 60)).count).toBe(1) // Redis restarted empty: a new window
  })

  it('answers a stalled Redis with misses instead of hanging the request', async () => {
    const s = createRedisCacheStore({ url: server.url, prefix: 'stall:', opTimeoutMs: 100 })
    stores.push(s)
    await ready(s)
    await s.set('k', bytes(1))
    const info = async () => Number(/cmdstat_get:calls=(\d+)/.exec(await raw.info('commandstats'))?.[1] ?? 0)
    const getsBefore = await info()
    server.pause()
    try {
      // the key exists, so only a bounded, abandoned operation can make this a miss
      expect(await s.get('k')).toBeUndefined()
      expect(await s.get('k')).toBeUndefined()
      expect(await s.get('k')).toBeUndefined()
      // three failures in a row: Redis is skipped for a moment, these never reach the socket
      for (let i = 0; i < 20; i++) expect(await s.get('k')).toBeUndefined()
      expect(await s.ping()).toBe(false)
      await expect(s.set('k', bytes(2))).resolves.toBeUndefined()
      expect((await s.increment('c', 60)).count).toBe(1)
    } finally {
      server.resume()
    }
    await waitFor(async () => (await s.get('k')) !== undefined, 'redis answering again after SIGCONT')
    // the three timed-out GETs were written before the pause was noticed and ran on SIGCONT;
    // the twenty skipped ones never left the process
    expect((await info()) - getsBefore).toBeLessThan(10)
  })
})

describe('createCacheStore', () => {
  it('never shows the password of a cache URL', async () => {
    const url = 'rediss://alice:s3cr3t-pw@cache.example:6380/2'
    expect(redactUrl(url)).not.toContain('s3cr3t-pw')
    expect(redactUrl(url)).toContain('cache.example:6380')
    for (const bad of ['ftp://alice:s3cr3t-pw@h/0', 'redis://alice:s3cr3t-pw@h:1/notadb']) {
      try {
        createCacheStore(bad)
        expect.unreachable(`should reject ${redactUrl(bad)}`)
      } catch (e) {
        expect(isEngineError(e)).toBe(true)
        expect(JSON.stringify({ m: (e as Error).message, d: (e as { details?: unknown }).details })).not.toContain('s3cr3t-pw')
      }
    }
  })

  it('memory:// is the in-process store', async () => {
    const s = createCacheStore('memory://')
    await s.set('a', bytes(1))
    expect(Array.from((await s.get('a'))!)).toEqual([1])
    expect(await s.ping()).toBe(true)
    await s.close()
  })
})
