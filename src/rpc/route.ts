/**
 * POST /v1/rpc and POST /v1/rpc/<token>: the JSON-RPC endpoint over the same engine as the REST
 * routes. Middleware (auth, rate limit — one count per HTTP request, a batch included — CORS,
 * body size, timeout) is the app's; an error it raises on these paths is answered as a JSON-RPC
 * error object (rpcHttpError below) with the HTTP status kept, so a JSON-RPC client reads it.
 *
 * @example
 * registerRpc(app, { engine, config, logger })
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { ServiceConfig } from '../../config/loadConfig.js'
import type { Engine, RunAt } from '../../engine/types.js'
import { ApiError } from '../errors/apiError.js'
import { runAt } from '../runAt.js'
import { statusForCode } from '../errors/statusTable.js'
import type { HttpEnv, HttpLogger } from '../httpEnv.js'
import { scanJson } from '../normalize/jsonShape.js'
import { jsonTextAnswer } from '../respond/jsonAnswer.js'
import { answerText, dispatch, parseFailure, type RpcResponse } from './dispatch.js'
import { toRpcErrorObject } from './engineErrors.js'
import { retryAfterOf } from '../errors/retryAfter.js'
import { rpcMethods } from './methods/index.js'
import { RPC_PATH } from './pathToken.js'
import type { RpcMethodTable } from './types.js'

export interface RpcRouteOptions {
  engine: Engine
  config: ServiceConfig
  logger: HttpLogger
  /** default: the assembled table (src/rpc/methods/index.ts) */
  methods?: RpcMethodTable
}

export function registerRpc(app: OpenAPIHono<HttpEnv>, opts: RpcRouteOptions): void {
  const handle = jsonRpcHandler(opts, {
    methods: opts.methods ?? rpcMethods,
    at: async (c) => runAt(c),
    explainRefusals: true,
    failure: 'JSON-RPC method failed with an internal error',
  })
  app.post(RPC_PATH, handle)
  app.post(`${RPC_PATH}/:token`, handle)
}

/** what tells one JSON-RPC endpoint from another: its methods, where they run, how a refusal reads */
export interface JsonRpcEndpoint {
  methods: RpcMethodTable
  /** where the request's methods run; it may refuse the whole request (a fork's endpoint: an unknown fork) */
  at(c: Context<HttpEnv>): Promise<RunAt>
  /** a refused method's error names what is served instead (src/rpc/dispatch.ts) */
  explainRefusals: boolean
  /** the log line of a method that failed with an internal error */
  failure: string
}

/**
 * The POST handler of a JSON-RPC endpoint: a body that is no JSON is a parse error, the method
 * label is set for the metrics, then the request (one call or a batch) is dispatched over the
 * endpoint's table at the request's address, ids written back as sent and a long struct log
 * streamed from its file (src/respond/jsonAnswer.ts).
 */
export function jsonRpcHandler(opts: RpcRouteOptions, endpoint: JsonRpcEndpoint): (c: Context<HttpEnv>) => Promise<Response> {
  const scrub = scrubber([opts.config.chain.rpc_url, opts.config.api.auth_token])
  return async (c) => {
    const requestId = c.get('requestId')
    let body: unknown
    let text: string
    try {
      text = await c.req.text()
      body = JSON.parse(text)
    } catch {
      return c.body(answerText(parseFailure()), 200, { 'Content-Type': 'application/json' })
    }
    c.set('rpcMethod', methodLabel(body, endpoint.methods))
    const at = await endpoint.at(c)
    // the raw ids and the nesting depth: what JSON.parse does not keep (src/normalize/jsonShape.ts)
    const shape = scanJson(text)
    const answer = await dispatch(
      body,
      {
        methods: endpoint.methods,
        ctx: { engine: opts.engine, config: opts.config, at },
        maxBatch: opts.config.limits.max_rpc_batch,
        scrub,
        explainRefusals: endpoint.explainRefusals,
        onInternal(err, method) {
          const e = err instanceof Error ? { type: err.name, message: err.message, stack: err.stack } : { value: String(err) }
          opts.logger.error(scrub({ requestId, method, err: e }), endpoint.failure)
        },
      },
      shape.items,
    )
    if (answer === undefined) return c.body(null, 200)
    const retry = retryAfterIn(answer)
    if (retry !== undefined) c.header('Retry-After', String(retry))
    // one request that failed for a moment (a store failing over) is a 503, as on REST; a batch keeps its 200
    return jsonTextAnswer(c, answerText(answer), retry !== undefined && !Array.isArray(answer) ? 503 : 200)
  }
}

/** the longest wait any error of the answer asks for (retryAfterOf) */
function retryAfterIn(answer: RpcResponse | RpcResponse[]): number | undefined {
  let most: number | undefined
  for (const a of Array.isArray(answer) ? answer : [answer]) {
    const s = retryAfterOf(a.error?.data)
    if (s !== undefined && (most === undefined || s > most)) most = s
  }
  return most
}

/**
 * The method a request's metrics name (src/middleware/requestMetrics.ts): one the table serves,
 * `batch` for a batch, `other` for anything else — never a name a caller made up, so the label's
 * values stay a bounded set.
 */
export function methodLabel(body: unknown, methods: RpcMethodTable): string {
  if (Array.isArray(body)) return 'batch'
  const method = (body as { method?: unknown } | null)?.method
  return typeof method === 'string' && Object.hasOwn(methods, method) ? method : 'other'
}

/**
 * An error raised before a method runs (auth, rate limit, body size, content type, timeout, a
 * draining process) on a JSON-RPC path: a JSON-RPC error object (id null), the HTTP status and
 * headers kept.
 * Codes: -32001 for auth (no standard exists; geth's own auth failures are HTTP-level), -32005
 * (EIP-1474 "limit exceeded") for the rate limit, -32600 for a body that is too large or not JSON,
 * -32000 for the rest.
 */
export function rpcHttpError(err: unknown, c: Context<HttpEnv>, scrub: <T>(v: T) => T): Response {
  if (err instanceof ApiError) {
    const code =
      err.code === 'AUTHENTICATION_REQUIRED' || err.code === 'AUTHENTICATION_INVALID'
        ? -32001
        : err.code === 'RATE_LIMIT_EXCEEDED'
          ? -32005
          : err.code === 'PAYLOAD_TOO_LARGE' || err.code === 'VALIDATION_ERROR'
            ? -32600
            : -32000
    const status = (err.status ?? statusForCode(err.code)) as 400
    // a fork's endpoint names an unknown fork as its REST answer does (FORK_NOT_FOUND), in the error's data
    const data = err.code === 'FORK_NOT_FOUND' ? { data: { code: err.code, ...err.details } } : {}
    return c.json({ jsonrpc: '2.0', id: null, error: scrub({ code, message: err.message, ...data }) }, status, err.headers)
  }
  const { error } = toRpcErrorObject(err)
  const retry = retryAfterOf(error.data)
  if (retry !== undefined) return c.json({ jsonrpc: '2.0', id: null, error: scrub(error) }, 503, { 'Retry-After': String(retry) })
  return c.json({ jsonrpc: '2.0', id: null, error: scrub(error) }, error.code === -32603 ? 500 : 200)
}

export function scrubber(secrets: string[]): <T>(value: T) => T {
  const list = secrets.filter((s) => s.length >= 4)
  return <T>(value: T): T => {
    if (list.length === 0) return value
    const text = JSON.stringify(value)
    if (text === undefined || !list.some((s) => text.includes(s))) return value
    let out = text
    for (const s of list) out = out.split(s).join('[redacted]')
    return JSON.parse(out) as T
  }
}
