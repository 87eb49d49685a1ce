/**
 * The error the HTTP layer throws (the engine throws `EngineError`; both carry a code and are
 * turned into the failure envelope by `errorHandler.ts`). `status` overrides the table only where
 * HTTP itself decides, e.g. 415 for an unsupported content type.
 *
 * @example
 * throw new ApiError('AUTHENTICATION_INVALID', 'the token sent does not match')
 */
import type { ApiErrorCode } from './statusTable.js'

export interface ValidationIssue {
  /** dotted path into the request body, e.g. `params.calls[1].to` */
  path: string
  message: string
}

export interface ErrorBody {
  code: ApiErrorCode
  message: string
  details?: Record<string, unknown>
  suggestion?: string
}

export class ApiError extends Error {
  override readonly name = 'ApiError'
  constructor(
    readonly code: ApiErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly suggestion?: string,
    readonly status?: number,
    readonly headers?: Record<string, string>,
  ) {
    super(message)
  }

  toBody(): ErrorBody {
    return {
      code: this.code,
      message: this.message,
      ...(this.details !== undefined && { details: this.details }),
      ...(this.suggestion !== undefined && { suggestion: this.suggestion }),
    }
  }
}

/** A VALIDATION_ERROR listing every issue found; the message quotes the first. */
export function validationError(issues: ValidationIssue[], suggestion?: string): ApiError {
  const first = issues[0]
  const message = first ? (first.path ? `${first.path}: ${first.message}` : first.message) : 'invalid request'
  return new ApiError('VALIDATION_ERROR', message, { issues }, suggestion)
}

/** zod / JSON path segments → `params.calls[1].to` */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = ''
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`
    else out += out === '' ? String(seg) : `.${String(seg)}`
  }
  return out
}

/** `prefix` + relative path, e.g. (`transactions[2]`, `to`) → `transactions[2].to` */
export function joinPath(prefix: string, path: string): string {
  if (prefix === '') return path
  if (path === '') return prefix
  return path.startsWith('[') ? prefix + path : `${prefix}.${path}`
}
