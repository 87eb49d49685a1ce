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
 * - `id` echoed as sent: a number byte for byte as its JSON text (`1e400`, `-0`,
 *   `9007199254740993`: geth's id is a json.RawMessage), a string or null as parsed;
 * - a request nested deeper than MAX_JSON_DEPTH (src/normalize/jsonShape.ts) is refused before
 *   anything reads it: -32602 when its params are that deep, else -32600; params holding a number
 *   beyond the float range (`1e309`, which JSON.parse makes Infinity) → -32602;
 * - unknown method → -32601 `the method X does not exist/is not available`, whatever its params
 *   (geth looks the method up before it reads them), and the name as sent: `"eth_call\n"` is a
 *   method no node has; a sending or admin method → -32601 saying this endpoint never sends.
 * Batch items run concurrently; each gets its own answer, errors included.
 *
 * @example
 * const answer = await dispatch(JSON.parse(body), { methods, ctx, maxBatch: 100, onInternal }, scanJson(body).items)
 * const text = answerText(answer) // the ids as sent
 */
import { MAX_JSON_DEPTH, type ScannedItem } from '../normalize/jsonShape.js'
import { releaseSpilled } from '../respond/jsonAnswer.js'
import { toRpcErrorObject, type RpcErrorObject } from './engineErrors.js'
import { isRefused, refusal } from './methods/index.js'
import { RpcError } from './rpcError.js'
import type { RpcContext, RpcMethodTable } from './types.js'

export interface RpcResponse {
  /** the id as JSON text, written back as it is */
  id: string
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
export async function dispatch(body: unknown, opts: DispatchOptions, shape: ScannedItem[] = []): Promise<RpcResponse | RpcResponse[] | undefined> {
  if (!Array.isArray(body)) return runOne(body, opts, shape[0])
  if (body.length === 0) return failure(NULL_ID, { code: -32600, message: 'empty batch' })
  if (body.length > opts.maxBatch) {
    const first = body.findIndex((m) => isObject(m) && 'id' in m && validId(m.id))
    return [failure(first < 0 ? NULL_ID : idText(body[first].id, shape[first]), { code: -32600, message: 'batch too large' })]
  }
  const answers = await Promise.all(body.map((m, i) => runOne(m, opts, shape[i])))
  const sent = answers.filter((a): a is RpcResponse => a !== undefined)
  return sent.length > 0 ? sent : undefined
}

export const parseFailure = (): RpcResponse => failure(NULL_ID, { code: -32700, message: 'parse error' })

/** the answer as JSON text, each id written back as it was sent */
export function answerText(answer: RpcResponse | RpcResponse[]): string {
  return Array.isArray(answer) ? `[${answer.map(responseText).join(',')}]` : responseText(answer)
}

function responseText(r: RpcResponse): string {
  const tail = r.error ? `"error":${JSON.stringify(r.error)}` : `"result":${JSON.stringify(r.result ?? null)}`
  return `{"jsonrpc":"2.0","id":${r.id},${tail}}`
}

const NULL_ID = 'null'

async function runOne(msg: unknown, opts: DispatchOptions, shape: ScannedItem | undefined): Promise<RpcResponse | undefined> {
  if (!isObject(msg) || msg.jsonrpc !== '2.0' || typeof msg.method !== 'string' || msg.method === '' || ('id' in msg && !validId(msg.id))) {
    return failure(isObject(msg) && validId(msg.id) ? idText(msg.id, shape) : NULL_ID, { code: -32600, message: 'invalid request' })
  }
  const notification = !('id' in msg)
  const id = notification ? NULL_ID : idText(msg.id, shape)
  const method = msg.method
  const refused = shape && requestRefusal(shape)
  if (refused) return notification ? undefined : failure(id, refused)
  let result: unknown
  try {
    result = await invoke(method, msg.params, opts, shape)
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
  return { id, result: result === undefined ? null : result }
}

async function invoke(method: string, params: unknown, opts: DispatchOptions, shape: ScannedItem | undefined): Promise<unknown> {
  const handler = Object.hasOwn(opts.methods, method) ? opts.methods[method] : undefined
  if (!handler) {
    if (opts.explainRefusals !== false && isRefused(method)) throw refusal(method)
    throw new RpcError(-32601, `the method ${method} does not exist/is not available`)
  }
  const unreadable = shape && paramsRefusal(shape)
  if (unreadable) throw new RpcError(unreadable.code, unreadable.message)
  if (params !== undefined && params !== null && !Array.isArray(params)) throw new RpcError(-32602, 'non-array args')
  return handler((params as unknown[] | undefined | null) ?? [], opts.ctx)
}

function failure(id: string, error: RpcErrorObject): RpcResponse {
  return { id, error }
}

/** what JSON.parse cannot show, outside the params: a request too deep to read safely */
function requestRefusal(shape: ScannedItem): RpcErrorObject | undefined {
  // the params are the deepest part: the method's arguments are at fault, not the framing (paramsRefusal)
  if (shape.depth > MAX_JSON_DEPTH && shape.paramsDepth + 1 < shape.depth) {
    return { code: -32600, message: `invalid request: nested more than ${MAX_JSON_DEPTH} levels deep` }
  }
  return undefined
}

/** what JSON.parse cannot show in a known method's params: nesting too deep to read safely, a number no float holds */
function paramsRefusal(shape: ScannedItem): RpcErrorObject | undefined {
  if (shape.depth > MAX_JSON_DEPTH) return { code: -32602, message: `invalid params: nested more than ${MAX_JSON_DEPTH - 1} levels deep` }
  if (shape.paramsNonFinite) return { code: -32602, message: 'invalid params: a number beyond the range of a 64-bit float' }
  return undefined
}

/** a number as its source text (JSON.parse rounds it); a string or null as JSON prints it */
function idText(id: unknown, shape: ScannedItem | undefined): string {
  if (typeof id === 'number' && shape?.id !== undefined) return shape.id
  return JSON.stringify(id ?? null)
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

/** a number of any size (its text is echoed), a string or null; never an object or array */
function validId(id: unknown): boolean {
  return id === null || typeof id === 'string' || typeof id === 'number'
}
