/**
 * JSON-RPC 2.0 framing, as geth's rpc package answers it:
 * - a body that is not JSON: -32700 `parse error`, id null;
 * - an object is one request, an array a batch (empty: -32600 `empty batch`; more than the limit:
 *   one -32600 `batch too large` carrying the first call's id, as geth);
 * - each item checked on its own: not an object, `jsonrpc` not "2.0", no method, an id that is
 *   an object or array → -32600 `invalid request` (id null); params absent or null → [], by name
 *   (an object) → -32602 `non-array args`;
 * - a request without `id` is a notification: run, never answered; a body of notifications only
 *   gets no JSON at all;
 * - `id` echoed as sent (number, string or null);
 * - unknown method → -32601 `the method X does not exist/is not available`; a sending or admin
 *   method → -32601 saying this endpoint never sends.
 * Batch items run concurrently; each gets its own answer, errors included.
 *
 * @example
 * const answer = await dispatch(JSON.parse(body), { methods, ctx, maxBatch: 100, onInternal })
 */
import { releaseSpilled } from '../respond/jsonAnswer.js'
import { toRpcErrorObject, type RpcErrorObject } from './engineErrors.js'
import { isRefused, refusal } from './methods/index.js'
import { RpcError } from './rpcError.js'
import type { RpcContext, RpcMethodTable } from './types.js'

export type RpcId = number | string | null

export interface RpcResponse {
  jsonrpc: '2.0'
  id: RpcId
  result?: unknown
  error?: RpcErrorObject
}

export interface DispatchOptions {
  methods: RpcMethodTable
  ctx: RpcContext
  maxBatch: number
  /** an internal error (a bug): log it; the caller sees only -32603 */
  onInternal(err: unknown, method: string): void
  /** strips secrets from anything that leaves */
  scrub<T>(value: T): T
  /**
   * false: a sending or admin method the table lacks is answered as any unknown method (a
   * writable fork sends and mines; what it lacks it simply does not serve)
   */
  explainRefusals?: boolean
}

/** undefined: nothing to answer (notifications only) */
export async function dispatch(body: unknown, opts: DispatchOptions): Promise<RpcResponse | RpcResponse[] | undefined> {
  if (!Array.isArray(body)) return runOne(body, opts)
  if (body.length === 0) return failure(null, { code: -32600, message: 'empty batch' })
  if (body.length > opts.maxBatch) {
    const first = body.find((m) => isObject(m) && 'id' in m && validId(m.id)) as { id: RpcId } | undefined
    return [failure(first?.id ?? null, { code: -32600, message: 'batch too large' })]
  }
  const answers = await Promise.all(body.map((m) => runOne(m, opts)))
  const sent = answers.filter((a): a is RpcResponse => a !== undefined)
  return sent.length > 0 ? sent : undefined
}

export const parseFailure = (): RpcResponse => failure(null, { code: -32700, message: 'parse error' })

async function runOne(msg: unknown, opts: DispatchOptions): Promise<RpcResponse | undefined> {
  if (!isObject(msg) || msg.jsonrpc !== '2.0' || typeof msg.method !== 'string' || msg.method === '' || ('id' in msg && !validId(msg.id))) {
    return failure(isObject(msg) && validId(msg.id) ? (msg.id as RpcId) : null, { code: -32600, message: 'invalid request' })
  }
  const notification = !('id' in msg)
  const id = notification ? null : (msg.id as RpcId)
  const method = msg.method
  let result: unknown
  try {
    result = await invoke(method, msg.params, opts)
  } catch (err) {
    if (notification) return undefined
    const { error, internal } = toRpcErrorObject(err)
    if (internal) opts.onInternal(err, method)
    return failure(id, opts.scrub(error))
  }
  if (notification) {
    // never sent: a spilled struct log it carries is freed now
    releaseSpilled(result)
    return undefined
  }
  // JSON has no undefined: a handler that returns nothing answers null
  return { jsonrpc: '2.0', id, result: result === undefined ? null : result }
}

async function invoke(method: string, params: unknown, opts: DispatchOptions): Promise<unknown> {
  const handler = Object.hasOwn(opts.methods, method) ? opts.methods[method] : undefined
  if (!handler) {
    if (opts.explainRefusals !== false && isRefused(method)) throw refusal(method)
    throw new RpcError(-32601, `the method ${method} does not exist/is not available`)
  }
  if (params !== undefined && params !== null && !Array.isArray(params)) throw new RpcError(-32602, 'non-array args')
  return handler((params as unknown[] | undefined | null) ?? [], opts.ctx)
}

function failure(id: RpcId, error: RpcErrorObject): RpcResponse {
  return { jsonrpc: '2.0', id, error }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

function validId(id: unknown): boolean {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))
}
