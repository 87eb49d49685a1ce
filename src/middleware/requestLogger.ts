/**
 * One JSON log line per request: request id, method, path (no query string), status, duration,
 * and `clientGone` when the client went away before its answer.
 * Headers are never logged, so neither the auth token nor anything else a caller sends leaks; a
 * token in a JSON-RPC path is masked.
 *
 * @example
 * app.use(requestLogger({ logger: pino() }))
 */
import type { MiddlewareHandler } from 'hono'
import type { HttpEnv, HttpLogger } from '../httpEnv.js'
import { maskRpcPath } from '../rpc/pathToken.js'
import { clientSignal } from '../clientSignal.js'

export interface RequestLoggerOptions {
  logger: HttpLogger
}

export function requestLogger(opts: RequestLoggerOptions): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const start = performance.now()
    await next()
    const status = c.res.status
    const line = {
      requestId: c.get('requestId'),
      method: c.req.method,
      // a JSON-RPC URL may carry the token as its last segment
      path: maskRpcPath(c.req.path),
      status,
      durationMs: Math.round((performance.now() - start) * 10) / 10,
      // the client went away before its answer: the request's runs were stopped then
      ...(clientSignal(c).aborted && { clientGone: true }),
    }
    if (status >= 500) opts.logger.error(line, 'request')
    else if (status >= 400) opts.logger.warn(line, 'request')
    else opts.logger.info(line, 'request')
  }
}
