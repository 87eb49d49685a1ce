/**
 * The REST endpoints on a fork: POST /v1/forks/{forkId}/simulate, simulate/batch,
 * simulate/access-list, trace/tx, trace/call and trace/call-many, with the bodies of their
 * /v1/ twins. The twins' own route code serves them, over the engine's operations run on the
 * fork's chain (its head is `latest`; its own blocks and transactions are there to name and
 * trace): nothing here changes the fork.
 */
import { OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { HttpEnv } from '../httpEnv.js'
import { runAt } from '../runAt.js'
import { forkIdParam } from '../schemas/forks.js'
import { errorEnvelope } from '../schemas/responses.js'
import { registerAccessList } from './accessList.js'
import { registerBatch } from './batch.js'
import type { RouteContext } from './context.js'
import { registerSimulate } from './simulate.js'
import { registerTrace } from './trace.js'

export const FORK_REST_PATHS = ['simulate', 'simulate/batch', 'simulate/access-list', 'trace/tx', 'trace/call', 'trace/call-many'] as const

/** the twins' handlers run on `inner`, the fork's address (and the request's id) handed to them in the bindings of the request */
interface ForkRequestBindings {
  runAt: NonNullable<HttpEnv['Bindings']['runAt']>
  requestId: string
}

export function registerForkRest(app: OpenAPIHono<HttpEnv>, ctx: RouteContext, onError: (err: unknown, c: Context<HttpEnv>) => Response): void {
  const inner = new OpenAPIHono<HttpEnv>()
  inner.use(async (c, next) => {
    c.set('requestId', (c.env as ForkRequestBindings).requestId)
    await next()
  })
  inner.onError(onError)
  registerSimulate(inner, ctx)
  registerBatch(inner, ctx)
  registerAccessList(inner, ctx)
  registerTrace(inner, ctx)

  documentOnFork(app, inner)

  for (const path of FORK_REST_PATHS) {
    app.post(`/v1/forks/:forkId/${path}`, async (c) => {
      const at = { ...runAt(c), fork: c.req.param('forkId') }
      // FORK_NOT_FOUND before the body is read
      await ctx.engine.getFork(at, at.fork)
      const req = new Request(new URL(`/v1/${path}`, c.req.url), { method: 'POST', headers: c.req.raw.headers, body: await c.req.text() })
      const bindings: ForkRequestBindings = { runAt: at, requestId: c.get('requestId') }
      return inner.fetch(req, bindings)
    })
  }
}

/** each twin's OpenAPI operation, under /v1/forks/{forkId}/ with the fork's id as a path parameter */
function documentOnFork(app: OpenAPIHono<HttpEnv>, twins: OpenAPIHono<HttpEnv>): void {
  for (const def of twins.openAPIRegistry.definitions) {
    if (def.type !== 'route') continue
    const path = FORK_REST_PATHS.find((p) => def.route.path === `/v1/${p}`)
    if (!path) continue
    const { route } = def
    app.openAPIRegistry.registerPath({
      ...route,
      path: `/v1/forks/{forkId}/${path}`,
      tags: ['forks'],
      summary: `${route.summary ?? path}, on a fork`,
      description:
        `The body and answer of POST /v1/${path}, run on the fork's head (or a fork block it names); the fork never changes by it. ${route.description ?? ''}`.trim(),
      request: { ...route.request, params: forkIdParam },
      responses: {
        ...route.responses,
        404: {
          description: 'FORK_NOT_FOUND (an unknown, deleted or expired fork) / TRANSACTION_NOT_FOUND / BLOCK_NOT_FOUND',
          content: { 'application/json': { schema: errorEnvelope } },
        },
      },
    })
  }
}
