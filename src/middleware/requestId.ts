/**
 * X-Request-Id on every response: the caller's when it is sane (short, no odd characters, so it
 * cannot inject into logs), else a fresh UUID. Stored as `c.get('requestId')` for logs and errors.
 *
 * @example
 * app.use(requestId())
 */
import { randomUUID } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'
import type { HttpEnv } from '../httpEnv.js'

export interface RequestIdOptions {
  headerName?: string
}

const sane = /^[A-Za-z0-9._:-]{1,128}$/

export function requestId(opts: RequestIdOptions = {}): MiddlewareHandler<HttpEnv> {
  const header = opts.headerName ?? 'X-Request-Id'
  return async (c, next) => {
    const sent = c.req.header(header)
    const id = sent !== undefined && sane.test(sent) ? sent : randomUUID()
    c.set('requestId', id)
    c.header(header, id)
    await next()
    c.res.headers.set(header, id)
  }
}
