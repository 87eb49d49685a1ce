/**
 * RpcClient against real local HTTP servers that misbehave on purpose: batching per tick, retries,
 * timeouts, garbage and wrong-shape answers, all surfacing as URL-free STATE_ACCESS_ERRORs.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRpcClient, withBudget } from '../../../engine/upstream/rpcClient.js'
import { newUpstreamBudget } from '../../../engine/upstream/upstreamBudget.js'
import type { EngineError } from '../../../engine/platform/errors.js'

type Handler = (body: unknown, res: ServerResponse) => void
let server: Server
let port: number
let handler: Handler = () => undefined
const bodies: unknown[] = []
const SECRET = 'sk_live_abcdef123456'
const url = () => `http://127.0.0.1:${port}/v2/${SECRET}`

const json = (res: ServerResponse, v: unknown, status = 200) => {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(v))
}
/** answers every call of a (batch) body with `f(call)` */
const echo =
  (f: (c: { id: number; method: string; params: unknown[] }) => unknown): Handler =>
  (body, res) => {
    const calls = Array.isArray(body) ? body : [body]
    const out = calls.map((c) => ({ jsonrpc: '2.0', id: c.id, result: f(c) }))
    json(res, Array.isArray(body) ? out : out[0])
  }

const failure = async (p: Promise<unknown>) => {
  const e = (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as EngineError | undefined
  expect(e, 'expected a rejection').toBeDefined()
  expect(e!.code).toBe('STATE_ACCESS_ERROR')
  expect(e!.message).not.toContain(SECRET)
  expect(e!.message).not.toContain(String(port))
  expect(e!.message).not.toContain('127.0.0.1')
  return e!
}

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = ''
    req.on('data', (d) => (raw += String(d)))
    req.on('end', () => {
      let body: unknown
      try {
        body = JSON.parse(raw)
      } catch {
        body = raw
      }
      bodies.push(body)
      handler(body, res)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  port = (server.address() as AddressInfo).port
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
})

describe('RpcClient', () => {
  it('sends the calls of one tick as one batch and matches answers by id', async () => {
    // answer in reverse order: matching must be by id, not position
    handler = (body, res) => {
      const calls = body as { id: number; method: string }[]
      json(res, calls.map((c) => ({ jsonrpc: '2.0', id: c.id, result: c.method })).reverse())
    }
    bodies.length = 0
    const rpc = createRpcClient({ url: url(), timeoutMs: 2_000 })
    const out = await Promise.all(['a', 'b', 'c'].map((m) => rpc.request(m, [])))
    expect(out).toEqual(['a', 'b', 'c'])
    expect(rpc.stats).toEqual({ httpRequests: 1, calls: 3 })
    expect(bodies).toHaveLength(1)
    expect((bodies[0] as unknown[]).length).toBe(3)
  })

  it('splits above maxBatchSize', async () => {
    handler = echo((c) => c.params[0])
    const rpc = createRpcClient({ url: url(), timeoutMs: 2_000, maxBatchSize: 2 })
    const out = await Promise.all([1, 2, 3, 4, 5].map((i) => rpc.request('x', [i])))
    expect(out).toEqual([1, 2, 3, 4, 5])
    expect(rpc.stats.httpRequests).toBe(3)
  })

  it('retries an idempotent call after HTTP 503, not a side-effecting one', async () => {
    let n = 0
    handler = (body, res) => (n++ === 0 ? json(res, { oops: 1 }, 503) : echo(() => 'ok')(body, res))
    const rpc = createRpcClient({ url: url(), timeoutMs: 2_000, retryDelayMs: 5 })
    expect(await rpc.request('eth_getBalance', [])).toBe('ok')
    expect(rpc.stats.httpRequests).toBe(2)
    n = 0
    const e = await failure(rpc.request('eth_sendRawTransaction', [], { idempotent: false }))
    expect(e.message).toMatch(/HTTP 503/)
  })

  it('garbage JSON is a STATE_ACCESS_ERROR after bounded retries', async () => {
    handler = (_b, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('<html>not json')
    }
    const rpc = createRpcClient({ url: url(), timeoutMs: 2_000, retries: 2, retryDelayMs: 5 })
    const e = await failure(rpc.request('eth_chainId'))
    expect(e.message).toMatch(/not JSON/)
    expect(rpc.stats.httpRequests).toBe(3)
  })

  it('a wrong batch shape fails the calls it leaves unanswered', async () => {
    handler = (body, res) => {
      const calls = body as { id: number }[]
      json(res, [
        { jsonrpc: '2.0', id: calls[0]!.id, result: '0x1' },
        { jsonrpc: '2.0', id: 999_999, result: '0x2' },
      ])
    }
    const rpc = createRpcClient({ url: url(), timeoutMs: 2_000 })
    const [a, b] = [rpc.request('m1'), rpc.request('m2')]
    expect(await a).toBe('0x1')
    expect((await failure(b)).message).toMatch(/wrong batch shape/)
    // an object where a batch array was due
    handler = (_b, res) => json(res, { jsonrpc: '2.0', id: 1, result: '0x1' })
    await Promise.all([failure(rpc.request('m1')), failure(rpc.request('m2'))])
  })

  it('JSON-RPC errors are not retried and never echo the URL or key', async () => {
    handler = (body, res) => {
      const c = body as { id: number }
      json(res, { jsonrpc: '2.0', id: c.id, error: { code: -32000, message: `invalid api key ${SECRET} for ${url()}`, data: { endpoint: url() } } })
    }
    const rpc = createRpcClient({ url: url(), timeoutMs: 2_000 })
    const e = await failure(rpc.request('eth_getBalance', ['0x0', 'latest']))
    expect(e.message).toMatch(/eth_getBalance failed: invalid api key <upstream>/)
    expect(e.details).toMatchObject({ rpcCode: -32000 })
    expect(JSON.stringify(e.details)).not.toContain(SECRET)
    expect(rpc.stats.httpRequests).toBe(1)
    // a batch refused as a whole
    handler = (_b, res) => json(res, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch too large' } }, 400)
    const [x, y] = await Promise.all([failure(rpc.request('a')), failure(rpc.request('b'))])
    expect(x.message).toMatch(/batch too large/)
    expect(y.message).toMatch(/batch too large/)
  })

  it('a hanging upstream times out per attempt, bounded overall', async () => {
    handler = () => undefined // never answers
    const rpc = createRpcClient({ url: url(), timeoutMs: 150, retries: 1, retryDelayMs: 5 })
    const started = Date.now()
    const e = await failure(rpc.request('eth_blockNumber'))
    expect(e.message).toMatch(/did not answer within 150 ms/)
    // a read without a request's budget (start-up) is tried again
    expect(rpc.stats.httpRequests).toBe(2)
    expect(Date.now() - started).toBeLessThan(5_000)
    server.closeAllConnections()
  })

  it('a stalled node fails new calls at once, probes it, and is asked again once it answers', async () => {
    handler = () => undefined // never answers
    const rpc = createRpcClient({ url: url(), timeoutMs: 1000, retries: 2, retryDelayMs: 5 })
    await failure(withBudget(rpc, newUpstreamBudget(1500)).request('eth_blockNumber'))
    expect(rpc.stats.httpRequests).toBe(1)
    const t0 = Date.now()
    const fast = await failure(withBudget(rpc, newUpstreamBudget(1500)).request('eth_getBalance'))
    expect(Date.now() - t0).toBeLessThan(100)
    expect(fast.message).toMatch(/did not answer \(stalled since .*failing fast until it answers again \(eth_getBalance\)/)
    // the refused call sent one probe (eth_blockNumber), no second within a quarter timeout
    await failure(withBudget(rpc, newUpstreamBudget(1500)).request('eth_getCode'))
    expect(rpc.stats.httpRequests).toBe(2)
    handler = echo(() => '0x5')
    server.closeAllConnections()
    // a health probe asks even now, and its answer ends the stall
    expect(await rpc.request('eth_blockNumber', [], { probe: true })).toBe('0x5')
    expect(await rpc.request('eth_blockNumber')).toBe('0x5')
  })

  it('with an upstream time budget, attempts and retries end by its deadline', async () => {
    handler = () => undefined // never answers
    const rpc = createRpcClient({ url: url(), timeoutMs: 200, retries: 5, retryDelayMs: 5 })
    const started = Date.now()
    const e = await failure(withBudget(rpc, newUpstreamBudget(300)).request('eth_getBalance'))
    const took = Date.now() - started
    expect(e.message).toMatch(/did not answer within 200 ms/)
    expect(e.message).toContain('eth_getBalance')
    // one full attempt; the node then counts as stalled: no retry, not five
    expect(rpc.stats.httpRequests).toBe(1)
    expect(took).toBeGreaterThanOrEqual(190)
    expect(took).toBeLessThan(300 + 400)
    // a later phase of the same request finds the budget spent: no HTTP request at all
    const spent = { deadline: Date.now() - 1, ms: 300 }
    const again = await failure(rpc.request('eth_getCode', [], { budget: spent }))
    expect(again.message).toMatch(/upstream time budget/)
    expect(rpc.stats.httpRequests).toBe(1)
    server.closeAllConnections()
  })

  it("tells a budget's observer when its call starts and stops waiting on the node", async () => {
    let release: () => void = () => undefined
    const held = new Promise<void>((r) => (release = r))
    handler = (body, res) => void held.then(() => echo(() => '0x1')(body, res))
    const rpc = createRpcClient({ url: url(), timeoutMs: 2000 })
    const heard: boolean[] = []
    const budget = newUpstreamBudget(3000, (waiting) => heard.push(waiting))
    const view = withBudget(rpc, budget)
    // two reads in one batch, a third in a later one: one wait from the first queued to the last answered
    const reads = [view.request('eth_getBalance'), view.request('eth_getCode')]
    await new Promise((r) => setTimeout(r, 20))
    reads.push(view.request('eth_getStorageAt'))
    await new Promise((r) => setTimeout(r, 20))
    expect(heard).toEqual([true])
    release()
    expect(await Promise.all(reads)).toEqual(['0x1', '0x1', '0x1'])
    expect(heard).toEqual([true, false])
    // a failed read ends its wait too; a budget without an observer counts nothing
    handler = (_b, res) => json(res, { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'no' } }, 500)
    await failure(view.request('eth_chainId'))
    expect(heard).toEqual([true, false, true, false])
    expect(newUpstreamBudget(3000).waits).toBeUndefined()
  })

  it('a closed client refuses new calls', async () => {
    const rpc = createRpcClient({ url: url(), timeoutMs: 150 })
    rpc.close()
    await failure(rpc.request('eth_chainId'))
    expect(rpc.stats.httpRequests).toBe(0)
  })
})
