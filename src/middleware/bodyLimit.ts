/**
 * Refuses request bodies over `maxBytes` with 413 PAYLOAD_TOO_LARGE, by Content-Length when sent
 * and by counting the stream otherwise (hono's bodyLimit does both). The answer says
 * `Connection: close`, and the server closes the connection after it.
 *
 * A body with a Content-Length is judged by the header alone, before hono's bodyLimit is asked:
 * hono's first look (`c.req.raw.body`) turns @hono/node-server's lightweight request into a web
 * ReadableStream over the socket, and every later read of the body goes through that stream —
 * about a tenth of a warm /simulate's CPU. Without the stream, `c.req.text()` reads the socket
 * directly. A chunked body (no length) still goes to hono's counting reader.
 *
 * @example
 * app.use(limitBody({ maxBytes: config.server.max_body_bytes }))
 */
import type { MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { ApiError } from '../errors/apiError.js'
import type { HttpEnv } from '../httpEnv.js'
import { routePath } from '../chainPath.js'

export interface LimitBodyOptions {
  maxBytes: number
  /** routes with a limit of their own (the path without /v1/chains/{name}), and the setting that raises it */
  routes?: Record<string, { maxBytes: number; setting: string }>
}

export function limitBody(opts: LimitBodyOptions): MiddlewareHandler<HttpEnv> {
  const general = limiting(opts.maxBytes, 'split the request (e.g. a batch into several smaller ones)')
  const own = new Map(Object.entries(opts.routes ?? {}).map(([path, r]) => [path, limiting(r.maxBytes, `raise ${r.setting}`)]))
  return async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next()
    const limit = own.get(routePath(c.req.path)) ?? general
    const length = c.req.header('content-length')
    if (length === undefined || c.req.header('transfer-encoding') !== undefined) return limit.counting(c, next)
    // as hono: a Content-Length the body does not match is the HTTP parser's to refuse
    if (Number.parseInt(length, 10) > limit.maxBytes) return limit.counting(c, next)
    return next()
  }
}

function limiting(maxBytes: number, suggestion: string) {
  const counting = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new ApiError(
        'PAYLOAD_TOO_LARGE',
        `request body is larger than ${maxBytes} bytes`,
        { maxBytes },
        suggestion,
        undefined,
        // the rest of the body is not read, so the connection cannot carry another request:
        // say so, or a keep-alive client sends its next request into a closed socket
        { Connection: 'close' },
      )
    },
  }) as MiddlewareHandler<HttpEnv>
  return { maxBytes, counting }
}
