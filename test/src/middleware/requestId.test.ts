/**
 * X-Request-Id (src/middleware/requestId.ts, hono's request-id middleware): the caller's id kept
 * when it is 1–128 of letters, digits, `_`, `-`, `=`, else a fresh UUID; the same id in
 * `c.get('requestId')`; the header on every answer, one built outside the context and an error
 * included.
 */
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import type { HttpEnv } from '../../../src/httpEnv.js'
import { requestId } from '../../../src/middleware/requestId.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

const app = new Hono<HttpEnv>()
app.use(requestId())
app.get('/seen', (c) => c.json({ seen: c.get('requestId') }))
// an answer the route builds itself, not through the context (as the fork REST routes' inner app)
app.get('/raw', () => new Response('raw', { status: 202 }))
app.get('/throws', () => {
  throw new Error('boom')
})
app.onError((_err, c) => c.json({ failed: true }, 500))

const get = (path: string, id?: string) => app.request(path, id === undefined ? {} : { headers: { 'x-request-id': id } })

describe('requestId', () => {
  it("keeps a sane caller's id, in the header and in c.get('requestId')", async () => {
    for (const id of ['abc-123', 'req_500_test', 'Root=1-5759e988-bd862e3fe1be46a9', 'a', 'x'.repeat(128)]) {
      const res = await get('/seen', id)
      expect(res.headers.get('x-request-id')).toBe(id)
      expect(await res.json()).toEqual({ seen: id })
    }
  })

  it('makes a fresh UUID when none is sent, or the one sent is empty, too long or has other characters', async () => {
    for (const id of [undefined, '', 'x'.repeat(129), 'bad id\twith spaces', 'a"b', 'a/b', 'trace.1', 'host:1', 'é']) {
      const res = await get('/seen', id)
      const header = res.headers.get('x-request-id')
      expect(header, JSON.stringify(id)).toMatch(UUID)
      expect(await res.json()).toEqual({ seen: header })
    }
    expect((await get('/seen')).headers.get('x-request-id')).not.toBe((await get('/seen')).headers.get('x-request-id'))
  })

  it('sets the header on an answer built outside the context and on an error', async () => {
    const raw = await get('/raw', 'raw-1')
    expect(raw.status).toBe(202)
    expect(raw.headers.get('x-request-id')).toBe('raw-1')
    expect((await get('/raw')).headers.get('x-request-id')).toMatch(UUID)
    const failed = await get('/throws', 'err-1')
    expect(failed.status).toBe(500)
    expect(failed.headers.get('x-request-id')).toBe('err-1')
    const missing = await get('/nowhere', 'nf-1')
    expect(missing.status).toBe(404)
    expect(missing.headers.get('x-request-id')).toBe('nf-1')
  })
})
