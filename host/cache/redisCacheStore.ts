/**
 * `redis://` / `rediss://` (one server) or `redis+cluster://` (a Redis Cluster) — the cache store
 * shared by every instance and worker (interface §6 and §11): fork state, stored simulations and
 * the global rate-limit counters. Every command is about one key, so on a cluster each goes to the
 * primary serving that key; several keys at once are asked of their nodes one by one.
 *
 * Redis is an accelerator, never a dependency of a request: when it is down, unreachable or
 * stalled, gets are misses, sets are dropped, counters fall back to an in-process window, and
 * `ping()` answers false (health `degraded`). The client reconnects by itself with backoff and
 * the store is used again as soon as it is back. Every operation is bounded by `opTimeoutMs`.
 *
 * @example
 * const store = createRedisCacheStore({ url: 'redis://127.0.0.1:6379/0', prefix: 'evmsim:' })
 * await store.set('k', new Uint8Array([0, 255]), 60)
 */
import type { CacheStore } from '../../engine/state/store/cacheStore.js'
import { createMemoryCacheStore } from './memoryCacheStore.js'
import { openRedis, type RedisArgs, type RedisConnection } from './redisConnection.js'
import { redactUrl } from './redisUrl.js'

export { redactUrl }

export interface RedisCacheStoreOptions {
  /** redis://[user:pass@]host:port/db, rediss://… (TLS), redis+cluster://host:port[,host:port…] */
  url: string
  /** namespace of every key, e.g. 'evmsim:' (default 'evmsim:') */
  prefix?: string
  /** upper bound of one operation, ms; a stalled Redis then looks like a miss (default 250) */
  opTimeoutMs?: number
  /** TCP connect timeout, ms (default 2000) */
  connectTimeoutMs?: number
  /** largest pause between reconnect attempts, ms (default 2000) */
  maxReconnectDelayMs?: number
  logger?: { warn(o: object, msg?: string): void; info?(o: object, msg?: string): void }
}

/**
 * INCR + first-use EXPIRE + PTTL in one round trip and atomically, so two instances racing on
 * one client IP never both see the first hit, and a key can never be left without a TTL
 * (a crash between INCR and EXPIRE would otherwise pin a client at the limit forever).
 */
const INCREMENT_SCRIPT = `
local c = redis.call('INCRBY', KEYS[1], ARGV[2])
local t = redis.call('PTTL', KEYS[1])
if c == tonumber(ARGV[2]) or t < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  t = tonumber(ARGV[1])
end
return {c, t}`

class RedisTimeoutError extends Error {}

export interface RedisCacheStore extends CacheStore {
  /** true while connected and answering commands */
  readonly ready: boolean
}

export function createRedisCacheStore(opts: RedisCacheStoreOptions): RedisCacheStore {
  // counters while Redis is away: per-instance limits are better than no limits at all
  const fallback = createMemoryCacheStore({ maxBytes: 1024 * 1024 })
  const link = connect(opts)
  const { conn } = link
  const send = (key: string, args: RedisArgs) => conn.send(key, args)
  return {
    get ready() {
      return conn.isReady && !link.closed
    },
    async get(k) {
      return guarded(
        link,
        async () => toBytes(await send(link.prefix + k, ['GET', link.prefix + k])),
        () => undefined,
      )
    },
    async set(k, value, ttlSeconds) {
      await guarded(
        link,
        async () => void (await send(link.prefix + k, setArgs(link, k, value, ttlSeconds))),
        () => undefined,
      )
    },
    async getMany(keys) {
      if (keys.length === 0) return []
      return guarded(
        link,
        async () => {
          const names = keys.map((k) => link.prefix + k)
          // one MGET on one server; on a cluster the keys lie on several nodes: one GET each, sent at once
          const values = conn.cluster ? await Promise.all(names.map((n) => send(n, ['GET', n]))) : ((await send(names[0]!, ['MGET', ...names])) as unknown[])
          return keys.map((_, i) => toBytes(values[i]))
        },
        () => keys.map(() => undefined),
      )
    },
    async setMany(entries) {
      if (entries.length === 0) return
      await guarded(
        link,
        async () => {
          // sent at once, pipelined on each connection (no MULTI: the entries are independent), each with its own TTL
          await Promise.all(entries.map((e) => send(link.prefix + e.key, setArgs(link, e.key, e.value, e.ttlSeconds))))
        },
        () => undefined,
      )
    },
    async increment(k, windowSeconds, by = 1) {
      return guarded(
        link,
        () => incrementIn(link, k, windowSeconds, by),
        () => fallback.increment(k, windowSeconds, by),
      )
    },
    async ping() {
      return guarded(
        link,
        () => conn.ping(),
        () => false,
        true,
      )
    },
    async close() {
      if (link.closed) return
      link.closed = true
      await fallback.close()
      await conn.close()
    },
  }
}

