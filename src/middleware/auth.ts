/**
 * Token authentication (interface §11): when a token is configured, a request must carry
 * it as `Authorization: Bearer <token>` or `X-API-Key: <token>` (or, on the JSON-RPC endpoint, as
 * the last path segment). The comparison hashes both sides
 * (equal lengths, so `timingSafeEqual` applies) and is constant-time, leaking neither the token's
 * length nor its prefix. Exempt paths (health, the schema, the explorer) and CORS preflights pass.
 *
 * @example
 * app.use(tokenAuth({ token: config.api.auth_token, isExempt: (path) => path === '/v1/health' }))
 */
import { hash, timingSafeEqual } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'
import { ApiError } from '../errors/apiError.js'
import type { HttpEnv } from '../httpEnv.js'

export interface TokenAuthOptions {
  /** empty: authentication disabled */
  token: string
  isExempt?: (path: string) => boolean
  /**
   * a token carried in the path (POST /v1/rpc/<token>, for tools that cannot set headers); used
   * when no header carries one
   */
  tokenFromPath?: (path: string) => string | undefined
}

const suggestion = 'send the token as "Authorization: Bearer <token>" or as "X-API-Key: <token>"'

export function tokenAuth(opts: TokenAuthOptions): MiddlewareHandler<HttpEnv> {
  if (opts.token === '') return async (_c, next) => next()
  const expected = digest(opts.token)
  return async (c, next) => {
    if (c.req.method === 'OPTIONS' || opts.isExempt?.(c.req.path)) return next()
    const sent = presentedToken(c.req.header('authorization'), c.req.header('x-api-key')) ?? opts.tokenFromPath?.(c.req.path)
    if (sent === undefined) {
      throw new ApiError('AUTHENTICATION_REQUIRED', 'this service requires an API token', undefined, suggestion, undefined, {
        'WWW-Authenticate': 'Bearer',
      })
    }
    if (!timingSafeEqual(digest(sent), expected)) {
      throw new ApiError('AUTHENTICATION_INVALID', 'the API token sent does not match', undefined, suggestion, undefined, {
        'WWW-Authenticate': 'Bearer error="invalid_token"',
      })
    }
    return next()
  }
}

/**
 * The token from either header; `Authorization` of another scheme counts as none. Exactly what
 * was sent, as geth reads its JWT: `Bearer`, ONE space (RFC 6750), then the token. Nothing is
 * trimmed here: spaces and tabs around a header value are HTTP's optional whitespace and the HTTP
 * parser has already dropped them (RFC 9110 §5.5); any other padding — a second space, a
 * non-breaking space, whitespace inside — is part of what was sent, so it does not match (401).
 */
function presentedToken(authorization: string | undefined, apiKey: string | undefined): string | undefined {
  if (authorization !== undefined && /^Bearer(\s|$)/i.test(authorization)) {
    // after the one space, the rest as sent (a tab instead of the space stays part of it)
    const rest = authorization.slice(6)
    return (rest.startsWith(' ') ? rest.slice(1) : rest) || undefined
  }
  return apiKey ? apiKey : undefined
}

// the one-shot form: no Hash object per request (createHash's was most of this middleware's cost)
const digest = (s: string) => hash('sha256', s, 'buffer')
