import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../../engine/index.js'
import { createChainSet } from '../../../host/chains.js'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { startTestApp, testToken, type TestApp } from '../support/startTestApp.js'

interface Operation {
  requestBody?: { required?: boolean; content: Record<string, { schema: unknown; example?: unknown }> }
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>
  security?: Record<string, string[]>[]
  parameters?: { name: string; in: string }[]
}

const forkRestEndpoints = ['simulate', 'simulate/batch', 'simulate/access-list', 'trace/tx', 'trace/call', 'trace/call-many'].map(
  (p) => `/v1/forks/{forkId}/${p}`,
)
const postEndpoints = [
  '/v1/simulate',
  '/v1/simulate/batch',
  '/v1/simulate/access-list',
  '/v1/sources',
  '/v1/trace/tx',
  '/v1/trace/call',
  '/v1/trace/call-many',
  '/v1/simulate/signature',
]

describe('GET /v1/openapi.json', () => {
  let app: TestApp
  let doc: {
    openapi: string
    info: { version: string }
    paths: Record<string, Record<string, Operation>>
    components: { schemas: Record<string, unknown>; securitySchemes: Record<string, { type: string; scheme?: string; in?: string; name?: string }> }
  }
  beforeAll(async () => {
    app = await startTestApp()
    const res = await app.fetch('/v1/openapi.json')
    expect(res.status).toBe(200)
    doc = await res.json()
  })
  afterAll(() => app.close())

  it('is OpenAPI 3.1 with every endpoint of the spec and decisions', () => {
    expect(doc.openapi).toBe('3.1.0')
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        ...postEndpoints,
        '/v1/health',
        '/v1/health/live',
        '/v1/health/ready',
        '/v1/simulations/{simulationId}',
        '/v1/forks',
        '/v1/forks/{forkId}',
        '/v1/rpc',
        '/v1/forks/{forkId}/rpc',
        ...forkRestEndpoints,
      ].sort(),
    )
    // the fork resource (docs/forks.md)
    expect(Object.keys(doc.paths['/v1/forks']!).sort()).toEqual(['get', 'post'])
    expect(Object.keys(doc.paths['/v1/forks/{forkId}']!).sort()).toEqual(['delete', 'get'])
    expect(doc.paths['/v1/health']!.get).toBeDefined()
    expect(doc.paths['/v1/simulations/{simulationId}']!.get!.parameters).toEqual([expect.objectContaining({ name: 'simulationId', in: 'path' })])
  })

  it("lists the JSON-RPC endpoints with JSON-RPC bodies, a fork's with its forkId and FORK_NOT_FOUND", () => {
    for (const path of ['/v1/rpc', '/v1/forks/{forkId}/rpc']) {
      const op = doc.paths[path]!.post!
      expect(op.requestBody?.required, path).toBe(true)
      expect(JSON.stringify(op.requestBody!.content['application/json']!.schema)).toContain('JsonRpcBody')
      expect(JSON.stringify(op.responses['200']!.content!['application/json']!.schema)).toContain('JsonRpcAnswer')
      expect(op.security).toEqual([{ bearerAuth: [] }, { apiKeyAuth: [] }])
    }
    expect(doc.paths['/v1/forks/{forkId}/rpc']!.post!.parameters).toEqual([expect.objectContaining({ name: 'forkId', in: 'path' })])
    expect(doc.paths['/v1/forks/{forkId}/rpc']!.post!.responses['404']).toBeDefined()
    expect(doc.paths['/v1/rpc']!.post!.parameters ?? []).toEqual([])
  })

  it("documents the REST routes on a fork with their twins' bodies and answers", () => {
    for (const path of forkRestEndpoints) {
      const op = doc.paths[path]!.post!
      const twin = doc.paths[path.replace('/forks/{forkId}', '')]!.post!
      expect(op.requestBody, path).toEqual(twin.requestBody)
      expect(op.responses['200'], path).toEqual(twin.responses['200'])
      expect(op.parameters, path).toEqual([expect.objectContaining({ name: 'forkId', in: 'path', required: true })])
      expect((op.responses['404'] as { description: string }).description, path).toMatch(/FORK_NOT_FOUND/)
    }
  })

  it('a deployment with named chains offers them as a second server, /v1/chains/{name}', async () => {
    const opts = { gasCap: 50_000_000n, rpcTimeoutMs: 10_000, maxStructLogSteps: 10_000, simulationTtlSeconds: 60 }
    const devnet = await createEngine({ ...opts, cache: createMemoryCacheStore() })
    const chains = createChainSet(devnet, { second: await createEngine({ ...opts, cache: createMemoryCacheStore() }) })
    const withChains = await startTestApp({ engine: devnet, chains })
    try {
      const named = (await (await withChains.fetch('/v1/openapi.json')).json()) as { servers: unknown[]; paths: Record<string, unknown> }
      expect(named.servers).toEqual([
        expect.objectContaining({ url: '/' }),
        expect.objectContaining({ url: '/v1/chains/{name}', variables: { name: { default: 'second', enum: ['second'] } } }),
      ])
      expect(named.paths['/v1/chains']).toBeDefined()
      // the server's URL before a documented path is a route that answers for that chain
      const res = await withChains.fetch('/v1/chains/second/v1/rpc', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${testToken}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      })
      expect(((await res.json()) as { result: string }).result).toBe('0x7a69')
    } finally {
      await withChains.close()
      await chains.close()
    }
    // a deployment of one chain has no servers to pick
    expect((doc as { servers?: unknown }).servers).toBeUndefined()
  })

  it('every POST has a required JSON request schema with an example, and 200 + error response schemas', () => {
    for (const path of postEndpoints) {
      const op = doc.paths[path]!.post!
      expect(op, path).toBeDefined()
      expect(op.requestBody?.required, path).toBe(true)
      const body = op.requestBody!.content['application/json']!
      expect(body.schema, path).toBeDefined()
      expect(JSON.stringify(body.schema).length, path).toBeGreaterThan(20)
      expect(JSON.stringify(doc).includes('"example'), path).toBe(true)
      for (const status of ['200', '400', '401', '429', '500']) {
        expect(op.responses[status]?.content?.['application/json']?.schema, `${path} ${status}`).toBeDefined()
      }
      expect(op.security).toEqual([{ bearerAuth: [] }, { apiKeyAuth: [] }])
    }
  })

  it('the schemas carry examples for every request component', () => {
    const schemas = doc.components.schemas as Record<string, { example?: unknown }>
    for (const name of [
      'SimulationRequest',
      'StepSimulationRequest',
      'BatchRequest',
      'AccessListRequest',
      'TraceTransactionRequest',
      'TraceCallRequest',
      'TraceCallManyRequest',
    ]) {
      expect(schemas[name], name).toBeDefined()
      expect(schemas[name]!.example, name).toBeDefined()
    }
  })

  it('declares the bearer and X-API-Key schemes; health needs none', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' })
    expect(doc.components.securitySchemes.apiKeyAuth).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' })
    expect(doc.paths['/v1/health']!.get!.security).toEqual([])
  })

  it('the request schema is the one that validates: the documented call fields exist', () => {
    const call = (doc.components.schemas as Record<string, { properties?: Record<string, unknown> }>).CallObject!
    expect(Object.keys(call.properties!).sort()).toEqual(
      ['accessList', 'authorizationList', 'data', 'from', 'gas', 'gasPrice', 'input', 'maxFeePerGas', 'maxPriorityFeePerGas', 'nonce', 'to', 'value'].sort(),
    )
    const authorization = (doc.components.schemas as Record<string, { properties?: Record<string, unknown>; required?: string[] }>).Authorization!
    expect(authorization.required!.sort()).toEqual(['address', 'chainId', 'nonce', 'r', 's', 'yParity'])
  })

  it('the explorer page loads its assets from this service only', async () => {
    const res = await app.fetch('/v1/openapi/docs')
    expect(res.status).toBe(200)
    const html = await res.text()
    expect(html).toContain('/v1/openapi.json')
    // the one page link: the trace viewer, served here too
    expect(html).toContain('href="/v1/ui"')
    expect((await app.fetch('/v1/ui')).status).toBe(200)
    const srcs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((src) => src !== '/v1/ui')
    expect(srcs.length).toBeGreaterThanOrEqual(2)
    for (const src of srcs) {
      expect(src.startsWith('/v1/openapi/docs/assets/'), src).toBe(true)
      expect((await app.fetch(src)).status, src).toBe(200)
    }
    expect(html).not.toMatch(/https?:\/\//)
  })
})
