import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../config/loadConfig.js'
import { createMemoryCacheStore } from '../../host/cache/memoryCacheStore.js'
import { createApp } from '../../src/app.js'
import { createLogger } from '../../src/logger.js'
import { createDrainFlag, listen, type Listening } from '../../host/server.js'
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

describe('drain', () => {
  const start = async () => {
    const engine = createTestEngine()
    const drain = createDrainFlag()
    const config = loadConfig({ env: { APP_ENV: 'test' } })
    const logger = createLogger({ level: 'silent', secrets: [], destination: new Writable({ write: (_c, _e, done) => done() }) })
    const server = await listen(createApp({ config, engine, cache: createMemoryCacheStore(), logger, drain }), { host: '127.0.0.1', port: 0, drain })
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
    return { server, drain, release, inFlight }
  }

  it('keeps accepting while the request in flight runs: readiness 503, its answer says Connection: close, then closes', async () => {
    const { server, drain, release, inFlight } = await start()
    const drained = server.drain(30_000)
    expect(drain.draining).toBe(true)
    const ready = await fetch(`${server.url}/v1/health/ready`)
    expect([ready.status, await ready.json()]).toEqual([503, { status: 'not-ready', missing: ['draining'] }])
    expect(ready.headers.get('connection')).toBe('close')
    release()
    const res = await inFlight
    expect(res.status).toBe(200)
    expect(res.headers.get('connection')).toBe('close')
    await res.json()
    expect(await drained).toEqual({ cut: 0 })
    await expect(fetch(`${server.url}/v1/health/live`)).rejects.toThrow()
  })

  it('cuts what is still in flight when the grace passes, and says how many', async () => {
    const { server, release, inFlight } = await start()
    const cutOff = inFlight.catch((e: unknown) => e)
    expect(await server.drain(200)).toEqual({ cut: 1 })
    expect(await cutOff).toBeInstanceOf(Error)
    release()
  })
})
