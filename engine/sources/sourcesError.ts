/**
 * The error a build-info the service cannot use raises: VALIDATION_ERROR naming the JSON path
 * inside the build-info (the route puts `buildInfo.` before it), in the same `issues` form the
 * HTTP layer gives every invalid request.
 */
import { EngineError } from '../platform/errors.js'

/** `output.contracts["src/V.sol"].V.evm` from path segments */
export function jsonPath(segments: readonly (string | number)[]): string {
  let out = ''
  for (const seg of segments) {
    if (typeof seg === 'number') out += `[${seg}]`
    else if (/^[A-Za-z_$][\w$]*$/.test(seg)) out += out === '' ? seg : `.${seg}`
    else out += `[${JSON.stringify(seg)}]`
  }
  return out
}

export function buildInfoError(segments: readonly (string | number)[], message: string): EngineError {
  const path = jsonPath(segments)
  return new EngineError('VALIDATION_ERROR', path ? `${path}: ${message}` : message, { issues: [{ path, message }] })
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
