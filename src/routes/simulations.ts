/** GET /v1/simulations/{simulationId} (interface §6): a stored shape-A result. */
import type { OpenAPIHono } from '@hono/zod-openapi'
import { runAt } from '../runAt.js'
import { z } from '@hono/zod-openapi'
import { ApiError, validationError } from '../errors/apiError.js'
import type { HttpEnv } from '../httpEnv.js'
import { envelope, simulationResult } from '../schemas/responses.js'
import type { RouteContext } from './context.js'
import { document } from './document.js'

const simulationId = /^sim_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function registerSimulations(app: OpenAPIHono<HttpEnv>, ctx: RouteContext): void {
  document(app, {
    method: 'get',
    path: '/v1/simulations/{simulationId}',
    tags: ['simulation'],
    summary: 'A stored simulation result',
    description: `Every simulation is kept for simulation_ttl_seconds (default 86400) under its id.`,
    params: z.object({
      simulationId: z.string().openapi({ param: { name: 'simulationId', in: 'path' }, example: 'sim_3f1b2c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d' }),
    }),
    ok: { schema: envelope(simulationResult), description: 'the full shape-A result' },
    errors: [400, 404],
  })

  app.get('/v1/simulations/:simulationId', async (c) => {
    const id = c.req.param('simulationId')
    if (!simulationId.test(id)) {
      throw validationError([{ path: 'simulationId', message: 'expected sim_ followed by a UUID' }])
    }
    const result = await ctx.engine.getSimulation(runAt(c), id.toLowerCase())
    if (!result) {
      throw new ApiError('NOT_FOUND', `simulation ${id} not found`, { simulationId: id }, 'simulations are kept for a limited time; run it again')
    }
    return c.json({ success: true, data: result }, 200)
  })
}
