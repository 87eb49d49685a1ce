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
import type { Engine, ForkAt } from '../../engine/types.js'
import { ApiError } from '../errors/apiError.js'
import type { HttpEnv, HttpLogger } from '../httpEnv.js'
import { runAt } from '../runAt.js'
import { forkMethods } from './methods/index.js'
import { jsonRpcHandler } from './route.js'

export interface ForkRpcRouteOptions {
  engine: Engine
  config: ServiceConfig
  logger: HttpLogger
}

export function registerForkRpc(app: OpenAPIHono<HttpEnv>, opts: ForkRpcRouteOptions): void {
  const handle = jsonRpcHandler(opts, {
    methods: forkMethods,
    at: (c) => forkOfRequest(c, opts.engine),
    explainRefusals: false,
    failure: 'JSON-RPC method on a fork failed with an internal error',
  })
  app.post('/v1/forks/:forkId/rpc', handle)
  app.post('/v1/forks/:forkId/rpc/:token', handle)
}

/** the request's address on the fork its path names; an unknown fork is answered once for the whole request, as HTTP 404 */
async function forkOfRequest(c: Context<HttpEnv>, engine: Engine): Promise<ForkAt> {
  const at: ForkAt = { ...runAt(c), fork: c.req.param('forkId')! }
  try {
    await engine.getFork(at, at.fork)
  } catch (e) {
    const err = e as { code?: string; message?: string; details?: Record<string, unknown>; suggestion?: string }
    if (err.code === 'FORK_NOT_FOUND') throw new ApiError('FORK_NOT_FOUND', err.message ?? 'fork not found', err.details, err.suggestion)
    throw e
  }
  return at
}
