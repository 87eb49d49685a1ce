/**
 * CORS from `[api.cors]`. A preflight is answered here (204 with the configured methods, headers
 * and max-age) before auth, so browsers can ask without a token. An origin not in the list gets no
 * `Access-Control-Allow-Origin`, which is how a browser learns it is refused. `*` allows any
 * origin; with credentials on, the caller's origin is echoed (browsers refuse `*` with credentials).
 *
 * Preflights go to hono's cors. On every other request the same headers are added here, after
 * the route answered: hono's cors touches `c.res` before the route runs, which makes hono copy
 * the route's answer into a web Response with a stream body — @hono/node-server then sends it
 * through its slow path (a ReadableStream read chunk by chunk) instead of writing the string.
 *
 * @example
 * app.use(corsFromConfig(config.api.cors))
 */
import type { MiddlewareHandler } from 'hono'
import { cors } from 'hono/cors'
import type { HttpEnv } from '../httpEnv.js'

export interface CorsConfig {
  allowed_origins: string[]
  allowed_methods: string[]
  allowed_headers: string[]
  allow_credentials: boolean
  max_age: number
}

/** response headers a browser script may read */
const exposed = ['X-Request-Id', 'Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']

export function corsFromConfig(config: CorsConfig): MiddlewareHandler<HttpEnv> {
  const anyOrigin = config.allowed_origins.includes('*')
  const allowed = new Set(config.allowed_origins.map((o) => o.replace(/\/+$/, '').toLowerCase()))
  const allowOrigin = (origin: string): string | null => {
    if (anyOrigin) return config.allow_credentials ? origin || null : '*'
    return allowed.has(origin.toLowerCase()) ? origin : null
  }
  const preflight = cors({
    origin: allowOrigin,
    allowMethods: config.allowed_methods.map((m) => m.toUpperCase()),
    allowHeaders: config.allowed_headers,
    credentials: config.allow_credentials,
    maxAge: config.max_age,
    exposeHeaders: exposed,
  }) as MiddlewareHandler<HttpEnv>
  const exposeHeaders = exposed.join(',')
  return async (c, next) => {
    if (c.req.method === 'OPTIONS') return preflight(c, next)
    await next()
    // what hono's cors adds to a non-preflight answer, set on the finished answer
    const headers = c.res.headers
    const origin = allowOrigin(c.req.header('origin') ?? '')
    if (origin) headers.set('Access-Control-Allow-Origin', origin)
    if (config.allow_credentials) headers.set('Access-Control-Allow-Credentials', 'true')
    headers.set('Access-Control-Expose-Headers', exposeHeaders)
    headers.append('Vary', 'Origin')
  }
}
