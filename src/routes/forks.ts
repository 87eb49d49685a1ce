/**
 * Writable forks (docs/forks.md): POST /v1/forks creates one, GET /v1/forks/{forkId} and
 * GET /v1/forks read, DELETE /v1/forks/{forkId} removes. An unknown, deleted or expired fork is
 * 404 FORK_NOT_FOUND here and on every route under it. `rpcUrl` is the fork's JSON-RPC endpoint
 * as the caller reached the service (behind trusted proxies: their X-Forwarded-Proto/Host).
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import { runAt } from '../runAt.js'
import type { Context } from 'hono'
import type { ForkInfo } from '../../engine/types.js'
import type { HttpEnv } from '../httpEnv.js'
import { readJson, validate } from '../normalize/parseBody.js'
import { createForkRequest, forkDetailsEnvelope, forkEnvelope, forkIdParam, forkListEnvelope } from '../schemas/forks.js'
import { envelope } from '../schemas/responses.js'
import { z } from '@hono/zod-openapi'
import type { RouteContext } from './context.js'
import { document } from './document.js'

export const FORKS_PATH = '/v1/forks'

/** the service's own origin as the caller reached it */
export function originOf(c: Context<HttpEnv>, trustProxy: number): string {
  const url = new URL(c.req.url)
  if (trustProxy > 0) {
    const proto = c.req.header('x-forwarded-proto')?.split(',')[0]?.trim()
    const host = c.req.header('x-forwarded-host')?.split(',')[0]?.trim()
    if (proto && /^https?$/.test(proto)) url.protocol = `${proto}:`
    if (host && /^[A-Za-z0-9.:[\]-]+$/.test(host)) url.host = host
  }
  return url.origin
}

export function registerForks(app: OpenAPIHono<HttpEnv>, ctx: RouteContext): void {
  const withUrl = (c: Context<HttpEnv>, f: ForkInfo) => {
    const { transactionCount, ...rest } = f
    return { ...rest, rpcUrl: `${originOf(c, ctx.config.server.trust_proxy)}${FORKS_PATH}/${f.forkId}/rpc`, transactionCount }
  }
  document(app, {
    method: 'post',
    path: FORKS_PATH,
    tags: ['forks'],
    summary: 'Create a writable fork',
    description:
      'A named, writable copy of the chain at a block, used through `rpcUrl` as a development node (Anvil) is used, ' +
      'and through the REST endpoints under /v1/forks/{forkId}/. Its state lives in the cache store: with Redis every instance serves it and it survives restarts. ' +
      'Answers 201. 409 FORK_LIMIT_REACHED past forks.max_forks.',
    body: createForkRequest,
    ok: { schema: forkEnvelope, description: 'created (status 201)' },
    errors: [400, 404, 409, 502, 503, 504],
  })
  app.post(FORKS_PATH, async (c) => {
    // every field is optional: an empty body is a fork of the latest block
    const req = validate(createForkRequest, await readJson(c, { ifEmpty: {} }))
    const created = await ctx.engine.createFork(runAt(c), {
      ...(req.blockNumber !== undefined && { blockNumber: BigInt(req.blockNumber) }),
      ...(req.blockTag !== undefined && { blockTag: req.blockTag }),
      ...(req.ttlSeconds !== undefined && { ttlSeconds: req.ttlSeconds }),
      ...(req.label !== undefined && { label: req.label }),
    })
    const { transactionCount: _t, ...data } = withUrl(c, created)
    return c.json({ success: true, data }, 201)
  })

  document(app, {
    method: 'get',
    path: FORKS_PATH,
    tags: ['forks'],
    summary: 'The live forks',
    ok: { schema: forkListEnvelope, description: 'every fork not deleted or expired, oldest first' },
    errors: [503],
  })
  app.get(FORKS_PATH, async (c) => c.json({ success: true, data: (await ctx.engine.listForks(runAt(c))).map((f) => withUrl(c, f)) }, 200))

  document(app, {
    method: 'get',
    path: `${FORKS_PATH}/{forkId}`,
    tags: ['forks'],
    summary: 'A fork',
    params: forkIdParam,
    ok: { schema: forkDetailsEnvelope, description: 'the fork; this use moves its expiry forward' },
    errors: [404, 503],
  })
  app.get(`${FORKS_PATH}/:forkId`, async (c) => c.json({ success: true, data: withUrl(c, await ctx.engine.getFork(runAt(c), c.req.param('forkId'))) }, 200))

  document(app, {
    method: 'delete',
    path: `${FORKS_PATH}/{forkId}`,
    tags: ['forks'],
    summary: 'Delete a fork',
    params: forkIdParam,
    ok: {
      schema: envelope(z.object({ forkId: z.string(), deleted: z.literal(true) })),
      description: 'deleted; every route of the fork now answers 404 FORK_NOT_FOUND',
    },
    errors: [404, 503],
  })
  app.delete(`${FORKS_PATH}/:forkId`, async (c) => {
    const forkId = c.req.param('forkId')
    await ctx.engine.deleteFork(runAt(c), forkId)
    return c.json({ success: true, data: { forkId, deleted: true } }, 200)
  })
}
