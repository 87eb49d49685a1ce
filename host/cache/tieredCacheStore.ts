/**
 * Two levels: the in-process LRU in front of a shared store (Redis), so a hot read never leaves
 * the process. Reads go local first and fill the local level from the shared one (read-through);
 * writes go to both (write-through, awaited, so another instance can read a simulation as soon as
 * this one answered). Counters skip the local level: a rate limit is global or it is no limit.
 *
 * Safe because every key this service writes names immutable data (state at a fixed block, a
 * simulation by its id): a local copy can never disagree with the shared one, only outlive it.
 * `readThroughTtlSeconds` bounds how long such a copy is kept.
 *
 * @example
 * const store = createTieredCacheStore(createMemoryCacheStore(), createRedisCacheStore({ url }))
 */
import type { CacheStore } from '../../engine/state/store/cacheStore.js'

export interface TieredCacheStoreOptions {
  /** lifetime of a local copy filled from the shared level, s (default 3600) */
  readThroughTtlSeconds?: number
}

export function createTieredCacheStore(local: CacheStore, shared: CacheStore, opts: TieredCacheStoreOptions = {}): CacheStore {
  const fillTtl = opts.readThroughTtlSeconds ?? 3600

  return {
    async get(key) {
      const hit = await local.get(key)
      if (hit) return hit
      const value = await shared.get(key)
      if (value) await local.set(key, value, fillTtl)
      return value
    },
    async getMany(keys) {
      const values = await local.getMany(keys)
      const missing: number[] = []
      values.forEach((v, i) => v === undefined && missing.push(i))
      if (missing.length === 0) return values
      const fetched = await shared.getMany(missing.map((i) => keys[i]!))
      const fill: { key: string; value: Uint8Array; ttlSeconds?: number }[] = []
      missing.forEach((i, j) => {
        const v = fetched[j]
        if (v) {
          values[i] = v
          fill.push({ key: keys[i]!, value: v, ttlSeconds: fillTtl })
        }
      })
      if (fill.length) await local.setMany(fill)
      return values
    },
    async set(key, value, ttlSeconds) {
      await Promise.all([local.set(key, value, ttlSeconds), shared.set(key, value, ttlSeconds)])
    },
    async setMany(entries) {
      await Promise.all([local.setMany(entries), shared.setMany(entries)])
    },
    increment(key, windowSeconds, by) {
      return shared.increment(key, windowSeconds, by)
    },
    ping() {
      return shared.ping()
    },
    async close() {
      await Promise.all([local.close(), shared.close()])
    },
  }
}
