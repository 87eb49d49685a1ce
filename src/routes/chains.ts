/**
 * GET /v1/chains: the chains this deployment serves — the default one (the unprefixed routes)
 * and each named one (under /v1/chains/{name}/) — with its id, kind, head and health. A chain
 * whose upstream is down shows `degraded` and no head; the others answer as usual.
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import { z } from '@hono/zod-openapi'
import type { ChainSet } from '../../host/chains.js'
import { type Engine, ON_CHAIN } from '../../engine/types.js'
import type { HttpEnv } from '../httpEnv.js'
import { chainSummary } from '../schemas/responses.js'
import type { RouteContext } from './context.js'

export type ChainSummary = z.infer<typeof chainSummary>

/**
 * one chain's summary; never throws (a chain that does not answer is `degraded`; one not served
 * at all — its upstream down since the start, or back as another chain — is `down`, with why)
 */
export async function summarize(name: string, isDefault: boolean, engine: Engine): Promise<ChainSummary> {
  const [health, head] = await Promise.all([
    engine.health(ON_CHAIN).catch(() => undefined),
    engine
      .readChain(ON_CHAIN, 'eth_blockNumber', [])
      .then((h) => (typeof h === 'string' ? h : null))
      .catch(() => null),
  ])
  return {
    name,
    default: isDefault,
    chainId: health?.chainId ?? 0,
    network: health?.network ?? 'unknown',
    kind: health?.kind ?? 'ethereum',
    head,
    status: health?.unavailable ? 'down' : health?.upstreamOk && health.cacheOk ? 'ok' : 'degraded',
    ...(health?.unavailable && { error: health.unavailable }),
  }
}

export function registerChains(app: OpenAPIHono<HttpEnv>, ctx: RouteContext & { chains: ChainSet }): void {
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/v1/chains',
    tags: ['service'],
    summary: 'The chains this deployment serves',
    description: 'Each named chain answers every route under /v1/chains/{name}/ (REST, JSON-RPC, the viewer); an unknown name is 404 CHAIN_NOT_FOUND.',
    responses: {
      200: { description: 'the chains', content: { 'application/json': { schema: z.object({ success: z.literal(true), data: z.array(chainSummary) }) } } },
    },
  })
  app.get('/v1/chains', async (c) => {
    const { chains } = ctx
    const data = await Promise.all([
      summarize('default', true, chains.defaultEngine),
      ...chains.names().map((name) => summarize(name, false, chains.get(name)!)),
    ])
    return c.json({ success: true as const, data }, 200)
  })
}
