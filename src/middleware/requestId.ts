/**
 * X-Request-Id on every response: hono's request-id middleware (`hono/request-id`) keeps the
 * caller's id when it is 1–128 characters of letters, digits, `_`, `-` and `=` (nothing that can
 * inject into a log line), else makes a fresh UUID, and stores it as `c.get('requestId')` for logs
 * and errors.
 *
 * Hono's sets the header before the route runs, so it reaches only the answers built through the
 * context (`c.json`, `c.body`). An answer built elsewhere replaces them whole — the fork REST
 * routes answer with their inner app's Response (src/routes/forkRest.ts) — so the header is set
 * again on the final response when it lacks it.
 *
 * @example
 * app.use(requestId())
 */
import type { MiddlewareHandler } from 'hono'
import { requestId as honoRequestId } from 'hono/request-id'
import type { HttpEnv } from '../httpEnv.js'

const HEADER = 'X-Request-Id'

export function requestId(): MiddlewareHandler<HttpEnv> {
  const hono = honoRequestId({ headerName: HEADER, limitLength: 128 })
  return async (c, next) => {
    await hono(c, next)
    if (!c.res.headers.has(HEADER)) c.res.headers.set(HEADER, c.get('requestId'))
  }
}
