import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../support/startTestApp.js'

const version = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version

describe('GET /v1/health', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startTestApp()
  })
  afterAll(() => app.close())

  it('ok: not enveloped, version from package.json, network, chainId, uptime in seconds, no token', async () => {
    const res = await app.fetch('/v1/health')
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body).toEqual({ status: 'ok', version, network: 'devnet', chainId: 31337, uptime: expect.any(Number) })
    expect(body.uptime).toBeGreaterThanOrEqual(0)
    expect(Number.isInteger(body.uptime)).toBe(true)
  })

  it('degraded (503) when the upstream does not answer', async () => {
    app.engine.healthState = { ...app.engine.healthState, upstreamOk: false }
    const res = await app.fetch('/v1/health')
    expect(res.status).toBe(503)
    expect((await res.json()).status).toBe('degraded')
    app.engine.healthState = { ...app.engine.healthState, upstreamOk: true }
  })

  it('degraded (503) when the cache store does not answer', async () => {
    app.engine.healthState = { ...app.engine.healthState, cacheOk: false }
    const res = await app.fetch('/v1/health')
    expect(res.status).toBe(503)
    app.engine.healthState = { ...app.engine.healthState, cacheOk: true }
  })

  it('degraded (503) when the health check itself throws', async () => {
    app.engine.answer('health', async () => {
      throw new Error('boom')
    })
    const res = await app.fetch('/v1/health')
    expect(res.status).toBe(503)
    expect(await res.json()).toMatchObject({ status: 'degraded', version })
  })
})
