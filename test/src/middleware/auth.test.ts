import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { post, startTestApp, testToken, type TestApp } from '../support/startTestApp.js'

const call = { params: { calls: [{ from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', to: '0x5fbdb2315678afecb367f032d93f642f64180aa3', data: '0x' }] } }

describe('token authentication (test config: fixed token)', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startTestApp()
  })
  afterAll(() => app.close())

  it('accepts Authorization: Bearer', async () => {
    const res = await app.fetch('/v1/simulate', post(call))
    expect(res.status).toBe(200)
    expect((await res.json()).success).toBe(true)
  })

  it('accepts X-API-Key', async () => {
    const res = await app.fetch('/v1/simulate', post(call, { token: null, headers: { 'x-api-key': testToken } }))
    expect(res.status).toBe(200)
  })

  it('no token: 401 AUTHENTICATION_REQUIRED with WWW-Authenticate and a suggestion naming both headers', async () => {
    const res = await app.fetch('/v1/simulate', post(call, { token: null }))
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/)
    const body = await res.json()
    expect(body.success).toBe(false)
    expect(body.error.code).toBe('AUTHENTICATION_REQUIRED')
    expect(body.error.message).toBeTruthy()
    expect(body.error.suggestion).toContain('Authorization: Bearer')
    expect(body.error.suggestion).toContain('X-API-Key')
  })

  it('a non-Bearer Authorization scheme counts as no token', async () => {
    const res = await app.fetch('/v1/simulate', post(call, { token: null, headers: { authorization: `Basic ${testToken}` } }))
    expect((await res.json()).error.code).toBe('AUTHENTICATION_REQUIRED')
  })

  it('wrong token (any length, either header): 401 AUTHENTICATION_INVALID', async () => {
    for (const wrong of ['x', testToken.slice(0, -1), `${testToken}z`, testToken.toUpperCase(), 'a'.repeat(5000)]) {
      for (const init of [post(call, { token: wrong }), post(call, { token: null, headers: { 'x-api-key': wrong } })]) {
        const res = await app.fetch('/v1/simulate', init)
        expect(res.status).toBe(401)
        expect((await res.json()).error.code).toBe('AUTHENTICATION_INVALID')
      }
    }
  })

  it('a token padded inside the header value (second space, tab, NBSP) is not the token: 401 AUTHENTICATION_INVALID', async () => {
    const padded: Record<string, string>[] = [
      { authorization: `Bearer  ${testToken}` },
      { authorization: `Bearer\t${testToken}` },
      { authorization: `Bearer \u00a0${testToken}` },
      { authorization: `Bearer ${testToken}\u00a0` },
      { authorization: `Bearer ${testToken.slice(0, 4)} ${testToken.slice(4)}` },
      { 'x-api-key': `\u00a0${testToken}` },
      { 'x-api-key': `${testToken}\u00a0` },
    ]
    for (const headers of padded) {
      const res = await app.fetch('/v1/simulate', post(call, { token: null, headers }))
      expect(res.status, JSON.stringify(headers)).toBe(401)
      expect((await res.json()).error.code).toBe('AUTHENTICATION_INVALID')
    }
  })

  it("spaces around the header value are HTTP's optional whitespace, not the token's: accepted", async () => {
    const spaced: Record<string, string>[] = [{ authorization: `Bearer ${testToken}  ` }, { 'x-api-key': `  ${testToken}\t` }]
    for (const headers of spaced) {
      const res = await app.fetch('/v1/simulate', post(call, { token: null, headers }))
      expect(res.status, JSON.stringify(headers)).toBe(200)
    }
  })

  it('rejected requests never reach the engine', async () => {
    const before = app.engine.calls.length
    await app.fetch('/v1/simulate', post(call, { token: 'nope' }))
    await app.fetch('/v1/trace/call', post({ call: call.params.calls[0] }, { token: null }))
    expect(app.engine.calls.length).toBe(before)
  })

  it('health, openapi.json and the explorer need no token', async () => {
    for (const path of ['/v1/health', '/v1/openapi.json', '/v1/openapi/docs', '/v1/openapi/docs/assets/swagger-ui.css']) {
      const res = await app.fetch(path)
      expect(res.status, path).toBe(200)
    }
  })

  it('other GET routes do need it', async () => {
    const res = await app.fetch('/v1/simulations/sim_00000000-0000-4000-8000-000000000001')
    expect(res.status).toBe(401)
  })

  it('CORS preflights are answered without a token', async () => {
    const res = await app.fetch('/v1/simulate', {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    })
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3000')
  })

  it('never logs the token', async () => {
    await app.fetch('/v1/simulate', post(call))
    await app.fetch('/v1/simulate', post(call, { token: `${testToken}x` }))
    expect(app.logs.length).toBeGreaterThan(0)
    expect(app.rawLogs()).not.toContain(testToken)
  })
})

describe('authentication disabled (empty auth_token)', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startTestApp({ env: { APP_ENV: 'development', AUTH_TOKEN: '' } })
  })
  afterAll(() => app.close())

  it('serves without any token', async () => {
    const res = await app.fetch('/v1/simulate', post(call, { token: null }))
    expect(res.status).toBe(200)
  })
})
