/**
 * Refuses request bodies over `maxBytes` with 413 PAYLOAD_TOO_LARGE, by Content-Length when sent
 * and by counting the stream otherwise (hono's bodyLimit does both). The answer says
 * `Connection: close`, and the server closes the connection after it.
 *
 * @example
 * app.use(limitBody({ maxBytes: config.server.max_body_bytes }))
 */
import type { MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { ApiError } from '../errors/apiError.js'
import type { HttpEnv } from '../httpEnv.js'

export interface LimitBodyOptions {
  maxBytes: number
}

export function limitBody(opts: LimitBodyOptions): MiddlewareHandler<HttpEnv> {
  return bodyLimit({
    maxSize: opts.maxBytes,
    onError: () => {
      throw new ApiError(
        'PAYLOAD_TOO_LARGE',
        `request body is larger than ${opts.maxBytes} bytes`,
        { maxBytes: opts.maxBytes },
        'split the request (e.g. a batch into several smaller ones)',
        undefined,
        // the rest of the body is not read, so the connection cannot carry another request:
        // say so, or a keep-alive client sends its next request into a closed socket
        { Connection: 'close' },
      )
    },
  }) as MiddlewareHandler<HttpEnv>
}
