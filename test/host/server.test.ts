import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../config/loadConfig.js'
import { createMemoryCacheStore } from '../../host/cache/memoryCacheStore.js'
import { createApp } from '../../src/app.js'
import { createLogger } from '../../src/logger.js'
import { listen, type Listening } from '../../host/server.js'
import { post } from '../src/support/startTestApp.js'
import { createTestEngine } from '../src/support/testEngine.js'
import { Writable } from 'node:stream'

describe('graceful stop', () => {
  const engine = createTestEngine()
  let server: Listening
  beforeAll(async () => {
    const config = loadConfig({ env: { APP_ENV: 'test' } })
    const logger = createLogger({ level: 'silent', secrets: [], destination: new Writable({ write: (_c, _e, done) => done() }) })
    server = await listen(createApp({ config, engine, cache: createMemoryCacheStore(), logger }), { host: '127.0.0.1', port: 0 })
  })
  afterAll(() => server.close(100))

  it('stops accepting, lets the in-flight request finish', async () => {
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    let started!: () => void
    const running = new Promise<void>((r) => (started = r))
    engine.answer('traceCall', async () => {
      started()
      await gate
      return { callTracer: { type: 'CALL' } }
    })
    const inFlight = fetch(`${server.url}/v1/trace/call`, post({ call: { to: '0x5fbdb2315678afecb367f032d93f642f64180aa3' } }))
    await running
    const closed = server.close(30_000)
    await expect(fetch(`${server.url}/v1/health`, { headers: { connection: 'close' } })).rejects.toThrow()
    release()
    const res = await inFlight
    expect(res.status).toBe(200)
    expect(((await res.json()) as { data: { callTracer: { type: string } } }).data.callTracer.type).toBe('CALL')
    await closed
  })
})
