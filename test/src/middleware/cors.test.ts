import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authed, startTestApp, type TestApp } from '../support/startTestApp.js'

const preflight = (origin: string, method = 'POST'): RequestInit => ({
  method: 'OPTIONS',
  headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'content-type,authorization' },
})

describe('CORS from [api.cors] (restricted list)', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startTestApp({
      env: {
        CORS_ALLOWED_ORIGINS: 'https://app.example.com,http://localhost:3000',
        CORS_ALLOWED_METHODS: 'GET,POST,OPTIONS',
        CORS_ALLOW_CREDENTIALS: 'true',
        CORS_MAX_AGE: '600',
      },
    })
  })
  afterAll(() => app.close())

  it('preflight from an allowed origin gets the configured methods, headers and max-age', async () => {
    const res = await app.fetch('/v1/simulate', preflight('https://app.example.com'))
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
    expect(res.headers.get('access-control-allow-methods')).toBe('GET,POST,OPTIONS')
    expect(res.headers.get('access-control-allow-headers')?.split(',')).toEqual(app.config.api.cors.allowed_headers)
    expect(res.headers.get('access-control-max-age')).toBe('600')
    expect(res.headers.get('access-control-allow-credentials')).toBe('true')
    expect(res.headers.get('x-request-id')).toBeTruthy()
  })

  it('a simple request from an allowed origin gets Allow-Origin and exposed headers', async () => {
    const res = await app.fetch('/v1/health', { headers: { origin: 'http://localhost:3000' } })
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3000')
    expect(res.headers.get('access-control-expose-headers')).toContain('X-Request-Id')
  })

  it('a disallowed origin gets no Access-Control-Allow-Origin (preflight or request)', async () => {
    const pre = await app.fetch('/v1/simulate', preflight('https://evil.example.net'))
    expect(pre.headers.get('access-control-allow-origin')).toBeNull()
    const res = await app.fetch('/v1/health', { headers: { origin: 'https://evil.example.net' } })
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
    const authedRes = await app.fetch('/v1/simulations/sim_00000000-0000-4000-8000-000000000009', authed({ origin: 'https://app.example.com.evil.net' }))
    expect(authedRes.headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('CORS in development (permissive *)', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startTestApp({ env: { APP_ENV: 'development' } })
  })
  afterAll(() => app.close())

  it('allows any origin with *', async () => {
    expect(app.config.api.cors.allowed_origins).toEqual(['*'])
    const res = await app.fetch('/v1/simulate', preflight('https://anything.example'))
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect(res.headers.get('access-control-max-age')).toBe('86400')
    expect(res.headers.get('access-control-allow-methods')).toBe('GET,POST,PUT,DELETE,OPTIONS')
  })
})
