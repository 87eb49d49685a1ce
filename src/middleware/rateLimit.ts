/**
 * Per-IP fixed-window rate limit (interface §11), counted in the cache store (`increment`) so
 * several instances sharing a Redis share one limit. Every counted response carries
 * `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds); past the limit the
 * answer is 429 RATE_LIMIT_EXCEEDED with `Retry-After`. A cache store that fails is logged and
 * the request let through: an outage of the counter must not take the service down.
 *
 * Each use counts in its own bucket (`prefix`) with its own limit: the app counts a fork's JSON-RPC
 * endpoint apart from the other routes (src/app.ts), each route counted by exactly one of them.
 *
 * @example
 * app.use(rateLimit({ cache, limit: 100, windowSeconds: 60, trustProxy: 0, isExempt: (p) => p === '/v1/health' }))
 */
import type { MiddlewareHandler } from 'hono'
import type { CacheStore } from '../../engine/types.js'
import { ApiError } from '../errors/apiError.js'
import type { HttpEnv, HttpLogger } from '../httpEnv.js'
import { clientIp } from './clientIp.js'

export interface RateLimitOptions {
  cache: Pick<CacheStore, 'increment'>
  limit: number
  windowSeconds: number
  trustProxy: number
  isExempt?: (path: string) => boolean
  logger?: HttpLogger
  /** key namespace in the cache store: one bucket per namespace */
  prefix?: string
  /** what the refusal calls the limit, e.g. `fork JSON-RPC` ("fork JSON-RPC rate limit of …"); default: none */
  name?: string
}

export function rateLimit(opts: RateLimitOptions): MiddlewareHandler<HttpEnv> {
  const prefix = opts.prefix ?? 'ratelimit:'
  const named = opts.name ? `${opts.name} rate limit` : 'rate limit'
  return async (c, next) => {
    if (c.req.method === 'OPTIONS' || opts.isExempt?.(c.req.path)) return next()
    const ip = clientIp(c, opts.trustProxy)
    let counted: { count: number; resetSeconds: number }
    try {
      counted = await opts.cache.increment(prefix + ip, opts.windowSeconds)
    } catch (err) {
      opts.logger?.warn({ requestId: c.get('requestId'), err: (err as Error).message }, 'rate limit counter unavailable; request let through')
      return next()
    }
    const reset = Math.max(0, Math.ceil(counted.resetSeconds))
    const headers = {
      'RateLimit-Limit': String(opts.limit),
      'RateLimit-Remaining': String(Math.max(0, opts.limit - counted.count)),
      'RateLimit-Reset': String(reset),
    }
    if (counted.count > opts.limit) {
      throw new ApiError(
        'RATE_LIMIT_EXCEEDED',
        `${named} of ${opts.limit} requests per ${opts.windowSeconds}s exceeded`,
        { limit: opts.limit, windowSeconds: opts.windowSeconds, retryAfterSeconds: reset },
        `retry after ${reset} seconds`,
        undefined,
        { ...headers, 'Retry-After': String(Math.max(1, reset)) },
      )
    }
    await next()
    for (const [k, v] of Object.entries(headers)) c.res.headers.set(k, v)
  }
}
