/**
 * Request bodies are JSON. A POST/PUT/PATCH declaring another content type (a form, text, XML) is
 * answered 415 with code VALIDATION_ERROR: the status tells HTTP clients what went wrong, the code
 * stays within the documented set. A missing Content-Type is read as JSON (lenient input).
 *
 * @example
 * app.use(jsonContentType())
 */
import type { MiddlewareHandler } from 'hono'
import { ApiError } from '../errors/apiError.js'
import type { HttpEnv } from '../httpEnv.js'

const withBody = new Set(['POST', 'PUT', 'PATCH'])
const json = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i

export function jsonContentType(): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const type = c.req.header('content-type')
    if (withBody.has(c.req.method) && type !== undefined && type.trim() !== '' && !json.test(type.trim())) {
      throw new ApiError(
        'VALIDATION_ERROR',
        `unsupported content type ${JSON.stringify(type.split(';')[0]!.trim())}; request bodies are JSON`,
        { issues: [{ path: '', message: 'Content-Type must be application/json' }] },
        'send the header "Content-Type: application/json"',
        415,
      )
    }
    return next()
  }
}
