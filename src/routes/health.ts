/**
 * GET /v1/health (interface §10), not enveloped, never behind auth or the rate limit.
 * 503 `degraded` when the upstream chain or the cache store does not answer.
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import { runAt } from '../runAt.js'
import type { HttpEnv } from '../httpEnv.js'
import { healthResult } from '../schemas/responses.js'
import type { ChainSet } from '../../host/chains.js'
import { summarize } from './chains.js'
import type { RouteContext } from './context.js'

export function registerHealth(app: OpenAPIHono<HttpEnv>, ctx: RouteContext & { version: string; startedAt: number; chains?: ChainSet }): void {
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/v1/health',
    tags: ['service'],
    summary: 'Service health (no token needed)',
    security: [],
    responses: {
      200: { description: 'ok', content: { 'application/json': { schema: healthResult } } },
      503: { description: 'degraded: the upstream chain or the cache store does not answer', content: { 'application/json': { schema: healthResult } } },
    },
  })

  app.get('/v1/health', async (c) => {
    const uptime = Math.round((Date.now() - ctx.startedAt) / 1000)
    try {
      const h = await ctx.engine.health(runAt(c))
      const ok = h.upstreamOk && h.cacheOk
      // the unprefixed health of a deployment serving several chains lists each, degraded or not;
      // its own status is the default chain's (a chain whose upstream is down degrades alone)
      const named = ctx.chains && !new URL(c.req.url).pathname.startsWith('/v1/chains/') ? ctx.chains.names() : []
      const chains = named.length > 0 ? await Promise.all(named.map((n) => summarize(n, false, ctx.chains!.get(n)!))) : undefined
      return c.json(
        { status: ok ? 'ok' : 'degraded', version: ctx.version, network: h.network, chainId: h.chainId, uptime, ...(chains && { chains }) },
        ok ? 200 : 503,
      )
    } catch (err) {
      // the error text may name the upstream; log its kind only
      ctx.logger.warn({ requestId: c.get('requestId'), err: (err as Error).name }, 'health check failed')
      return c.json({ status: 'degraded', version: ctx.version, network: 'unknown', chainId: 0, uptime }, 503)
    }
  })
}
