/**
 * noopTracer: go-ethereum v1.17 `eth/tracers/native/noop.go`. It observes nothing and answers
 * `{}`; the transaction still runs, so its failures (and the trace timeout) still surface.
 *
 * @example
 * createNoopTracer().result() // {}
 */
import type { Tracer } from './types.js'

export function createNoopTracer(): Tracer<Record<string, never>> {
  return { result: () => ({}) }
}
