/**
 * Turns anything thrown while serving a request into the failure envelope (decisions §2):
 * `ApiError` and `EngineError` keep their code, message, details and suggestion; hono's own
 * HTTP exceptions get the code of their status; anything else is a bug: 500 INTERNAL_ERROR with a
 * generic message, the stack logged server-side under the request id and never sent.
 * Secrets (auth token, RPC URL) are scrubbed from every message and detail that leaves.
 */
import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import { EngineError } from '../../engine/errors.js'
import type { HttpEnv, HttpLogger } from '../httpEnv.js'
import { ApiError, type ErrorBody } from './apiError.js'
import { statusForCode, type ApiErrorCode } from './statusTable.js'

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
    const failure = toFailure(err)
    if (failure.body.code === 'INTERNAL_ERROR') {
      opts.logger.error({ requestId, err: scrub(serializeError(err)) }, 'request failed with an internal error')
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

function toFailure(err: unknown): { body: ErrorBody; status: number; headers?: Record<string, string> } {
  if (err instanceof ApiError) return { body: err.toBody(), status: err.status ?? statusForCode(err.code), headers: err.headers }
  if (err instanceof EngineError) {
    const body: ErrorBody = {
      code: err.code,
      message: err.message,
      ...(err.details !== undefined && { details: err.details }),
      ...(err.suggestion !== undefined && { suggestion: err.suggestion }),
    }
    return { body, status: statusForCode(err.code) }
  }
  if (err instanceof HTTPException && err.status < 500) {
    const code: ApiErrorCode = err.status === 413 ? 'PAYLOAD_TOO_LARGE' : err.status === 404 ? 'NOT_FOUND' : 'VALIDATION_ERROR'
    return { body: { code, message: err.message || 'bad request' }, status: err.status }
  }
  return {
    body: { code: 'INTERNAL_ERROR', message: 'internal error; the request id identifies it in the service log' },
    status: 500,
  }
}

function serializeError(err: unknown): Record<string, unknown> {
  if (err instanceof Error) return { type: err.name, message: err.message, stack: err.stack }
  return { value: String(err) }
}