/** one connection to Redis and what the store knows of it */
interface Link {
  readonly conn: RedisConnection
  /** namespace of every key */
  readonly prefix: string
  readonly opTimeoutMs: number
  /** the URL without its password, for logs */
  readonly where: string
  readonly logger: RedisCacheStoreOptions['logger']
  closed: boolean
  /** an outage was reported: one warning per outage, not one per reconnect attempt */
  down: boolean
  /** operations that failed in a row */
  failures: number
  /** while a stalled Redis is skipped: until when (epoch ms; 0 when it is not) */
  skipUntil: number
}

/** a client that connects, and reconnects with backoff, by itself; its outages logged once each, never with the URL's password */
function connect(opts: RedisCacheStoreOptions): Link {
  const opTimeoutMs = opts.opTimeoutMs ?? 250
  const where = redactUrl(opts.url)
  const link: Link = {
    conn: openRedis({
      url: opts.url,
      isClosed: () => link.closed,
      connectTimeoutMs: opts.connectTimeoutMs,
      maxReconnectDelayMs: opts.maxReconnectDelayMs,
      binary: true,
      commandTimeoutMs: opTimeoutMs,
    }),
    prefix: opts.prefix ?? 'evmsim:',
    opTimeoutMs,
    where,
    logger: opts.logger,
    closed: false,
    down: false,
    failures: 0,
    skipUntil: 0,
  }
  link.conn.on('error', (err: Error) => {
    if (!link.down && !link.closed) opts.logger?.warn({ cache: where, err: err.message }, 'redis unavailable; cache degraded to misses')
    link.down = true
  })
  link.conn.on('ready', () => {
    if (link.down) opts.logger?.info?.({ cache: where }, 'redis reachable again')
    link.down = false
  })
  return link
}

// A stalled Redis (socket open, no answers) would cost every request opTimeoutMs: after a few
// failures in a row it is skipped for a moment, then one operation tries it again.
const BREAK_AFTER_FAILURES = 3
const BREAK_MS = 1000

/**
 * runs op when Redis is ready, within opTimeoutMs; otherwise (or on any failure) `otherwise`.
 * `probe` (ping) ignores the pause: health must say what Redis does now.
 */
async function guarded<T>(link: Link, op: () => Promise<T>, otherwise: () => T | Promise<T>, probe = false): Promise<T> {
  if (link.closed || !link.conn.isReady || (!probe && Date.now() < link.skipUntil)) return otherwise()
  let timer: NodeJS.Timeout | undefined
  try {
    const value = await Promise.race([
      op(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new RedisTimeoutError()), link.opTimeoutMs + 50)
      }),
    ])
    link.failures = 0
    link.skipUntil = 0
    return value
  } catch (err) {
    link.failures++
    if (link.failures >= BREAK_AFTER_FAILURES) link.skipUntil = Date.now() + BREAK_MS
    // one line per streak, not one per request
    if (link.failures === 1 && !link.down && !link.closed) {
      const reason = err instanceof RedisTimeoutError ? 'timeout' : (err as Error).message
      link.logger?.warn({ cache: link.where, err: reason }, 'redis operation failed; treated as a miss')
    }
    return otherwise()
  } finally {
    clearTimeout(timer)
  }
}

const toBuffer = (v: Uint8Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength)
const toBytes = (v: unknown): Uint8Array | undefined => (v instanceof Uint8Array ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength) : undefined)

function setArgs(link: Link, k: string, value: Uint8Array, ttlSeconds?: number): RedisArgs {
  const key = link.prefix + k
  return ttlSeconds && ttlSeconds > 0 ? ['SET', key, toBuffer(value), 'PX', String(Math.ceil(ttlSeconds * 1000))] : ['SET', key, toBuffer(value)]
}

/** one window's counter, incremented by `by` (INCREMENT_SCRIPT) */
async function incrementIn(link: Link, k: string, windowSeconds: number, by: number) {
  const windowMs = Math.max(1, Math.ceil(windowSeconds * 1000))
  const key = link.prefix + k
  const [count, pttl] = (await link.conn.send(key, ['EVAL', INCREMENT_SCRIPT, '1', key, String(windowMs), String(by)])) as [number, number]
  return { count: Number(count), resetSeconds: Math.max(1, Math.ceil(Number(pttl) / 1000)) }
}
