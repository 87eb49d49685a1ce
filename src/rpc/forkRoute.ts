/**
 * POST /v1/forks/{forkId}/rpc and /v1/forks/{forkId}/rpc/<token>: a writable fork as a JSON-RPC
 * node. Everything /v1/rpc answers, on the fork's chain (the same method table over the engine's
 * operations run on the fork), plus what a development node answers — sending, mining, time,
 * snapshots, cheats — which the engine's fork runs (src/rpc/methods/dev.ts). An unknown or expired fork
 * is a JSON-RPC error with HTTP 404.
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { ServiceConfig } from '../../config/loadConfig.js'
import { ENGINE_OPERATIONS, FORK_OPERATIONS, type Engine, type EngineOperation, type RunStop } from '../../engine/types.js'
import type { HttpEnv, HttpLogger } from '../httpEnv.js'
import { scanJson } from '../normalize/jsonShape.js'
import { jsonTextAnswer } from '../respond/jsonAnswer.js'
import { ApiError } from '../errors/apiError.js'
import { requestEngine } from '../middleware/requestTimeout.js'
import { answerText, dispatch, parseFailure } from './dispatch.js'
import { forkMethods } from './methods/index.js'
import { methodLabel, scrubber } from './route.js'

export interface ForkRpcRouteOptions {
  engine: Engine
  config: ServiceConfig
  logger: HttpLogger
}

/** a request's engine as one fork's chain: the engine it runs on and the fork */
interface ForkEngineView {
  readonly base: Engine
  readonly forkId: string
}

const onFork = new Set<EngineOperation>(FORK_OPERATIONS)

/**
 * The operations of a fork's engine, made once and shared by every request's view (a prototype,
 * not ~30 closures per request): an operation a fork runs goes to the engine's `onFork`, any other
 * to the engine itself. The fork itself never changes by them.
 */
const forkEngineProto: object = {
  ...Object.fromEntries(
    ENGINE_OPERATIONS.map((m) => [
      m,
      onFork.has(m)
        ? function (this: ForkEngineView, ...args: unknown[]) {
            return this.base.onFork(this.forkId, m as (typeof FORK_OPERATIONS)[number], args as never)
          }
        : function (this: ForkEngineView, ...args: unknown[]) {
            return (this.base[m] as (...a: unknown[]) => unknown).apply(this.base, args)
          },
    ]),
  ),
  close(this: ForkEngineView) {
    return this.base.close()
  },
  // the base engine's withStop would answer the chain's own engine, not the fork's
  withStop(this: ForkEngineView, stop: RunStop) {
    return forkEngine(this.base.withStop?.(stop) ?? this.base, this.forkId)
  },
}

/** the engine as one fork's chain: each operation runs on the fork (the fork itself never changes by it) */
export function forkEngine(engine: Engine, forkId: string): Engine {
  const view: ForkEngineView = Object.create(forkEngineProto)
  return Object.assign(view, { base: engine, forkId }) as unknown as Engine
}

export function registerForkRpc(app: OpenAPIHono<HttpEnv>, opts: ForkRpcRouteOptions): void {
  const scrub = scrubber([opts.config.chain.rpc_url, opts.config.api.auth_token])
  const handle = async (c: Context<HttpEnv>) => {
    const requestId = c.get('requestId')
    const forkId = c.req.param('forkId')!
    let body: unknown
    let text: string
    try {
      text = await c.req.text()
      body = JSON.parse(text)
    } catch {
      return c.body(answerText(parseFailure()), 200, { 'Content-Type': 'application/json' })
    }
    c.set('rpcMethod', methodLabel(body, forkMethods))
    // an unknown fork is answered once for the whole request, as HTTP 404
    try {
      await opts.engine.getFork(forkId)
    } catch (e) {
      const err = e as { code?: string; message?: string; details?: Record<string, unknown>; suggestion?: string }
      if (err.code === 'FORK_NOT_FOUND') throw new ApiError('FORK_NOT_FOUND', err.message ?? 'fork not found', err.details, err.suggestion)
      throw e
    }
    const answer = await dispatch(
      body,
      {
        methods: forkMethods,
        ctx: { engine: forkEngine(requestEngine(c, opts.engine), forkId), config: opts.config, forkId },
        maxBatch: opts.config.limits.max_rpc_batch,
        scrub,
        explainRefusals: false,
        onInternal(err, method) {
          const e = err instanceof Error ? { type: err.name, message: err.message, stack: err.stack } : { value: String(err) }
          opts.logger.error(scrub({ requestId, method, err: e }), 'JSON-RPC method on a fork failed with an internal error')
        },
      },
      scanJson(text).items,
    )
    if (answer === undefined) return c.body(null, 200)
    // ids written back as sent, and a long struct log streamed, as on /v1/rpc (src/rpc/route.ts)
    return jsonTextAnswer(c, answerText(answer))
  }
  app.post('/v1/forks/:forkId/rpc', handle)
  app.post('/v1/forks/:forkId/rpc/:token', handle)
}
