/**
 * The cache store "configured by a URL" (interface §11 `[cache] url` / `CACHE_URL`):
 * - `memory://`                                → the in-process LRU
 * - `redis://host:port/db`, `rediss://user:pass@host:port/db` → the LRU in front of Redis
 * - `redis+cluster://host:port[,host:port…]`, `rediss+cluster://…` → the LRU in front of a Redis
 *   Cluster (`redisUrl.ts`)
 *
 * The URL may carry a password: it is never logged nor put into an error (see `redactUrl`).
 *
 * @example
 * const cache = createCacheStore(process.env.CACHE_URL ?? 'memory://', { logger })
 */
import { EngineError } from '../../engine/platform/errors.js'
import type { CacheStore } from '../../engine/state/store/cacheStore.js'
import { createMemoryCacheStore } from './memoryCacheStore.js'
import { createRedisCacheStore } from './redisCacheStore.js'
import { isClusterUrl, isRedisUrl, parseRedisUrl, redactUrl } from './redisUrl.js'
import { createTieredCacheStore } from './tieredCacheStore.js'

export { redactUrl }

export interface CreateCacheStoreOptions {
  /** bound of the in-process level, bytes (default 256 MiB) */
  memoryMaxBytes?: number
  /** namespace of the Redis keys (default 'evmsim:') */
  prefix?: string
  /** upper bound of one Redis operation, ms (default 250) */
  opTimeoutMs?: number
  logger?: { warn(o: object, msg?: string): void; info?(o: object, msg?: string): void }
}

/** Redis, one server or a cluster: every instance and worker shares what it holds */
export function isSharedCacheUrl(url: string): boolean {
  return isRedisUrl(url)
}

export function createCacheStore(url: string, opts: CreateCacheStoreOptions = {}): CacheStore {
  const trimmed = url.trim()
  const memory = () => createMemoryCacheStore({ maxBytes: opts.memoryMaxBytes })
  if (trimmed === '' || /^memory:(\/\/)?$/i.test(trimmed)) return memory()

  if (isClusterUrl(trimmed)) {
    parseRedisUrl(trimmed)
    return createTieredCacheStore(memory(), createRedisCacheStore({ url: trimmed, prefix: opts.prefix, opTimeoutMs: opts.opTimeoutMs, logger: opts.logger }))
  }
  let parsed: URL
  try {
    parsed = new URL(trimmed)
  } catch {
    throw new EngineError('VALIDATION_ERROR', 'cache url is not a valid URL', { url: redactUrl(trimmed) }, 'use memory:// or redis://host:6379/0')
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new EngineError(
      'VALIDATION_ERROR',
      `cache url scheme ${parsed.protocol}// is not supported`,
      { url: redactUrl(trimmed) },
      'use memory://, redis://[user:pass@]host:port/db, rediss:// for TLS, or redis+cluster://host:port[,host:port…]',
    )
  }
  const db = parsed.pathname.replace(/^\//, '')
  if (db !== '' && !/^\d+$/.test(db)) {
    throw new EngineError('VALIDATION_ERROR', `cache url database "${db}" is not a number`, { url: redactUrl(trimmed) })
  }
  const redis = createRedisCacheStore({ url: trimmed, prefix: opts.prefix, opTimeoutMs: opts.opTimeoutMs, logger: opts.logger })
  return createTieredCacheStore(memory(), redis)
}
