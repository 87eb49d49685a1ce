/**
 * CORS from `[api.cors]`. A preflight is answered here (204 with the configured methods, headers
 * and max-age) before auth, so browsers can ask without a token. An origin not in the list gets no
 * `Access-Control-Allow-Origin`, which is how a browser learns it is refused. `*` allows any
 * origin; with credentials on, the caller's origin is echoed (browsers refuse `*` with credentials).
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
  return cors({
    origin: (origin) => {
      if (anyOrigin) return config.allow_credentials ? origin || null : '*'
      return allowed.has(origin.toLowerCase()) ? origin : null
    },
    allowMethods: config.allowed_methods.map((m) => m.toUpperCase()),
    allowHeaders: config.allowed_headers,
    credentials: config.allow_credentials,
    maxAge: config.max_age,
    exposeHeaders: exposed,
  }) as MiddlewareHandler<HttpEnv>
}
