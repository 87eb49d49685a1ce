/**
 * The error a tracer throws: a bad tracer option before a run, or a refusal during one (a struct
 * log past its limit). It carries a code from the engine's own vocabulary, so the engine passes
 * it on as an EngineError with the same code; tracers never import the engine to say so.
 *
 * @example
 * throw new TracerError('VALIDATION_ERROR', 'cannot use diffMode with includeEmpty', { tracer: 'prestateTracer' })
 */
export type TracerErrorCode = 'VALIDATION_ERROR' | 'PAYLOAD_TOO_LARGE' | 'INTERNAL_ERROR'

export class TracerError extends Error {
  override readonly name = 'TracerError'
  constructor(
    readonly code: TracerErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly suggestion?: string,
  ) {
    super(message)
  }
}
