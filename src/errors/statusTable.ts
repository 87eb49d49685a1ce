/**
 * The one table from error codes to HTTP statuses (interface §2). The engine throws codes, never
 * statuses; the HTTP-only codes (auth, rate limit, a draining process) are raised by middleware.
 */
import type { EngineErrorCode } from '../../engine/types.js'

export type ApiErrorCode =
  | EngineErrorCode
  | 'AUTHENTICATION_REQUIRED'
  | 'AUTHENTICATION_INVALID'
  | 'RATE_LIMIT_EXCEEDED'
  | 'CHAIN_NOT_FOUND'
  | 'SERVICE_DRAINING'

export const statusByCode = {
  VALIDATION_ERROR: 400,
  AUTHENTICATION_REQUIRED: 401,
  AUTHENTICATION_INVALID: 401,
  NOT_FOUND: 404,
  CHAIN_NOT_FOUND: 404,
  TRANSACTION_NOT_FOUND: 404,
  BLOCK_NOT_FOUND: 404,
  FORK_NOT_FOUND: 404,
  FORK_LIMIT_REACHED: 409,
  PAYLOAD_TOO_LARGE: 413,
  SIMULATION_EXECUTION_FAILED: 422,
  INSUFFICIENT_GAS: 422,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  NOT_EMULATED: 501,
  STATE_ACCESS_ERROR: 502,
  CHAIN_UNAVAILABLE: 503,
  FORKS_UNAVAILABLE: 503,
  SERVICE_DRAINING: 503,
  EXECUTION_TIMEOUT: 504,
} as const satisfies Record<ApiErrorCode, number>

export type ApiErrorStatus = (typeof statusByCode)[ApiErrorCode]

export const apiErrorCodes = Object.keys(statusByCode) as ApiErrorCode[]

export function statusForCode(code: string): ApiErrorStatus {
  return (statusByCode as Record<string, ApiErrorStatus>)[code] ?? 500
}
