import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EngineError } from '../../../engine/platform/errors.js'
import { post, startTestApp, authed, type TestApp } from '../support/startTestApp.js'

const from = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const to = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
const rpcUrl = 'https://eth.example.org/v3/super-secret-key-123'

describe('failure envelope and status codes', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startTestApp({ env: { MAX_BODY_BYTES: '2000', RPC_URL: rpcUrl, REQUEST_TIMEOUT_MS: '300' } })
  })
  afterAll(() => app.close())

  it('malformed JSON: 400 VALIDATION_ERROR', async () => {
    const res = await app.fetch('/v1/simulate', post('{"params": {'))
    expect(res.status).toBe(400)
    const body = await res.json()
    expect(body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } })
    expect(body.error.message).toMatch(/malformed JSON/)
    expect(body.error.details.issues).toHaveLength(1)
  })

  it('empty body: 400 VALIDATION_ERROR', async () => {
    const res = await app.fetch('/v1/trace/call', post(''))
    expect(res.status).toBe(400)
    expect((await res.json()).error.code).toBe('VALIDATION_ERROR')
  })

  it('schema violation names the path of the bad field', async () => {
    const res = await app.fetch(
      '/v1/simulate',
      post({
        params: {
          calls: [
            { from, to },
            { from, to: '0x1234' },
          ],
        },
      }),
    )
    expect(res.status).toBe(400)
    const body = await res.json()
    expect(body.error.code).toBe('VALIDATION_ERROR')
    expect(body.error.details.issues).toEqual([{ path: 'params.calls[1].to', message: expect.stringMatching(/address/) }])
    expect(body.error.message).toContain('params.calls[1].to')
  })

  it('a wrongly typed known field is a VALIDATION_ERROR; unknown top-level fields are ignored', async () => {
    const typed = await app.fetch('/v1/simulate', post({ params: { calls: [{ from, to }], validation: 'yes' } }))
    expect((await typed.json()).error.details.issues[0].path).toBe('params.validation')
    const extra = await app.fetch('/v1/simulate', post({ params: { calls: [{ from, to }] }, somethingElse: 1 }))
    expect(extra.status).toBe(200)
  })

  it('unknown route: 404 NOT_FOUND in the envelope', async () => {
    const res = await app.fetch('/v1/nope', authed())
    expect(res.status).toBe(404)
    expect(await res.json()).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } })
    const noVersion = await app.fetch('/simulate', post({}))
    expect(noVersion.status).toBe(404)
  })

  it('body over max_body_bytes: 413 PAYLOAD_TOO_LARGE (with and without Content-Length)', async () => {
    const big = { params: { calls: [{ from, to, data: `0x${'00'.repeat(2000)}` }] } }
    const res = await app.fetch('/v1/simulate', post(big))
    expect(res.status).toBe(413)
    expect((await res.json()).error.code).toBe('PAYLOAD_TOO_LARGE')

    const text = JSON.stringify(big)
    const stream = new ReadableStream({
      start(ctrl) {
        ctrl.enqueue(new TextEncoder().encode(text.slice(0, 1500)))
        ctrl.enqueue(new TextEncoder().encode(text.slice(1500)))
        ctrl.close()
      },
    })
    const chunked = await app.fetch('/v1/simulate', { ...post(''), body: stream, duplex: 'half' } as RequestInit)
    expect(chunked.status).toBe(413)
    expect((await chunked.json()).error.code).toBe('PAYLOAD_TOO_LARGE')
  })

  it('413 on a keep-alive connection says Connection: close, and the connection is closed after it', async () => {
    const { connect } = await import('node:net')
    const url = new URL(app.url)
    const socket = connect(Number(url.port), '127.0.0.1')
    let raw = ''
    socket.on('data', (d) => (raw += String(d)))
    const closed = new Promise<void>((r) => socket.on('close', () => r()))
    // the head says 5000 bytes, a part follows: the server answers before reading the rest
    socket.write(
      `POST /v1/simulate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${app.config.api.auth_token}\r\n` +
        `Content-Length: 5000\r\nConnection: keep-alive\r\n\r\n${'x'.repeat(100)}`,
    )
    await closed
    const head = raw.split('\r\n\r\n')[0]!.toLowerCase()
    expect(head).toMatch(/^http\/1\.1 413 /)
    expect(head).toContain('connection: close')
    expect(head).not.toContain('keep-alive')
    // a fetch that reuses connections gets its next answer on a fresh one
    const big = { params: { calls: [{ from, to, data: `0x${'00'.repeat(2000)}` }] } }
    expect((await app.fetch('/v1/simulate', post(big))).headers.get('connection')).toBe('close')
    expect((await app.fetch('/v1/simulate', post({ params: { calls: [{ from, to }] } }))).status).not.toBe(413)
  })

  it('a non-JSON content type: 415 with code VALIDATION_ERROR', async () => {
    const res = await app.fetch('/v1/simulate', post('params=1', { headers: { 'content-type': 'application/x-www-form-urlencoded' } }))
    expect(res.status).toBe(415)
    const body = await res.json()
    expect(body.error.code).toBe('VALIDATION_ERROR')
    expect(body.error.suggestion).toContain('application/json')
    const ok = await app.fetch('/v1/simulate', post({ params: { calls: [{ from, to }] } }, { headers: { 'content-type': 'application/json; charset=utf-8' } }))
    expect(ok.status).toBe(200)
  })

  it('handler exception: 500 INTERNAL_ERROR, generic message, no stack, logged with the request id', async () => {
    app.engine.answer('traceCall', async () => {
      throw new TypeError(`cannot read properties of undefined (upstream ${rpcUrl})`)
    })
    const res = await app.fetch('/v1/trace/call', post({ call: { from, to } }, { headers: { 'x-request-id': 'req-500-test' } }))
    expect(res.status).toBe(500)
    const text = await res.text()
    const body = JSON.parse(text)
    expect(body).toEqual({ success: false, error: { code: 'INTERNAL_ERROR', message: expect.any(String) } })
    expect(text).not.toMatch(/TypeError|cannot read|at .*\.ts|super-secret/)
    const logged = app.logs.find((l) => l.requestId === 'req-500-test' && l.err)
    expect(logged).toBeDefined()
    expect(JSON.stringify(logged)).toContain('TypeError')
    expect(app.rawLogs()).not.toContain('super-secret-key')
  })

  it('an engine INTERNAL_ERROR leaves with the generic message only; a look-alike EngineError is recognised', async () => {
    app.engine.answer('traceCall', async () => {
      throw new EngineError('INTERNAL_ERROR', 'cannot pass the request to a worker: DataCloneError', { worker: 3 })
    })
    const res = await app.fetch('/v1/trace/call', post({ call: { from, to } }))
    expect(res.status).toBe(500)
    const body = await res.json()
    expect(body.error).toEqual({ code: 'INTERNAL_ERROR', message: expect.stringMatching(/^internal error/) })

    // an EngineError rebuilt elsewhere (another copy of the class, a worker boundary)
    app.engine.answer('traceCall', async () => {
      throw Object.assign(new Error('block 0x99 is beyond the head'), { name: 'EngineError', code: 'BLOCK_NOT_FOUND' })
    })
    const lookalike = await app.fetch('/v1/trace/call', post({ call: { from, to } }))
    expect(lookalike.status).toBe(404)
    expect((await lookalike.json()).error).toMatchObject({ code: 'BLOCK_NOT_FOUND', message: 'block 0x99 is beyond the head' })
  })

  it('engine error codes map to their statuses; the RPC URL never leaks', async () => {
    const cases: [string, number][] = [
      ['BLOCK_NOT_FOUND', 404],
      ['TRANSACTION_NOT_FOUND', 404],
      ['STATE_ACCESS_ERROR', 502],
      ['EXECUTION_TIMEOUT', 504],
      ['INSUFFICIENT_GAS', 422],
      ['VALIDATION_ERROR', 400],
    ]
    for (const [code, status] of cases) {
      app.engine.answer('traceCall', async () => {
        throw new EngineError(code as never, `failed talking to ${rpcUrl}`, { url: rpcUrl }, 'retry')
      })
      const res = await app.fetch('/v1/trace/call', post({ call: { from, to } }))
      expect(res.status, code).toBe(status)
      const text = await res.text()
      expect(JSON.parse(text).error).toMatchObject({ code, suggestion: 'retry' })
      expect(text).not.toContain('super-secret-key')
    }
  })

  it('request_timeout_ms: 504 EXECUTION_TIMEOUT', async () => {
    app.engine.answer('traceCall', () => new Promise((resolve) => setTimeout(() => resolve({}), 2000)))
    const res = await app.fetch('/v1/trace/call', post({ call: { from, to } }))
    expect(res.status).toBe(504)
    expect((await res.json()).error.code).toBe('EXECUTION_TIMEOUT')
  })

  it('X-Request-Id on every response: echoed when sane, generated otherwise', async () => {
    const echoed = await app.fetch('/v1/health', { headers: { 'x-request-id': 'abc-123' } })
    expect(echoed.headers.get('x-request-id')).toBe('abc-123')
    const insane = await app.fetch('/v1/health', { headers: { 'x-request-id': 'bad id\twith spaces' } })
    expect(insane.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    const generated = await app.fetch('/v1/nope')
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    const error = await app.fetch('/v1/simulate', post('{', { headers: { 'x-request-id': 'err-1' } }))
    expect(error.headers.get('x-request-id')).toBe('err-1')
  })

  it('logs one JSON line per request with id, method, path, status and duration', async () => {
    await app.fetch('/v1/health?x=1', { headers: { 'x-request-id': 'log-line-1' } })
    const line = app.logs.find((l) => l.requestId === 'log-line-1' && l.msg === 'request')
    expect(line).toMatchObject({ method: 'GET', path: '/v1/health', status: 200 })
    expect(typeof line!.durationMs).toBe('number')
  })
})
