/**
 * POST /v1/simulate/signature: what an EIP-712 signature would let its spender do, simulated from
 * the signer's side on the selected block (engine/operations/signature). Typed data it does not know
 * is answered as `kind: "unknown"` with its domain and message, never as an error.
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import type { Address, Hex } from 'viem'
import type { HttpEnv } from '../httpEnv.js'
import { toBlockSelector } from '../normalize/blockSelector.js'
import { readJson, validate } from '../normalize/parseBody.js'
import { envelope } from '../schemas/responses.js'
import { signaturePreview, signatureRequest } from '../schemas/signature.js'
import type { RouteContext } from './context.js'
import { runAt } from '../runAt.js'
import { document } from './document.js'

export function registerSignature(app: OpenAPIHono<HttpEnv>, ctx: RouteContext): void {
  document(app, {
    method: 'post',
    path: '/v1/simulate/signature',
    tags: ['simulation'],
    summary: 'What an EIP-712 signature gives away',
    description:
      'Recognises ERC-2612 and DAI permits and every Permit2 message (with witnesses); simulates the signer granting what it grants ' +
      'and the spender then moving everything it may, and answers the approvals, asset changes and warnings ' +
      '(SIGNER_MISMATCH, WRONG_CHAIN, SIGNATURE_EXPIRED, NONCE_USED among them).',
    body: signatureRequest,
    ok: { schema: envelope(signaturePreview), description: 'the preview (also for typed data of an unknown kind)' },
    errors: [400, 404, 413, 415, 502, 504],
  })

  app.post('/v1/simulate/signature', async (c) => {
    const req = validate(signatureRequest, await readJson(c))
    const data = await ctx.engine.previewSignature(runAt(c), {
      typedData: req.typedData,
      signer: req.signer.toLowerCase() as Address,
      ...(req.signature !== undefined && { signature: req.signature as Hex }),
      block: toBlockSelector(req, ''),
    })
    return c.json({ success: true, data }, 200)
  })
}
