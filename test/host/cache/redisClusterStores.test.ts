/**
 * The cache store and the fork store on a real Redis Cluster of the test's own (three primaries,
 * each with a replica): `CACHE_URL=redis+cluster://…` parsed and refused as it should be; values
 * on every node read back, several at once across slots; a fork's keys in one slot (the hash tag
 * `{fork:<id>}`), so its commit is one script on one primary and lands whole; the same hash slots
 * as the cluster computes them; a fork write answered once the primary's replica has it, and
 * refused as "may have landed" when the replica does not acknowledge it in time.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ForkRecord, StoredBlock } from '../../../engine/chains/forks/types.js'
import { createCacheStore, isSharedCacheUrl } from '../../../host/cache/createCacheStore.js'
import { keySlot } from '../../../host/cache/keySlot.js'
import { createRedisCacheStore } from '../../../host/cache/redisCacheStore.js'
import { liveReplicas } from '../../../host/cache/redisConnection.js'
import { createRedisForkStore } from '../../../host/cache/redisForkStore.js'
import { parseRedisUrl, redactUrl } from '../../../host/cache/redisUrl.js'
import { requireRedisCluster, startRedisCluster, type RedisCluster } from '../../support/redisCluster.js'
import { waitFor } from '../../support/redisServer.js'

describe('redis+cluster:// URLs', () => {
  it('lists the seed nodes, the credentials and TLS; database 0 only; the password never shown', () => {
    expect(parseRedisUrl('rediss+cluster://app:s3cr%40t@10.0.0.1:7000,cache-b.internal:7001/0')).toEqual({
      cluster: true,
      rootUrls: ['redis://10.0.0.1:7000', 'redis://cache-b.internal:7001'],
      username: 'app',
      password: 's3cr@t',
      tls: true,
    })
    expect(parseRedisUrl('redis://127.0.0.1:6379/2')).toEqual({ cluster: false, url: 'redis://127.0.0.1:6379/2' })
    expect(isSharedCacheUrl('redis+cluster://h:1')).toBe(true)
    expect(redactUrl('redis+cluster://app:s3cr3t-pw@h1:7000,h2:7000')).toBe('redis+cluster://***:***@h1:7000,h2:7000')
    for (const bad of ['redis+cluster://app:s3cr3t-pw@h1:7000/3', 'redis+cluster://app:s3cr3t-pw@h1,h2:7000', 'redis+cluster://']) {
      let err: { code?: string; message?: string; details?: unknown } = {}
      try {
        createCacheStore(bad)
      } catch (e) {
        err = e as typeof err
      }
      expect(err.code, bad).toBe('VALIDATION_ERROR')
      expect(JSON.stringify([err.message, err.details])).not.toContain('s3cr3t-pw')
    }
  })
})

describe('the replicas a fork write waits for', () => {
  it('counts the replicas of the node itself that the cluster does not hold failed', () => {
    const nodes = [
      'a1 127.0.0.1:7000@17000 myself,master - 0 0 1 connected 0-5460',
      'b1 127.0.0.1:7001@17001 slave a1 0 0 1 connected',
      'b2 127.0.0.1:7002@17002 slave,fail a1 0 0 1 connected',
      'c1 127.0.0.1:7003@17003 master - 0 0 2 connected 5461-10922',
      'd1 127.0.0.1:7004@17004 slave c1 0 0 2 connected',
    ].join('\n')
    expect(liveReplicas(nodes)).toBe(1)
    expect(liveReplicas(nodes.replace('slave a1', 'slave,fail a1'))).toBe(0)
  })
})

const record = (id: string, version: number, head: number): ForkRecord =>
  ({ id, version, ttlSeconds: 600, headBlockNumber: `0x${head.toString(16)}` }) as unknown as ForkRecord
const block = (n: number): StoredBlock => ({ number: `0x${n.toString(16)}`, receipts: [`r${n}`] }) as unknown as StoredBlock

describe.runIf(requireRedisCluster())('the stores on a Redis Cluster', () => {
  let cluster: RedisCluster
  beforeAll(async () => {
    cluster = await startRedisCluster()
  }, 60_000)
  afterAll(async () => {
    await cluster?.stop()
  })

  it('computes the slot of a key as the cluster does, hash tags included', async () => {
    for (const key of ['evmsim:{fork:abc}', 'evmsim:{fork:abc}:blocks', 'evmsim:forks', 'plain', '{}empty-tag', 'a{b}c{d}']) {
      expect(keySlot(key), key).toBe(Number(await cluster.cli(cluster.ports[0]!, 'cluster', 'keyslot', key)))
    }
  })

  it('caches values on every primary and reads several at once across slots', async () => {
    const prefix = `c-${randomUUID()}:`
    const store = createRedisCacheStore({ url: cluster.url, prefix, opTimeoutMs: 1000 })
    try {
      await waitFor(() => store.ping(), 'the cluster store to answer')
      const keys = Array.from({ length: 40 }, (_, i) => `k${i}`)
      const owners = new Set(await cluster.primariesOf(keys.map((k) => `${prefix}${k}`)))
      expect(owners.size).toBeGreaterThan(1)
      await store.setMany(keys.map((key, i) => ({ key, value: new Uint8Array([i, 255 - i]) })))
      const read = await store.getMany([...keys, 'missing'])
      expect(read.map((v) => (v ? [...v] : undefined))).toEqual([...keys.map((_, i) => [i, 255 - i]), undefined])
      await store.set('one', new Uint8Array([7]), 60)
      expect([...(await store.get('one'))!]).toEqual([7])
      expect((await store.increment('ip', 60, 2)).count).toBe(2)
      expect((await store.increment('ip', 60)).count).toBe(3)
    } finally {
      await store.close()
    }
  })

  it("keeps a fork's keys in one slot and lands a commit whole, answered once the replica has it", async () => {
    const prefix = `f-${randomUUID()}:`
    const store = createRedisForkStore({ url: cluster.url, prefix })
    try {
      const id = randomUUID()
      expect(await store.create(id, record(id, 1, 0), 10)).toBe('created')
      expect(await store.commit(id, 1, record(id, 2, 2), [block(1), block(2)])).toBe(true)
      // a writer that lost the race changes nothing
      expect(await store.commit(id, 1, record(id, 2, 3), [block(3)])).toBe(false)
      expect((await store.read(id))?.record).toMatchObject({ version: 2, headBlockNumber: '0x2' })
      expect(await store.readBlocks(id, [1n, 2n, 3n])).toEqual([block(1), block(2), undefined])
      expect((await store.list()).map((f) => f.record.id)).toEqual([id])

      const meta = `${prefix}{fork:${id}}`
      const primary = await cluster.primaryOf(meta)
      expect(await cluster.primaryOf(`${meta}:blocks`)).toBe(primary)
      expect(await cluster.cli(primary, 'exists', meta, `${meta}:blocks`)).toBe('2')
      // the primary's replica has the commit already: WAIT answered before the commit did
      const nodes = await cluster.nodes()
      const replica = nodes.find((n) => n.primaryId === nodes.find((p) => p.port === primary)!.id)!
      expect(await cluster.session(replica.port, ['READONLY'], ['HGET', meta, 'version'])).toEqual(['OK', '2'])

      expect(await store.delete(id)).toBe(true)
      expect(await store.read(id)).toBeUndefined()
      expect(await store.count()).toBe(0)
    } finally {
      await store.close()
    }
  })

  it('refuses a commit no replica acknowledged in time, saying it may have landed', async () => {
    const prefix = `r-${randomUUID()}:`
    const store = createRedisForkStore({ url: cluster.url, prefix, replicaWaitMs: 300 })
    const id = randomUUID()
    expect(await store.create(id, record(id, 1, 0), 10)).toBe('created')
    const primary = await cluster.primaryOf(`${prefix}{fork:${id}}`)
    const nodes = await cluster.nodes()
    const replica = nodes.find((n) => n.primaryId === nodes.find((p) => p.port === primary)!.id)!
    cluster.pause(replica.port)
    try {
      const err = (await store.commit(id, 1, record(id, 2, 1), [block(1)]).catch((e) => e)) as { code?: string; message?: string; details?: unknown }
      expect(err.code).toBe('FORKS_UNAVAILABLE')
      expect(err.message).toMatch(/did not copy the change to a replica in time: the change may have landed whole or not at all/)
      expect(err.details).toMatchObject({ retryAfterSeconds: 1 })
    } finally {
      cluster.resume(replica.port)
    }
    // it did land on the primary, whole: the next writer sees it
    expect((await store.read(id))?.record.version).toBe(2)
    expect(await store.readBlocks(id, [1n])).toEqual([block(1)])
    await store.close()
  })

  it('counts forks against the cap once across creations racing on two stores', async () => {
    const prefix = `cap-${randomUUID()}:`
    const [a, b] = [createRedisForkStore({ url: cluster.url, prefix }), createRedisForkStore({ url: cluster.url, prefix })]
    try {
      const ids = Array.from({ length: 10 }, () => randomUUID())
      const answers = await Promise.all(ids.map((id, i) => (i % 2 ? b : a).create(id, record(id, 1, 0), 4)))
      expect(answers.filter((x) => x === 'created')).toHaveLength(4)
      expect(answers.filter((x) => x === 'full')).toHaveLength(6)
      expect(await a.count()).toBe(4)
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })
})
