import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../support/startTestApp.js'

interface Operation {
  requestBody?: { required?: boolean; content: Record<string, { schema: unknown; example?: unknown }> }
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>
  security?: Record<string, string[]>[]
  parameters?: { name: string; in: string }[]
}

const postEndpoints = ['/v1/simulate', '/v1/simulate/batch', '/v1/simulate/access-list', '/v1/trace/tx', '/v1/trace/call', '/v1/trace/call-many', '/v1/simulate/signature']

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
      [...postEndpoints, '/v1/health', '/v1/simulations/{simulationId}', '/v1/forks', '/v1/forks/{forkId}'].sort(),
    )
    // the fork resource (docs/forks.md)
    expect(Object.keys(doc.paths['/v1/forks']!).sort()).toEqual(['get', 'post'])
    expect(Object.keys(doc.paths['/v1/forks/{forkId}']!).sort()).toEqual(['delete', 'get'])
    expect(doc.paths['/v1/health']!.get).toBeDefined()
    expect(doc.paths['/v1/simulations/{simulationId}']!.get!.parameters).toEqual([expect.objectContaining({ name: 'simulationId', in: 'path' })])
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
    for (const name of ['SimulationRequest', 'StepSimulationRequest', 'BatchRequest', 'AccessListRequest', 'TraceTransactionRequest', 'TraceCallRequest', 'TraceCallManyRequest']) {
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
