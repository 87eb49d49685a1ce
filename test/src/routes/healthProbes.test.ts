/**
 * GET /v1/health/live and GET /v1/health/ready on the app (test engine): no token, no rate limit,
 * what readiness names missing (upstream, cache, engine; draining once the process drains), the
 * named chains' prefixed forms, and a draining app answering other requests 503 SERVICE_DRAINING.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createChainSet } from '../../../host/chains.js'
import { createDrainFlag } from '../../../host/server.js'
import type { Engine } from '../../../engine/types.js'
import { authed, post, startTestApp, type TestApp } from '../support/startTestApp.js'
import { createTestEngine } from '../support/testEngine.js'

describe('GET /v1/health/live and /v1/health/ready', () => {
  let app: TestApp
  beforeAll(async () => {
    // a limit of 1: the probes below would be refused were they counted
    app = await startTestApp({ env: { RATE_LIMIT_REQUESTS: '1' } })
  })
  afterAll(() => app.close())

  it('answer 200 without a token, outside the rate limit, the liveness probe asking nothing of the engine', async () => {
    const before = app.engine.calls.length
    for (let i = 0; i < 3; i++) {
      const live = await app.fetch('/v1/health/live')
      expect(live.status).toBe(200)
      expect(await live.json()).toEqual({ status: 'live', uptime: expect.any(Number) })
      expect(live.headers.get('ratelimit-limit')).toBeNull()
    }
    expect(app.engine.calls.length).toBe(before)
    for (let i = 0; i < 3; i++) {
      const ready = await app.fetch('/v1/health/ready')
      expect(ready.status).toBe(200)
      expect(await ready.json()).toEqual({ status: 'ready' })
      expect(ready.headers.get('ratelimit-limit')).toBeNull()
    }
    // another route is counted: the second is over the limit of 1
    expect((await app.fetch('/v1/simulations/sim_00000000-0000-4000-8000-0000000000aa', authed())).status).toBe(404)
    expect((await app.fetch('/v1/simulations/sim_00000000-0000-4000-8000-0000000000aa', authed())).status).toBe(429)
    expect((await app.fetch('/v1/health/ready')).status).toBe(200)
  })

  it('ready: 503 naming the upstream, the cache store, or both', async () => {
    const healthy = app.engine.healthState
    try {
      app.engine.healthState = { ...healthy, upstreamOk: false }
      let res = await app.fetch('/v1/health/ready')
      expect(res.status).toBe(503)
      expect(await res.json()).toEqual({ status: 'not-ready', missing: ['upstream'] })
      app.engine.healthState = { ...healthy, cacheOk: false }
      res = await app.fetch('/v1/health/ready')
      expect(await res.json()).toEqual({ status: 'not-ready', missing: ['cache'] })
      app.engine.healthState = { ...healthy, upstreamOk: false, cacheOk: false }
      res = await app.fetch('/v1/health/ready')
      expect(await res.json()).toEqual({ status: 'not-ready', missing: ['upstream', 'cache'] })
      // liveness does not care
      expect((await app.fetch('/v1/health/live')).status).toBe(200)
    } finally {
      app.engine.healthState = healthy
    }
  })

  it('ready: 503 engine when the engine cannot answer its health check', async () => {
    const engine = createTestEngine()
    engine.answer('health', async () => {
      throw new Error('no simulation worker is ready')
    })
    const failing = await startTestApp({ engine })
    try {
      const res = await failing.fetch('/v1/health/ready')
      expect(res.status).toBe(503)
      expect(await res.json()).toEqual({ status: 'not-ready', missing: ['engine'] })
    } finally {
      await failing.close()
    }
  })

  it('ready: 503 engine when no engine thread is up (a pool whose workers are all being replaced)', async () => {
    const engine = Object.assign(createTestEngine(), { runs: () => ({ queued: 0, inFlight: 0, engines: 0, replacements: { crash: 1, timeout: 0 } }) })
    const down = await startTestApp({ engine })
    try {
      const res = await down.fetch('/v1/health/ready')
      expect(res.status).toBe(503)
      expect(await res.json()).toEqual({ status: 'not-ready', missing: ['engine'] })
    } finally {
      await down.close()
    }
  })
})

describe('readiness of named chains', () => {
  it("/v1/chains/{name}/health/ready answers that chain's readiness, without a token; the unprefixed one the default chain's", async () => {
    const main = createTestEngine()
    const second = createTestEngine()
    second.healthState = { ...second.healthState, upstreamOk: false }
    const chains = createChainSet(main, { second: second as Engine })
    const app = await startTestApp({ engine: main, chains })
    try {
      expect((await app.fetch('/v1/health/ready')).status).toBe(200)
      const named = await app.fetch('/v1/chains/second/health/ready')
      expect(named.status).toBe(503)
      expect(await named.json()).toEqual({ status: 'not-ready', missing: ['upstream'] })
      expect((await app.fetch('/v1/chains/second/v1/health/ready')).status).toBe(503)
      expect((await app.fetch('/v1/chains/second/health/live')).status).toBe(200)
      expect((await app.fetch('/v1/chains/nowhere/health/ready')).status).toBe(404)
    } finally {
      await app.close()
    }
  })
})

describe('a draining app', () => {
  const drain = createDrainFlag()
  let app: TestApp
  beforeAll(async () => {
    app = await startTestApp({ drain })
    drain.draining = true
  })
  afterAll(() => app.close())

  it('ready: 503 draining at once, asking nothing; live: 200', async () => {
    const before = app.engine.calls.length
    const res = await app.fetch('/v1/health/ready')
    expect(res.status).toBe(503)
    expect(await res.json()).toEqual({ status: 'not-ready', missing: ['draining'] })
    expect(app.engine.calls.length).toBe(before)
    expect((await app.fetch('/v1/health/live')).status).toBe(200)
  })

  it('answers every other request 503 SERVICE_DRAINING with Retry-After, before it runs; JSON-RPC as a JSON-RPC error', async () => {
    const before = app.engine.calls.length
    const res = await app.fetch('/v1/trace/call', post({ call: { to: '0x5fbdb2315678afecb367f032d93f642f64180aa3' } }))
    expect(res.status).toBe(503)
    expect(res.headers.get('retry-after')).toBe('1')
    expect((await res.json()).error.code).toBe('SERVICE_DRAINING')
    const rpc = await app.fetch('/v1/rpc', post({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }))
    expect(rpc.status).toBe(503)
    expect((await rpc.json()).error).toMatchObject({ message: 'this instance is stopping' })
    expect(app.engine.calls.length).toBe(before)
  })
})
