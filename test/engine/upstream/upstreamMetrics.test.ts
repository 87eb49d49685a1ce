/**
 * What the RpcClient counts per upstream call, against a real local HTTP server: ok, an error
 * answer or a refused connection as `error`, a node that never answers or a spent budget as
 * `timeout`; durations in the histogram's buckets; one count per call, a batch's calls each.
 */
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRpcClient } from '../../../engine/upstream/rpcClient.js'
import { newUpstreamBudget } from '../../../engine/upstream/upstreamBudget.js'
import { UPSTREAM_DURATION_BUCKETS, UpstreamMetrics, addUpstreamCounts } from '../../../engine/upstream/upstreamMetrics.js'

let server: Server
let port: number
/** how the server answers: `ok`, a JSON-RPC `error`, or `hang` (never a byte) */
let mode: 'ok' | 'error' | 'hang' = 'ok'

beforeAll(async () => {
  server = createServer((req, res: ServerResponse) => {
    let text = ''
    req.on('data', (d: Buffer) => (text += d.toString()))
    req.on('end', () => {
      if (mode === 'hang') return
      const body = JSON.parse(text) as { id: number } | { id: number }[]
      const one = (c: { id: number }) =>
        mode === 'ok' ? { jsonrpc: '2.0', id: c.id, result: '0x1' } : { jsonrpc: '2.0', id: c.id, error: { code: -32000, message: 'nope' } }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(Array.isArray(body) ? body.map(one) : one(body)))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  port = (server.address() as AddressInfo).port
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
})

describe('upstream call metrics', () => {
  it('counts each call by method and outcome', async () => {
    const rpc = createRpcClient({ url: `http://127.0.0.1:${port}/key/sk_live_x`, timeoutMs: 5_000, retries: 0 })
    mode = 'ok'
    // one batch of three calls: three counts, one HTTP request
    await Promise.all([rpc.request('eth_getBalance'), rpc.request('eth_getBalance'), rpc.request('eth_getCode')])
    expect(rpc.stats.httpRequests).toBe(1)
    mode = 'error'
    await expect(rpc.request('eth_getCode')).rejects.toMatchObject({ code: 'STATE_ACCESS_ERROR' })
    // a budget already spent: out of time without asking
    await expect(rpc.request('eth_getStorageAt', [], { budget: { deadline: Date.now() - 1, ms: 10 } })).rejects.toMatchObject({ code: 'STATE_ACCESS_ERROR' })
    const m = rpc.metrics.snapshot()
    expect(m.eth_getBalance).toMatchObject({ ok: 2, error: 0, timeout: 0 })
    expect(m.eth_getCode).toMatchObject({ ok: 1, error: 1, timeout: 0 })
    expect(m.eth_getStorageAt).toMatchObject({ ok: 0, error: 0, timeout: 1 })
    rpc.close()

    mode = 'hang'
    const short = createRpcClient({ url: `http://127.0.0.1:${port}`, timeoutMs: 300, retries: 0 })
    await expect(short.request('eth_getStorageAt')).rejects.toMatchObject({ code: 'STATE_ACCESS_ERROR' })
    await expect(short.request('eth_getStorageAt', [], { budget: { deadline: Date.now() - 1, ms: 10 } })).rejects.toMatchObject({ code: 'STATE_ACCESS_ERROR' })
    // the hung call waited out the attempt's timeout: it sits in a bucket above 0.25 s
    const hung = short.metrics.snapshot().eth_getStorageAt!
    expect(hung).toMatchObject({ ok: 0, error: 0, timeout: 2 })
    expect(hung.sum).toBeGreaterThanOrEqual(0.25)
    expect(hung.buckets.reduce((a, b) => a + b, 0)).toBe(2)
    expect(hung.buckets.slice(UPSTREAM_DURATION_BUCKETS.indexOf(0.25) + 1).reduce((a, b) => a + b, 0)).toBe(1)
    short.close()
    mode = 'ok'
  }, 20_000)

  it('counts a refused connection as an error, and a node stalled as a timeout', async () => {
    const closed = createServer()
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r))
    const deadPort = (closed.address() as AddressInfo).port
    await new Promise((r) => closed.close(r))
    const refused = createRpcClient({ url: `http://127.0.0.1:${deadPort}`, timeoutMs: 300, retries: 0 })
    await expect(refused.request('eth_blockNumber')).rejects.toMatchObject({ code: 'STATE_ACCESS_ERROR' })
    expect(refused.metrics.snapshot().eth_blockNumber).toMatchObject({ ok: 0, error: 1, timeout: 0 })

    mode = 'hang'
    const rpc = createRpcClient({ url: `http://127.0.0.1:${port}`, timeoutMs: 300, retries: 0 })
    await expect(rpc.request('eth_chainId', [], { budget: newUpstreamBudget(2_000) })).rejects.toMatchObject({ code: 'STATE_ACCESS_ERROR' })
    // stalled now: the next call is refused at once, as a timeout of the node
    await expect(rpc.request('eth_chainId', [], { budget: newUpstreamBudget(2_000) })).rejects.toMatchObject({ details: { stalled: true } })
    expect(rpc.metrics.snapshot().eth_chainId).toMatchObject({ ok: 0, error: 0, timeout: 2 })
    rpc.close()
    mode = 'ok'
  }, 20_000)

  it("adds two engines' counts method by method", () => {
    const a = new UpstreamMetrics()
    const b = new UpstreamMetrics()
    a.record('eth_getBalance', 'ok', 0.001)
    b.record('eth_getBalance', 'timeout', 20)
    b.record('eth_getCode', 'error', 0.3)
    const sum = addUpstreamCounts(a.snapshot(), b.snapshot())
    expect(sum.eth_getBalance).toMatchObject({ ok: 1, timeout: 1, sum: 20.001 })
    expect(sum.eth_getBalance!.buckets[0]).toBe(1)
    expect(sum.eth_getBalance!.buckets[UPSTREAM_DURATION_BUCKETS.indexOf(30)]).toBe(1)
    expect(sum.eth_getCode).toMatchObject({ error: 1 })
    // a snapshot is a copy
    expect(a.snapshot().eth_getBalance!.ok).toBe(1)
  })
})
