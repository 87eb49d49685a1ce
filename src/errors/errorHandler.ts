/**
 * Turns anything thrown while serving a request into the failure envelope (interface §2):
 * `ApiError` and `EngineError` keep their code, message, details and suggestion; hono's own
 * HTTP exceptions get the code of their status; anything else is a bug: 500 INTERNAL_ERROR with a
 * generic message, the stack logged server-side under the request id and never sent.
 * Secrets (auth token, RPC URL) are scrubbed from every message and detail that leaves.
 */
import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import { EngineError } from '../../engine/types.js'
import type { HttpEnv, HttpLogger } from '../httpEnv.js'
import { ApiError, type ErrorBody } from './apiError.js'
import { retryAfterOf } from './retryAfter.js'
import { statusByCode, statusForCode, type ApiErrorCode } from './statusTable.js'

export interface ErrorHandlerOptions {
  logger: HttpLogger
  /** strings that must never appear in a response (RPC URL, auth token) */
  secrets: string[]
}

export function createErrorHandler(opts: ErrorHandlerOptions) {
  const secrets = opts.secrets.filter((s) => s.length >= 4)
  const scrub = <T>(value: T): T => {
    if (secrets.length === 0) return value
    let text = JSON.stringify(value)
    if (!secrets.some((s) => text.includes(s))) return value
    for (const s of secrets) text = text.split(s).join('[redacted]')
    return JSON.parse(text) as T
  }

  const describe = (err: unknown, requestId: string) => {
    let failure = toFailure(err)
    if (failure.body.code === 'INTERNAL_ERROR') {
      opts.logger.error({ requestId, err: scrub(serializeError(err)) }, 'request failed with an internal error')
      // whatever raised it, an internal error leaves with the generic text only (interface §2)
      failure = { ...failure, body: { code: 'INTERNAL_ERROR', message: genericInternal } }
    }
    return { ...failure, body: scrub(failure.body) }
  }

  return {
    /** hono's onError / notFound: the failure envelope as a response */
    onError(err: unknown, c: Context<HttpEnv>): Response {
      const { body, status, headers } = describe(err, c.get('requestId'))
      return c.json({ success: false, error: body }, status as 500, headers)
    },
    /** the `error` object alone (batch items) */
    toErrorBody(err: unknown, requestId: string): ErrorBody {
      return describe(err, requestId).body
    },
  }
}

const genericInternal = 'internal error; the request id (X-Request-Id) identifies it in the service log'

function toFailure(err: unknown): { body: ErrorBody; status: number; headers?: Record<string, string> } {
  if (err instanceof ApiError) return { body: err.toBody(), status: err.status ?? statusForCode(err.code), headers: err.headers }
  if (isEngineErrorLike(err)) {
    const body: ErrorBody = {
      code: err.code,
      message: err.message,
      ...(err.details !== undefined && { details: err.details }),
      ...(err.suggestion !== undefined && { suggestion: err.suggestion }),
    }
    // an engine error that says when to ask again (the fork store failing over) says it in Retry-After too
    const retry = retryAfterOf(err.details)
    return { body, status: statusForCode(err.code), ...(retry !== undefined && { headers: { 'Retry-After': String(retry) } }) }
  }
  if (err instanceof HTTPException && err.status < 500) {
    const code: ApiErrorCode = err.status === 413 ? 'PAYLOAD_TOO_LARGE' : err.status === 404 ? 'NOT_FOUND' : 'VALIDATION_ERROR'
    return { body: { code, message: err.message || 'bad request' }, status: err.status }
  }
  return {
    body: { code: 'INTERNAL_ERROR', message: genericInternal },
    status: 500,
  }
}

/**
 * An EngineError, also when it is not this module's class (an engine loaded twice, an error rebuilt
 * after crossing a worker thread): recognised by name and a known code.
 */
function isEngineErrorLike(err: unknown): err is EngineError {
  if (err instanceof EngineError) return true
  const code = (err as { code?: unknown } | null)?.code
  return err instanceof Error && err.name === 'EngineError' && typeof code === 'string' && code in statusByCode
}

function serializeError(err: unknown): Record<string, unknown> {
  if (err instanceof Error) {
    const extra = err instanceof EngineError ? { code: err.code, details: err.details } : {}
    return { type: err.name, message: err.message, ...extra, stack: err.stack }
  }
  return { value: String(err) }
}
