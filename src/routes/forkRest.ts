/**
 * The REST endpoints on a fork: POST /v1/forks/{forkId}/simulate, simulate/batch,
 * simulate/access-list, trace/tx, trace/call and trace/call-many, with the bodies of their
 * /v1/ twins. The twins' own route code serves them, over the engine's operations run on the
 * fork's chain (its head is `latest`; its own blocks and transactions are there to name and
 * trace): nothing here changes the fork.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { FORK_OPERATIONS, type Engine } from '../../engine/types.js'
import type { HttpEnv } from '../httpEnv.js'
import { registerAccessList } from './accessList.js'
import { registerBatch } from './batch.js'
import type { RouteContext } from './context.js'
import { requestEngine } from '../middleware/requestTimeout.js'
import { registerSimulate } from './simulate.js'
import { registerTrace } from './trace.js'

export const FORK_REST_PATHS = ['simulate', 'simulate/batch', 'simulate/access-list', 'trace/tx', 'trace/call', 'trace/call-many'] as const

export function registerForkRest(app: OpenAPIHono<HttpEnv>, ctx: RouteContext, onError: (err: unknown, c: Context<HttpEnv>) => Response): void {
  const current = new AsyncLocalStorage<{ forkId: string; requestId: string; engine: Engine }>()
  // the engine as the fork of the request at hand, its runs stopping when that request is given up
  const onFork = Object.fromEntries(
    FORK_OPERATIONS.map((m) => [m, (...args: unknown[]) => current.getStore()!.engine.onFork(current.getStore()!.forkId, m, args as never)]),
  )
  const engine = { ...ctx.engine, ...onFork, withStop: undefined } as Engine
  const inner = new OpenAPIHono<HttpEnv>()
  inner.use(async (c, next) => {
    c.set('requestId', current.getStore()!.requestId)
    await next()
  })
  inner.onError(onError)
  const innerCtx = { ...ctx, engine }
  registerSimulate(inner, innerCtx)
  registerBatch(inner, innerCtx)
  registerAccessList(inner, innerCtx)
  registerTrace(inner, innerCtx)

  for (const path of FORK_REST_PATHS) {
    app.post(`/v1/forks/:forkId/${path}`, async (c) => {
      const forkId = c.req.param('forkId')
      // FORK_NOT_FOUND before the body is read
      await ctx.engine.getFork(forkId)
      const req = new Request(new URL(`/v1/${path}`, c.req.url), { method: 'POST', headers: c.req.raw.headers, body: await c.req.text() })
      return current.run({ forkId, requestId: c.get('requestId'), engine: requestEngine(c, ctx.engine) }, () => inner.fetch(req))
    })
  }
}
