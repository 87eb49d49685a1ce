/**
 * POST /v1/forks reads its body as every REST route does (src/normalize/parseBody.ts), with one
 * difference: every field is optional, so an empty body is a fork of the latest block. What the
 * route hands the engine, and each refusal's status and message, over the test engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ForkInfo } from '../../../engine/types.js'
import { MAX_JSON_DEPTH } from '../../../src/normalize/jsonShape.js'
import { post, startTestApp, testToken, type TestApp } from '../support/startTestApp.js'

const fork: ForkInfo = {
  forkId: 'fork_00000000-0000-4000-8000-000000000001',
  chainId: 31337,
  forkBlockNumber: '0x6',
  headBlockNumber: '0x6',
  createdAt: '2025-01-01T00:00:00.000Z',
  expiresAt: '2025-01-01T01:00:00.000Z',
  label: null,
  transactionCount: 0,
}

let app: TestApp
beforeAll(async () => {
  app = await startTestApp()
  app.engine.answer('createFork', async (p) => ({ ...fork, label: p.label ?? null }))
})
afterAll(async () => app?.close())

const create = (body: string | undefined, headers: Record<string, string> = {}) =>
  app.fetch('/v1/forks', {
    method: 'POST',
    headers: { authorization: `Bearer ${testToken}`, ...headers },
    ...(body !== undefined && { body }),
  })

describe('POST /v1/forks', () => {
  it('creates a fork of the latest block from no body, an empty one or whitespace', async () => {
    for (const body of [undefined, '', '  \n\t', '{}']) {
      const res = await create(body, body === undefined ? {} : { 'content-type': 'application/json' })
      expect(res.status, JSON.stringify(body)).toBe(201)
      const data = (await res.json()).data
      expect(data).toMatchObject({ forkId: fork.forkId, rpcUrl: `${app.url}/v1/forks/${fork.forkId}/rpc` })
      expect(data.transactionCount).toBeUndefined()
      expect(app.engine.last('createFork')).toEqual([{}])
    }
  })

  it('hands the engine what the body names', async () => {
    const res = await app.fetch('/v1/forks', post({ blockNumber: '0x4', ttlSeconds: 600, label: 'ci' }))
    expect(res.status).toBe(201)
    expect((await res.json()).data.label).toBe('ci')
    expect(app.engine.last('createFork')).toEqual([{ blockNumber: 4n, ttlSeconds: 600, label: 'ci' }])
  })

  it('refuses malformed JSON with 400 VALIDATION_ERROR naming it', async () => {
    const res = await app.fetch('/v1/forks', post('{"label": '))
    expect(res.status).toBe(400)
    const body = await res.json()
    expect(body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } })
    expect(body.error.message).toMatch(/malformed JSON/)
    expect(body.error.details.issues).toEqual([{ path: '', message: expect.stringMatching(/^malformed JSON: /) }])
  })

  it('refuses what every REST body refuses: too deep, a __proto__ key, an unknown key, a bad field', async () => {
    const deep = `{"label":${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}}`
    const cases: [string, string, string][] = [
      [deep, '', `the body is nested more than ${MAX_JSON_DEPTH} levels deep`],
      ['{"__proto__": {"label": "x"}}', '__proto__', 'key "__proto__" is not accepted'],
      ['{"extra": 1}', 'extra', 'unknown key "extra"'],
    ]
    for (const [text, path, message] of cases) {
      const res = await app.fetch('/v1/forks', post(text))
      expect(res.status, text.slice(0, 30)).toBe(400)
      const body = await res.json()
      expect(body.error.code).toBe('VALIDATION_ERROR')
      expect(body.error.details.issues[0]).toEqual({ path, message })
    }
    for (const body of [{ blockTag: 'pending' }, { ttlSeconds: 0 }, { blockNumber: '0x4', blockTag: 'latest' }, [], 'x', null]) {
      const res = await app.fetch('/v1/forks', post(JSON.stringify(body)))
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect((await res.json()).error.code).toBe('VALIDATION_ERROR')
    }
  })
})
