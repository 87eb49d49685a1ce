/**
 * The two-level store: hot reads are served by the in-process LRU without a Redis command
 * (counted with Redis' own INFO commandstats), misses read through and fill the local level,
 * writes reach both levels, counters are global across instances, and a Redis outage leaves
 * locally cached values readable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClient } from 'redis'
import { createCacheStore } from '../../../host/cache/createCacheStore.js'
import type { CacheStore } from '../../../engine/state/store/cacheStore.js'
import { bytes, requireRedisServer, startRedisServer, waitFor, type RedisServer } from '../../support/redisServer.js'

const hasRedis = requireRedisServer()

describe.runIf(hasRedis)('tieredCacheStore (LRU in front of Redis)', () => {
  let server: RedisServer
  let raw: ReturnType<typeof createClient>
  const stores: CacheStore[] = []
  const open = async () => {
    const s = createCacheStore(server.url, { prefix: 'tier:' })
    stores.push(s)
    await waitFor(() => s.ping(), 'redis ready')
    return s
  }
  /** how many times Redis has executed `cmd` so far */
  const calls = async (cmd: string): Promise<number> => {
    const info = await raw.info('commandstats')
    const m = new RegExp(`cmdstat_${cmd}:calls=(\\d+)`).exec(info)
    return m ? Number(m[1]) : 0
  }

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

  it('writes through to Redis and serves hot reads from the process', async () => {
    const a = await open()
    await a.set('hot', bytes(1, 2, 3), 60)
    expect(await raw.exists('tier:hot')).toBe(1)
    const gets = await calls('get')
    const mgets = await calls('mget')
    for (let i = 0; i < 20; i++) expect(Array.from((await a.get('hot'))!)).toEqual([1, 2, 3])
    expect((await a.getMany(['hot'])).map((v) => v && Array.from(v))).toEqual([[1, 2, 3]])
    expect(await calls('get')).toBe(gets)
    expect(await calls('mget')).toBe(mgets)
  })

  it('reads through on a local miss once, then serves locally', async () => {
    const a = await open()
    const b = await open() // another instance: empty local level
    await a.set('shared', bytes(9), 60)
    const gets = await calls('get')
    expect(Array.from((await b.get('shared'))!)).toEqual([9])
    expect(await calls('get')).toBe(gets + 1)
    expect(Array.from((await b.get('shared'))!)).toEqual([9])
    expect(await calls('get')).toBe(gets + 1)
  })

  it('getMany asks Redis only for the keys missing locally, in one MGET', async () => {
    const a = await open()
    const b = await open()
    await a.setMany([
      { key: 'g1', value: bytes(1) },
      { key: 'g2', value: bytes(2), ttlSeconds: 60 },
    ])
    await b.set('g3', bytes(3))
    const mgets = await calls('mget')
    const got = await b.getMany(['g1', 'g3', 'missing', 'g2'])
    expect(got.map((v) => (v ? Array.from(v) : null))).toEqual([[1], [3], null, [2]])
    expect(await calls('mget')).toBe(mgets + 1)
    // now all three are local; only the absent key would go out again
    const gets = await calls('get')
    expect((await b.getMany(['g1', 'g2', 'g3'])).every((v) => v !== undefined)).toBe(true)
    expect(await calls('mget')).toBe(mgets + 1)
    expect(await calls('get')).toBe(gets)
  })

  it('counts a rate-limit window across instances in Redis', async () => {
    const a = await open()
    const b = await open()
    const r1 = await a.increment('rl:10.0.0.1', 60)
    const r2 = await b.increment('rl:10.0.0.1', 60)
    const r3 = await a.increment('rl:10.0.0.1', 60)
    expect([r1.count, r2.count, r3.count]).toEqual([1, 2, 3])
    expect(await raw.get('tier:rl:10.0.0.1')).toBe('3')
  })

  it('keeps serving locally cached values while Redis is down, and recovers', async () => {
    const a = await open()
    await a.set('local', bytes(5))
    await server.kill()
    await waitFor(async () => !(await a.ping()), 'ping false')
    expect(Array.from((await a.get('local'))!)).toEqual([5])
    await a.set('during', bytes(6))
    expect(Array.from((await a.get('during'))!)).toEqual([6]) // local level still works
    expect(await a.get('never-seen')).toBeUndefined()
    await server.restart()
    await waitFor(() => a.ping(), 'reconnect')
    await a.set('after', bytes(7))
    await raw.connect().catch(() => {})
    await waitFor(async () => raw.isReady, 'raw client back')
    expect(await raw.exists('tier:after')).toBe(1)
  })
})
