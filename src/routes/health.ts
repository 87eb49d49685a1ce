/**
 * The health routes, not enveloped, never behind auth or the rate limit (a load balancer's probes;
 * docs/decisions/0101-readiness-and-drain.md):
 * - GET /v1/health (interface §10): 503 `degraded` when the upstream chain or the cache store does not answer;
 * - GET /v1/health/live: 200 while the process answers at all (no upstream, no engine asked);
 * - GET /v1/health/ready: 200 when the upstream, the cache store and the engines can serve, else
 *   503 naming what is missing; 503 `draining` from the moment the process drains (SIGTERM).
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import { runAt } from '../runAt.js'
import type { HttpEnv } from '../httpEnv.js'
import { healthResult, livenessResult, readinessResult } from '../schemas/responses.js'
import type { ChainSet } from '../../host/chains.js'
import type { DrainFlag } from '../../host/server.js'
import type { Engine, RunAt } from '../../engine/types.js'
import { summarize } from './chains.js'
import type { RouteContext } from './context.js'

export const healthPaths = ['/v1/health', '/v1/health/live', '/v1/health/ready'] as const

type HealthContext = RouteContext & { version: string; startedAt: number; chains?: ChainSet; drain: DrainFlag }

export function registerHealth(app: OpenAPIHono<HttpEnv>, ctx: HealthContext): void {
  registerProbes(app, ctx)
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

/** what readiness can find missing */
type Missing = 'draining' | 'engine' | 'upstream' | 'cache'

/** GET /v1/health/live and GET /v1/health/ready */
function registerProbes(app: OpenAPIHono<HttpEnv>, ctx: HealthContext): void {
  const probe = { tags: ['service'], security: [] }
  app.openAPIRegistry.registerPath({
    ...probe,
    method: 'get',
    path: '/v1/health/live',
    summary: 'Liveness: the process answers (no token needed)',
    description: 'Asks nothing of the upstream or the engines; 200 also while the process drains.',
    responses: { 200: { description: 'alive', content: { 'application/json': { schema: livenessResult } } } },
  })
  app.openAPIRegistry.registerPath({
    ...probe,
    method: 'get',
    path: '/v1/health/ready',
    summary: 'Readiness: the instance can serve requests (no token needed)',
    description:
      "The upstream chain answers, the cache store answers and an engine is up to run requests; 503 names what is missing, `draining` once the process stops (SIGTERM). Answers within about a second. Unprefixed: the default chain's; /v1/chains/{name}/health/ready: that chain's.",
    responses: {
      200: { description: 'ready', content: { 'application/json': { schema: readinessResult } } },
      503: { description: 'not ready: `missing` names what', content: { 'application/json': { schema: readinessResult } } },
    },
  })

  app.get('/v1/health/live', (c) => c.json({ status: 'live' as const, uptime: Math.round((Date.now() - ctx.startedAt) / 1000) }, 200))

  const readiness = sharedReadiness(ctx)
  app.get('/v1/health/ready', async (c) => {
    // draining: nothing else matters, and nothing is asked
    const missing: Missing[] = ctx.drain.draining ? ['draining'] : await readiness(c.get('chain'))
    return missing.length === 0 ? c.json({ status: 'ready' as const }, 200) : c.json({ status: 'not-ready' as const, missing }, 503)
  })
}

/**
 * What a chain lacks to serve, asked once at a time: probes that arrive while one is being
 * answered share its answer, so many load balancers probing at once cost one upstream call.
 */
function sharedReadiness(ctx: HealthContext): (chain: string | undefined) => Promise<Missing[]> {
  const asking = new Map<string, Promise<Missing[]>>()
  return (chain) => {
    const key = chain ?? ''
    const pending = asking.get(key)
    if (pending) return pending
    const answer = missingOn(ctx, chain).finally(() => asking.delete(key))
    asking.set(key, answer)
    return answer
  }
}

async function missingOn(ctx: HealthContext, chain: string | undefined): Promise<Missing[]> {
  const at: RunAt = chain === undefined ? {} : { chain }
  // engines up: a pool's worker threads, or the in-process engine (host/workers/); an engine
  // that does not count its runs is taken as up when it answers
  const engine: Engine & { runs?(): { engines: number } } = (chain === undefined ? ctx.chains?.defaultEngine : ctx.chains?.get(chain)) ?? ctx.engine
  const missing: Missing[] = engine.runs?.().engines === 0 ? ['engine'] : []
  try {
    const h = await ctx.engine.health(at)
    if (!h.upstreamOk || h.unavailable !== undefined) missing.push('upstream')
    if (!h.cacheOk) missing.push('cache')
  } catch (err) {
    // the check itself failed: the engine cannot answer (the error may name the upstream: its kind only)
    ctx.logger.warn({ err: (err as Error).name }, 'readiness check failed')
    if (!missing.includes('engine')) missing.push('engine')
  }
  return missing
}
