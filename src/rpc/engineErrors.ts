/**
 * The one place where whatever a handler throws becomes a JSON-RPC error object (geth's codes):
 * - RpcError: as thrown (handlers and param parsers pick their code);
 * - EngineError with `details.unsupportedMethod`: -32601, geth's `the method X does not exist/is
 *   not available`;
 * - VALIDATION_ERROR naming a param (`details.argument`: the devnet reading its own params, as a
 *   node does): -32602 `invalid argument N: …`;
 * - EngineError carrying an upstream node's verdict (`details.rpcCode`): that code, the node's own
 *   message and data (a forwarded read answers as the node would);
 * - INTERNAL_ERROR, and anything that is not an engine or RPC error (a bug): -32603 `internal
 *   error` with no detail; the caller logs it under the request id;
 * - every other engine code: -32000 with the engine's message (geth answers -32000 for what is
 *   not a protocol error: `header not found`, `insufficient funds …`, `transaction not found`);
 *   one that says to retry later (`details.retryAfterSeconds`: the fork store failing over) also
 *   names its code and that time in `data`, which the endpoint answers as HTTP 503 with
 *   `Retry-After` (`retryAfterOf`).
 *
 * @example
 * const { error, internal } = toRpcErrorObject(err) // { code: -32000, message: 'block 0x99 is beyond …' }
 */
import { isEngineError } from '../../engine/types.js'
import { retryAfterOf } from '../errors/retryAfter.js'
import { RpcError } from './rpcError.js'

export interface RpcErrorObject {
  code: number
  message: string
  data?: unknown
}

const INTERNAL: RpcErrorObject = { code: -32603, message: 'internal error' }

export function toRpcErrorObject(err: unknown): { error: RpcErrorObject; internal: boolean } {
  if (err instanceof RpcError) return { error: { code: err.code, message: err.message, ...(err.data !== undefined && { data: err.data }) }, internal: false }
  const engine = isEngineError(err) || isEngineErrorLike(err) ? (err as { code: string; message: string; details?: Record<string, unknown> }) : undefined
  if (!engine || engine.code === 'INTERNAL_ERROR') return { error: INTERNAL, internal: true }
  const d = engine.details ?? {}
  if (d.unsupportedMethod === true) return { error: { code: -32601, message: engine.message }, internal: false }
  if (engine.code === 'VALIDATION_ERROR' && typeof d.argument === 'number') {
    return { error: { code: -32602, message: `invalid argument ${d.argument}: ${engine.message}` }, internal: false }
  }
  if (typeof d.rpcCode === 'number' && Number.isInteger(d.rpcCode)) {
    const message = typeof d.rpcMessage === 'string' ? d.rpcMessage : engine.message
    return { error: { code: d.rpcCode, message, ...(d.rpcData !== undefined && { data: d.rpcData }) }, internal: false }
  }
  const retryAfterSeconds = retryAfterOf(d)
  if (retryAfterSeconds !== undefined)
    return { error: { code: -32000, message: engine.message, data: { code: engine.code, retryAfterSeconds } }, internal: false }
  return { error: { code: -32000, message: engine.message }, internal: false }
}

/** an EngineError rebuilt elsewhere (another copy of the module, a worker thread): name and code */
function isEngineErrorLike(err: unknown): boolean {
  return err instanceof Error && err.name === 'EngineError' && typeof (err as { code?: unknown }).code === 'string'
}
