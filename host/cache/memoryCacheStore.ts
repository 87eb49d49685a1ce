/**
 * `memory://` — the in-process cache store: an LRU bounded by bytes, with per-entry TTLs.
 * Also the front level of the two-level store in front of Redis.
 */
import { LRUCache } from 'lru-cache'
import type { CacheStore } from '../../engine/state/store/cacheStore.js'
import { entryBytes, ownBytes } from '../../engine/state/store/entrySize.js'

export interface MemoryCacheStoreOptions {
  /** total size bound of the values, in bytes (default 256 MiB) */
  maxBytes?: number
}

export function createMemoryCacheStore(opts: MemoryCacheStoreOptions = {}): CacheStore {
  const values = new LRUCache<string, Uint8Array>({
    maxSize: opts.maxBytes ?? 256 * 1024 * 1024,
    // what an entry really costs the heap (entrySize.ts): a flood of tiny entries stays bounded
    sizeCalculation: (v, k) => entryBytes(k, v.byteLength),
    ttlAutopurge: false,
  })
  // Counters are few and tiny; kept apart so value churn never evicts a rate-limit window.
  const counters = new Map<string, { count: number; resetAt: number }>()

  const set = (key: string, value: Uint8Array, ttlSeconds?: number) => {
    // a view into a bigger buffer (zlib output, a Redis reply) would keep all of it alive
    values.set(key, ownBytes(value), ttlSeconds ? { ttl: ttlSeconds * 1000 } : undefined)
  }

  return {
    async get(key) {
      return values.get(key)
    },
    async set(key, value, ttlSeconds) {
      set(key, value, ttlSeconds)
    },
    async getMany(keys) {
      return keys.map((k) => values.get(k))
    },
    async setMany(entries) {
      for (const e of entries) set(e.key, e.value, e.ttlSeconds)
    },
    async increment(key, windowSeconds, by = 1) {
      const now = Date.now()
      let c = counters.get(key)
      if (!c || c.resetAt <= now) {
        // drop expired windows now and then so the map cannot grow without bound
        if (counters.size > 10_000) for (const [k, v] of counters) if (v.resetAt <= now) counters.delete(k)
        c = { count: 0, resetAt: now + windowSeconds * 1000 }
        counters.set(key, c)
      }
      c.count += by
      return { count: c.count, resetSeconds: Math.max(1, Math.ceil((c.resetAt - now) / 1000)) }
    },
    async ping() {
      return true
    },
    async close() {
      values.clear()
      counters.clear()
    },
  }
}
