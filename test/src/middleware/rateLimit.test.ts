import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { authed, startTestApp, type TestApp } from '../support/startTestApp.js'

const path = '/v1/simulations/sim_00000000-0000-4000-8000-0000000000aa'

describe('per-IP rate limit, socket address (trust_proxy = 0)', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startTestApp({ env: { RATE_LIMIT_REQUESTS: '3', RATE_LIMIT_DURATION: '60' } })
  })
  afterAll(() => app.close())

  it('counts requests, then answers 429 with Retry-After and RateLimit-* headers', async () => {
    const remaining: string[] = []
    for (let i = 0; i < 3; i++) {
      const res = await app.fetch(path, authed())
      expect(res.status).toBe(404)
      expect(res.headers.get('ratelimit-limit')).toBe('3')
      remaining.push(res.headers.get('ratelimit-remaining')!)
    }
    expect(remaining).toEqual(['2', '1', '0'])
    const limited = await app.fetch(path, authed())
    expect(limited.status).toBe(429)
    const body = await limited.json()
    expect(body).toMatchObject({ success: false, error: { code: 'RATE_LIMIT_EXCEEDED' } })
    expect(body.error.suggestion).toMatch(/retry after/)
    const retryAfter = Number(limited.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(limited.headers.get('ratelimit-remaining')).toBe('0')
    expect(Number(limited.headers.get('ratelimit-reset'))).toBeLessThanOrEqual(60)
    expect(limited.headers.get('x-request-id')).toBeTruthy()
  })

  it('a client cannot escape by sending its own X-Forwarded-For', async () => {
    const res = await app.fetch(path, authed({ 'x-forwarded-for': '203.0.113.77' }))
    expect(res.status).toBe(429)
  })

  it('health is exempt', async () => {
    const res = await app.fetch('/v1/health')
    expect(res.status).toBe(200)
    expect(res.headers.get('ratelimit-limit')).toBeNull()
  })

  it("the viewer's and the explorer's pages and files are exempt; the API stays limited", async () => {
    for (const page of ['/v1/ui', '/v1/ui/assets/app.js', '/v1/ui/assets/viewer.css', '/v1/openapi/docs']) {
      const res = await app.fetch(page)
      expect(res.status, page).toBe(200)
      expect(res.headers.get('ratelimit-limit'), page).toBeNull()
    }
    expect((await app.fetch(path, authed())).status).toBe(429)
  })
})

describe('per-IP rate limit behind trusted proxies', () => {
  let one: TestApp
  let two: TestApp
  beforeAll(async () => {
    one = await startTestApp({ env: { RATE_LIMIT_REQUESTS: '2', TRUST_PROXY: '1' } })
    two = await startTestApp({ env: { RATE_LIMIT_REQUESTS: '2', TRUST_PROXY: '2' } })
  })
  afterAll(async () => {
    await one.close()
    await two.close()
  })

  const hit = (app: TestApp, xff: string) => app.fetch(path, authed({ 'x-forwarded-for': xff })).then((r) => r.status)

  it('trust_proxy = 1: the rightmost X-Forwarded-For entry is the client; spoofed left entries do not matter', async () => {
    expect(await hit(one, '198.51.100.1')).toBe(404)
    expect(await hit(one, '10.9.9.9, 198.51.100.1')).toBe(404)
    expect(await hit(one, '10.1.1.1, 198.51.100.1')).toBe(429)
    // another client behind the same proxy has its own bucket
    expect(await hit(one, '198.51.100.2')).toBe(404)
  })

  it('trust_proxy = 2: the second entry from the right is the client', async () => {
    expect(await hit(two, '192.0.2.5, 10.0.0.1')).toBe(404)
    expect(await hit(two, 'spoof, 192.0.2.5, 10.0.0.2')).toBe(404)
    expect(await hit(two, '192.0.2.5, 10.0.0.3')).toBe(429)
    expect(await hit(two, '192.0.2.6, 10.0.0.1')).toBe(404)
  })
})

describe('rate limit shared through the cache store', () => {
  it('two instances on one store share one limit', async () => {
    const cache = createMemoryCacheStore()
    const a = await startTestApp({ cache, env: { RATE_LIMIT_REQUESTS: '2' } })
    const b = await startTestApp({ cache, env: { RATE_LIMIT_REQUESTS: '2' } })
    try {
      expect((await a.fetch(path, authed())).status).toBe(404)
      expect((await b.fetch(path, authed())).status).toBe(404)
      expect((await a.fetch(path, authed())).status).toBe(429)
      expect((await b.fetch(path, authed())).status).toBe(429)
    } finally {
      await a.close()
      await b.close()
    }
  })
})
