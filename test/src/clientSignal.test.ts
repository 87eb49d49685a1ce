/**
 * A request's client going away, read from Node's response (src/clientSignal.ts), over a real
 * HTTP server: a client that aborts before its answer makes the signal aborted and calls its
 * listeners; an answered request never does; a listener removed is not called; a request that
 * did not come through Node's server answers with its own signal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Hono } from 'hono'
import { clientSignal, type ClientSignal } from '../../src/clientSignal.js'
import type { HttpEnv } from '../../src/httpEnv.js'
import { listen, type Listening } from '../../host/server.js'

const seen: { signal: ClientSignal; calls: number; removedCalls: number }[] = []
let release: () => void = () => {}

const app = new Hono<HttpEnv>()
app.post('/wait', async (c) => {
  const signal = clientSignal(c)
  const entry = { signal, calls: 0, removedCalls: 0 }
  seen.push(entry)
  signal.addEventListener('abort', () => entry.calls++, { once: true })
  const removed = () => entry.removedCalls++
  signal.addEventListener('abort', removed)
  signal.removeEventListener('abort', removed)
  await new Promise<void>((resolve) => (release = resolve))
  return c.json({ ok: true })
})

describe('clientSignal', () => {
  let server: Listening
  beforeAll(async () => {
    server = await listen(app, { host: '127.0.0.1', port: 0 })
  })
  afterAll(async () => {
    release()
    await server.close(1000)
  })

  const until = async (what: () => boolean) => {
    for (let i = 0; i < 200 && !what(); i++) await new Promise((r) => setTimeout(r, 10))
  }

  it('is aborted, and calls its listeners, once the client goes away before its answer', async () => {
    seen.length = 0
    const client = new AbortController()
    const sent = fetch(`${server.url}/wait`, { method: 'POST', body: '{}', signal: client.signal }).catch(() => 'aborted')
    await until(() => seen.length === 1)
    expect(seen[0]!.signal.aborted).toBe(false)
    client.abort()
    expect(await sent).toBe('aborted')
    await until(() => seen[0]!.calls > 0)
    expect(seen[0]!.signal.aborted).toBe(true)
    expect(seen[0]!.calls).toBe(1)
    expect(seen[0]!.removedCalls).toBe(0)
    release()
  })

  it('stays unaborted for a request that was answered', async () => {
    seen.length = 0
    const sent = fetch(`${server.url}/wait`, { method: 'POST', body: '{}' })
    await until(() => seen.length === 1)
    release()
    expect(await (await sent).json()).toEqual({ ok: true })
    await new Promise((r) => setTimeout(r, 50))
    expect(seen[0]!.signal.aborted).toBe(false)
    expect(seen[0]!.calls).toBe(0)
  })

  it("answers with the request's own signal outside Node's server", async () => {
    const local = new Hono<HttpEnv>()
    let signal: ClientSignal | undefined
    local.get('/', (c) => {
      signal = clientSignal(c)
      return c.text('ok')
    })
    await local.request('/')
    expect(signal).toBeInstanceOf(AbortSignal)
  })
})
