/**
 * The JSON-RPC framing over real HTTP with the real engine on the devnet: geth's codes for every
 * malformed request, ids echoed exactly, notifications unanswered, batches answered item by item
 * and bounded by limits.max_rpc_batch, by-name params refused, sending and admin methods refused,
 * auth by header or path token (never logged, never echoed), one rate-limit count per HTTP
 * request, CORS, body size — and never an HTTP 500 or a stack trace. (The request timeout is
 * tested over the worker pool, test/src/rpc/workerPool.test.ts: an in-process engine keeps the
 * event loop busy while it computes, as the REST routes' timeout test also shows.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startRpcApp, type RpcApp } from './rpcApp.js'

let app: RpcApp
beforeAll(async () => {
  app = await startRpcApp({ env: { MAX_RPC_BATCH: '5', RATE_LIMIT_REQUESTS: '1000' } })
}, 60_000)
afterAll(async () => app?.close())

const req = (id: unknown, method: string, params?: unknown) => ({ jsonrpc: '2.0', id, method, ...(params !== undefined && { params }) })

describe('single requests', () => {
  it('echoes number, string and null ids exactly', async () => {
    for (const id of [7, 'abc-1', null, 0, 1.5]) {
      const { status, json } = await app.rpc(req(id, 'eth_chainId'))
      expect(status).toBe(200)
      expect(json).toEqual({ jsonrpc: '2.0', id, result: '0x7a69' })
    }
  })

  it('answers malformed JSON with -32700 and id null', async () => {
    for (const body of ['{bad', '', '{"jsonrpc":"2.0",']) {
      const { status, json } = await app.rpc(body)
      expect(status).toBe(200)
      expect(json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } })
    }
  })

  it('answers invalid requests with -32600', async () => {
    const invalid = [
      1,
      '"eth_chainId"',
      'null',
      { id: 1, method: 'eth_chainId' },
      { jsonrpc: '1.0', id: 1, method: 'eth_chainId' },
      { jsonrpc: '2.0', id: 1 },
      { jsonrpc: '2.0', id: 1, method: 5 },
      { jsonrpc: '2.0', id: { a: 1 }, method: 'eth_chainId' },
      { jsonrpc: '2.0', id: [1], method: 'eth_chainId' },
    ]
    for (const body of invalid) {
      const { status, json } = await app.rpc(body)
      expect(status).toBe(200)
      expect(json.error).toEqual({ code: -32600, message: 'invalid request' })
      expect(json.id).toBe(typeof (body as { id?: unknown })?.id === 'number' ? 1 : null)
    }
  })

  it('names an unknown method (-32601) and never forwards it', async () => {
    const { json } = await app.rpc(req(1, 'eth_somethingNew', []))
    expect(json.error).toEqual({ code: -32601, message: 'the method eth_somethingNew does not exist/is not available' })
  })

  it('refuses sending, signing and admin methods saying why', async () => {
    for (const m of [
      'eth_sendRawTransaction',
      'eth_sendTransaction',
      'eth_sign',
      'personal_unlockAccount',
      'admin_addPeer',
      'miner_start',
      'anvil_setBalance',
      'hardhat_mine',
      'evm_mine',
    ]) {
      const { json } = await app.rpc(req(1, m, []))
      expect(json.error.code).toBe(-32601)
      expect(json.error.message).toContain(m)
      expect(json.error.message).toContain('never sends')
    }
  })

  it('refuses by-name params and wrong param types with -32602 naming the param', async () => {
    expect((await app.rpc(req(1, 'eth_getBalance', { address: '0x0' }))).json.error).toEqual({ code: -32602, message: 'non-array args' })
    const bad = await app.rpc(req(2, 'eth_getBalance', ['0x1234', 'latest']))
    expect(bad.json.error).toEqual({ code: -32602, message: 'invalid argument 0: hex string of 20 bytes expected' })
    const badCall = await app.rpc(req(3, 'eth_call', [{ to: '0x5fbdb2315678afecb367f032d93f642f64180aa3', gas: '0x01' }]))
    expect(badCall.json.error).toEqual({ code: -32602, message: 'invalid argument 0: gas: hex number with leading zero digits' })
    const unknown = await app.rpc(req(4, 'eth_call', [{ to: '0x5fbdb2315678afecb367f032d93f642f64180aa3', dat: '0x' }]))
    expect(unknown.json.error).toEqual({ code: -32602, message: 'invalid argument 0: unknown field "dat"' })
    const many = await app.rpc(req(5, 'eth_call', [{}, 'latest', {}, {}, {}]))
    expect(many.json.error).toEqual({ code: -32602, message: 'too many arguments, want at most 4' })
    const missing = await app.rpc(req(6, 'eth_estimateGas', []))
    expect(missing.json.error).toEqual({ code: -32602, message: 'missing value for required argument 0' })
  })

  it('answers a notification with nothing', async () => {
    const { status, text } = await app.rpc({ jsonrpc: '2.0', method: 'eth_chainId' })
    expect(status).toBe(200)
    expect(text).toBe('')
  })
})

describe('batches', () => {
  it('answers each item on its own, good and bad mixed, notifications left out', async () => {
    const { status, json } = await app.rpc([
      req(1, 'eth_chainId'),
      { jsonrpc: '2.0', method: 'eth_blockNumber' },
      req('b', 'eth_nope'),
      42,
      req(3, 'eth_getBalance', ['0xzz']),
    ])
    expect(status).toBe(200)
    expect(json).toEqual([
      { jsonrpc: '2.0', id: 1, result: '0x7a69' },
      { jsonrpc: '2.0', id: 'b', error: { code: -32601, message: 'the method eth_nope does not exist/is not available' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } },
      { jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'invalid argument 0: hex string of 20 bytes expected' } },
    ])
  })

  it('answers an empty batch with -32600 empty batch', async () => {
    expect((await app.rpc([])).json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'empty batch' } })
  })

  it('answers a batch over the limit with one -32600 carrying the first id (geth)', async () => {
    const batch = [{ jsonrpc: '2.0', method: 'eth_chainId' }, ...[9, 10, 11, 12, 13].map((id) => req(id, 'eth_chainId'))]
    const { status, json } = await app.rpc(batch)
    expect(status).toBe(200)
    expect(json).toEqual([{ jsonrpc: '2.0', id: 9, error: { code: -32600, message: 'batch too large' } }])
    expect((await app.rpc(batch.slice(1))).json).toHaveLength(5)
  })

  it('answers a batch of notifications only with an empty body', async () => {
    const { status, text } = await app.rpc([
      { jsonrpc: '2.0', method: 'eth_chainId' },
      { jsonrpc: '2.0', method: 'eth_blockNumber' },
    ])
    expect(status).toBe(200)
    expect(text).toBe('')
  })
})

describe('auth, logs and CORS', () => {
  const body = req(1, 'eth_chainId')

  it('takes the token from the path (provider convention) and never logs or echoes it', async () => {
    const token = app.config.api.auth_token
    const ok = await app.rpc(body, { token: null, path: `/v1/rpc/${token}` })
    expect(ok.json.result).toBe('0x7a69')
    const wrong = await app.rpc(body, { token: null, path: '/v1/rpc/not-the-token-0000' })
    expect(wrong.status).toBe(401)
    expect(wrong.json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'the API token sent does not match' } })
    const deeper = await app.fetch(`/v1/rpc/${token}/more`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })
    const deeperText = await deeper.text()
    expect(deeper.status).toBe(404)
    expect(deeperText).not.toContain(token)
    const raw = app.rawLogs()
    expect(raw).toContain('/v1/rpc/[token]')
    expect(raw).not.toContain(token)
    expect(raw).not.toContain('not-the-token-0000')
  })

  it('answers a missing token as a JSON-RPC error with HTTP 401', async () => {
    const { status, json } = await app.rpc(body, { token: null })
    expect(status).toBe(401)
    expect(json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'this service requires an API token' } })
  })

  it('answers a CORS preflight from an allowed origin without a token', async () => {
    const res = await app.fetch('/v1/rpc', {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,authorization' },
    })
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3000')
  })

  it('answers a body that is not JSON by content type with -32600 and HTTP 415', async () => {
    const res = await app.fetch('/v1/rpc', {
      method: 'POST',
      body: 'x',
      headers: { 'content-type': 'text/xml', authorization: `Bearer ${app.config.api.auth_token}` },
    })
    expect(res.status).toBe(415)
    expect((await res.json()).error.code).toBe(-32600)
  })
})

describe('rate limit', () => {
  let limited: RpcApp
  beforeAll(async () => {
    limited = await startRpcApp({ env: { RATE_LIMIT_REQUESTS: '2' } })
  }, 60_000)
  afterAll(async () => limited?.close())

  it('counts one per HTTP request, a batch included, and answers -32005 past it', async () => {
    const batch = Array.from({ length: 10 }, (_, i) => req(i, 'eth_chainId'))
    expect((await limited.rpc(batch)).json).toHaveLength(10)
    expect((await limited.rpc(batch)).json).toHaveLength(10)
    const over = await limited.rpc(req(1, 'eth_chainId'))
    expect(over.status).toBe(429)
    expect(over.json.error.code).toBe(-32005)
    expect(over.json.id).toBeNull()
  })
})

describe('request limits', () => {
  let tight: RpcApp
  beforeAll(async () => {
    tight = await startRpcApp({ env: { MAX_BODY_BYTES: '2048' } })
  }, 60_000)
  afterAll(async () => tight?.close())

  it('answers a body over max_body_bytes with HTTP 413 and -32600', async () => {
    const { status, json } = await tight.rpc(Array.from({ length: 60 }, (_, i) => req(i, 'eth_chainId')))
    expect(status).toBe(413)
    expect(json.error).toEqual({ code: -32600, message: 'request body is larger than 2048 bytes' })
  })
})

describe('internal errors', () => {
  it('leave as -32603 without detail, logged under the request id', async () => {
    const original = app.realEngine.readChain
    app.realEngine.readChain = async () => {
      throw new TypeError('boom at /secret/path.ts:12')
    }
    try {
      const { status, json, text } = await app.rpc(req(1, 'eth_blockNumber'))
      expect(status).toBe(200)
      expect(json.error).toEqual({ code: -32603, message: 'internal error' })
      expect(text).not.toContain('boom')
      expect(app.rawLogs()).toContain('boom at /secret/path.ts:12')
    } finally {
      app.realEngine.readChain = original
    }
  })
})
