/**
 * OpenAPI registration shared by the routes: every endpoint is documented from the same zod
 * schemas that validate it, with the failure envelope under each status it can answer.
 */
import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi'
import type { z } from '@hono/zod-openapi'
import type { HttpEnv } from '../httpEnv.js'
import { errorEnvelope } from '../schemas/responses.js'

const errorDescriptions: Record<number, string> = {
  400: 'VALIDATION_ERROR: malformed JSON, bad field (details.issues name the path), unknown tracer',
  401: 'AUTHENTICATION_REQUIRED / AUTHENTICATION_INVALID (when a token is configured)',
  404: 'NOT_FOUND / TRANSACTION_NOT_FOUND / BLOCK_NOT_FOUND / FORK_NOT_FOUND',
  409: 'FORK_LIMIT_REACHED: a configured cap on forks (forks.*) would be passed; nothing was changed',
  413: 'PAYLOAD_TOO_LARGE: body, batch or call count over its limit',
  415: 'VALIDATION_ERROR: the body is not JSON (Content-Type)',
  422: 'SIMULATION_EXECUTION_FAILED / INSUFFICIENT_GAS: a simulated call reverted, halted or ran out of gas',
  429: 'RATE_LIMIT_EXCEEDED (Retry-After, RateLimit-* headers)',
  500: 'INTERNAL_ERROR',
  502: 'STATE_ACCESS_ERROR: the upstream node failed',
  503: 'FORKS_UNAVAILABLE: the fork store does not answer, e.g. a Redis Cluster primary failing over (Retry-After)',
  504: 'EXECUTION_TIMEOUT',
}

export const securedBy: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKeyAuth: [] }]

export function registerSecuritySchemes(app: OpenAPIHono<HttpEnv>): void {
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'Authorization: Bearer <token> (required when the service has an auth token)',
  })
  app.openAPIRegistry.registerComponent('securitySchemes', 'apiKeyAuth', { type: 'apiKey', in: 'header', name: 'X-API-Key' })
}

export interface DocumentOptions {
  method: 'get' | 'post' | 'delete'
  path: string
  summary: string
  description?: string
  tags: string[]
  body?: z.ZodType
  params?: z.ZodObject
  ok: { schema: z.ZodType; description: string; example?: unknown }
  errors: number[]
  public?: boolean
}

export function document(app: OpenAPIHono<HttpEnv>, o: DocumentOptions): void {
  const responses: RouteConfig['responses'] = {
    200: {
      description: o.ok.description,
      content: { 'application/json': { schema: o.ok.schema, ...(o.ok.example !== undefined && { example: o.ok.example }) } },
    },
  }
  for (const status of [...o.errors, 429, 500]) {
    if (o.public && status === 429 && o.path === '/v1/health') continue
    responses[status] = { description: errorDescriptions[status] ?? 'error', content: { 'application/json': { schema: errorEnvelope } } }
  }
  if (!o.public) responses[401] = { description: errorDescriptions[401]!, content: { 'application/json': { schema: errorEnvelope } } }
  app.openAPIRegistry.registerPath({
    method: o.method,
    path: o.path,
    summary: o.summary,
    ...(o.description && { description: o.description }),
    tags: o.tags,
    security: o.public ? [] : securedBy,
    request: {
      ...(o.params && { params: o.params }),
      ...(o.body && { body: { required: true, content: { 'application/json': { schema: o.body } } } }),
    },
    responses,
  })
}
