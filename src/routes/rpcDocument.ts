/**
 * The JSON-RPC endpoints in the OpenAPI document: POST /v1/rpc and a fork's POST
 * /v1/forks/{forkId}/rpc. Their bodies are JSON-RPC 2.0 (one request or a batch), not the REST
 * envelope: the schemas here say so, and the descriptions name what each endpoint answers, so the
 * API explorer lists them beside the REST routes.
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import { z } from '@hono/zod-openapi'
import type { HttpEnv } from '../httpEnv.js'
import { forkIdParam } from '../schemas/forks.js'
import { errorEnvelope } from '../schemas/responses.js'
import { securedBy } from './document.js'

const id = z.union([z.string(), z.number(), z.null()])

const rpcRequest = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: id.optional().openapi({ description: 'absent: a notification (no answer)' }),
    method: z.string(),
    params: z.array(z.unknown()).optional(),
  })
  .openapi('JsonRpcRequest', { example: { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] } })

const rpcAnswer = z
  .object({
    jsonrpc: z.literal('2.0'),
    id,
    result: z.unknown().optional(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .openapi('JsonRpcAnswer', { example: { jsonrpc: '2.0', id: 1, result: '0x1b4' } })

const body = z.union([rpcRequest, z.array(rpcRequest)]).openapi('JsonRpcBody')
const answer = z.union([rpcAnswer, z.array(rpcAnswer)])

function registerRpcPath(app: OpenAPIHono<HttpEnv>, o: { path: string; summary: string; description: string; tags: string[]; fork: boolean }): void {
  const json = (schema: z.ZodType) => ({ 'application/json': { schema } })
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: o.path,
    summary: o.summary,
    description: o.description,
    tags: o.tags,
    security: securedBy,
    request: {
      ...(o.fork && { params: forkIdParam }),
      body: { required: true, content: { 'application/json': { schema: body, example: { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] } } } },
    },
    responses: {
      200: {
        description: "a JSON-RPC answer (a batch: an array of them); a failed call is an `error` object with the node's code and text",
        content: json(answer),
      },
      401: { description: 'AUTHENTICATION_REQUIRED / AUTHENTICATION_INVALID (when a token is configured)', content: json(errorEnvelope) },
      ...(o.fork && { 404: { description: 'FORK_NOT_FOUND: an unknown, deleted or expired fork (a JSON-RPC error object)', content: json(rpcAnswer) } }),
      413: { description: 'PAYLOAD_TOO_LARGE: body or batch over its limit', content: json(errorEnvelope) },
      429: { description: 'RATE_LIMIT_EXCEEDED (Retry-After, RateLimit-* headers)', content: json(errorEnvelope) },
      ...(o.fork && {
        503: {
          description:
            'FORKS_UNAVAILABLE: the fork store does not answer, e.g. a Redis Cluster primary failing over (Retry-After; a JSON-RPC error object, data.code)',
          content: json(rpcAnswer),
        },
      }),
    },
  })
}

export function registerRpcDocument(app: OpenAPIHono<HttpEnv>): void {
  registerRpcPath(app, {
    path: '/v1/rpc',
    summary: 'JSON-RPC: eth_*, debug_* and trace_* on the chain',
    description:
      'A JSON-RPC 2.0 endpoint (one request or a batch) answering as geth and reth do: the reads of the chain, eth_call, eth_estimateGas, ' +
      'eth_createAccessList, eth_simulateV1, debug_trace* and trace_*. Tools that cannot send a header put the token as the last path segment: POST /v1/rpc/{token}.',
    tags: ['json-rpc'],
    fork: false,
  })
  registerRpcPath(app, {
    path: '/v1/forks/{forkId}/rpc',
    summary: "JSON-RPC on a writable fork (a development node's methods)",
    description:
      "Everything /v1/rpc answers, on the fork's chain (`latest` is the fork's head), plus what a development node answers with Anvil's shapes: " +
      'eth_sendRawTransaction, eth_sendTransaction (impersonated or dev accounts), evm_mine / anvil_mine, evm_setAutomine, evm_snapshot / evm_revert, ' +
      'evm_increaseTime, evm_setNextBlockTimestamp, anvil_setBalance / setCode / setStorageAt / setNonce, anvil_impersonateAccount, anvil_reset, ' +
      'anvil_dumpState / anvil_loadState (and their hardhat_* names). The token may be the last path segment: POST /v1/forks/{forkId}/rpc/{token}. See docs/forks.md.',
    tags: ['forks'],
    fork: true,
  })
}
