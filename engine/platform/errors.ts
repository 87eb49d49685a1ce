/**
 * The one error type the engine throws. It carries a machine-readable code and never an HTTP
 * status: `src/` maps codes to statuses in one table (interface §2).
 *
 * @example
 * throw new EngineError('BLOCK_NOT_FOUND', 'block 0x99 is beyond the chain head 0x10')
 */
import { TracerError } from '../../tracers/tracerError.js'

export type EngineErrorCode =
  | 'VALIDATION_ERROR'
  | 'NOT_FOUND'
  | 'TRANSACTION_NOT_FOUND'
  | 'BLOCK_NOT_FOUND'
  | 'PAYLOAD_TOO_LARGE'
  | 'SIMULATION_EXECUTION_FAILED'
  | 'INSUFFICIENT_GAS'
  | 'STATE_ACCESS_ERROR'
  | 'EXECUTION_TIMEOUT'
  | 'INTERNAL_ERROR'
  | 'NOT_EMULATED'
  | 'CHAIN_UNAVAILABLE'
  | 'FORK_NOT_FOUND'
  | 'FORK_LIMIT_REACHED'
  | 'FORKS_UNAVAILABLE'

export class EngineError extends Error {
  override readonly name = 'EngineError'
  constructor(
    readonly code: EngineErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly suggestion?: string,
  ) {
    super(message)
  }
}

/** an engine error, or a tracer's (same codes): both reach the caller with their code */
export const isEngineError = (e: unknown): e is EngineError => e instanceof EngineError || e instanceof TracerError

/**
 * What to do about a run stopped at its time limit: one text, whether the run stopped itself at
 * its deadline or its worker's pool stopped it at the same instant (whichever comes first)
 */
export const TIMEOUT_SUGGESTION = 'reduce the work of the request (fewer calls, a lighter tracer, cleanStructLogs/disableMemory, less gas)'

/** a tracer's error as the engine's own (what leaves the engine is always an EngineError) */
export function toEngineError(e: EngineError | TracerError): EngineError {
  return e instanceof EngineError ? e : new EngineError(e.code, e.message, e.details, e.suggestion)
}
