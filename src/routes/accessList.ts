/** POST /v1/simulate/access-list (interface §7): geth eth_createAccessList semantics. */
import type { OpenAPIHono } from '@hono/zod-openapi'
import { validationError } from '../errors/apiError.js'
import type { HttpEnv } from '../httpEnv.js'
import { fromTagOrNumber, toBlockSelector } from '../normalize/blockSelector.js'
import { toCallInput } from '../normalize/callInput.js'
import { fromOverrideMap } from '../normalize/overrides.js'
import { readJson, validate } from '../normalize/parseBody.js'
import { accessListRequest } from '../schemas/accessList.js'
import { accessListResult, envelope } from '../schemas/responses.js'
import type { RouteContext } from './context.js'
import { runAt } from '../runAt.js'
import { document } from './document.js'
import { withDefined } from './simulate.js'

export function registerAccessList(app: OpenAPIHono<HttpEnv>, ctx: RouteContext): void {
  document(app, {
    method: 'post',
    path: '/v1/simulate/access-list',
    tags: ['simulation'],
    summary: 'Generate an EIP-2930 access list for a call',
    description: 'The list that stabilises when the call is re-run with it (geth eth_createAccessList); `gasUsed` is the gas of the call run with that list.',
    body: accessListRequest,
    ok: { schema: envelope(accessListResult), description: 'the access list and the gas used with it' },
    errors: [400, 404, 413, 415, 502, 504],
  })

  app.post('/v1/simulate/access-list', async (c) => {
    const req = validate(accessListRequest, await readJson(c))
    const selectors = [req.block, req.blockNumber, req.blockTag].filter((s) => s !== undefined)
    if (selectors.length > 1) {
      throw validationError([{ path: 'block', message: 'select the block once: block, blockNumber or blockTag' }])
    }
    const block = req.block !== undefined ? fromTagOrNumber(req.block, 'block') : toBlockSelector(req, '')
    const result = await ctx.engine.accessList(runAt(c), {
      call: toCallInput(req.params, 'params'),
      block,
      ...withDefined('stateOverrides', fromOverrideMap(req.stateOverrides, 'stateOverrides')),
    })
    return c.json({ success: true, data: result }, 200)
  })
}
