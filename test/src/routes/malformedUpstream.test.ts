/**
 * An upstream that answers with the wrong types (a real Anvil behind a local JSON-RPC proxy that
 * replaces one method's results): every method the fork reads is checked at the edge, and a
 * violation answers 502 STATE_ACCESS_ERROR naming the method — never a 500 — and is never cached:
 * the same request once the upstream answers properly equals a clean run. Table-driven over
 * methods × faults; a mixed-up batch (ids rotated) is a 502 too.
 */
import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Hex } from 'viem'
import { loadConfig } from '../../../config/loadConfig.js'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { EngineError } from '../../../engine/platform/errors.js'
import { createEngine } from '../../../engine/index.js'
import { createApp } from '../../../src/app.js'
import { createLogger } from '../../../src/logger.js'
import { listen } from '../../../host/server.js'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../../support/anvil.js'

const ready = requireAnvil()
const [A] = DEV_ACCOUNTS as unknown as [Hex]
/** a contract whose slot 0 holds 7 and whose code returns it (SLOAD): reads balance, nonce, code, storage */
const STORE_INIT = '0x6007600055600b8060106000396000f360005460005260206000f3'

type Call = { id: unknown; method: string; params: unknown[] }
type Fault = { name: string; value: unknown }
const FAULTS: Fault[] = [
  { name: 'a number', value: 5 },
  { name: 'bad hex', value: '0xzz' },
  { name: 'a mistyped object', value: { hash: 5, blockNumber: 'x', input: 7 } },
]

/** what the proxy corrupts now: the calls it matches get `value` as their result */
let corrupt: { match: (c: Call) => boolean; value: unknown } | undefined
let rotateIds = false

async function startProxy(upstream: string): Promise<{ url: string; server: Server }> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const body = JSON.parse(Buffer.concat(chunks).toString()) as Call | Call[]
    const up = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    let answer = (await up.json()) as { id: unknown; result?: unknown } | { id: unknown; result?: unknown }[]
    const calls = Array.isArray(body) ? body : [body]
    const answers = Array.isArray(answer) ? answer : [answer]
    for (const a of answers) {
      const call = calls.find((c) => c.id === a.id)
      if (call && corrupt?.match(call)) a.result = corrupt.value
    }
    if (rotateIds && Array.isArray(answer) && answer.length > 1) {
      const ids = answer.map((a) => a.id)
      answer = answer.map((a, i) => ({ ...a, id: ids[(i + 1) % ids.length] }))
    }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify(answer))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server }
}

describe.runIf(ready)('an upstream answering with the wrong types', () => {
  let anvil: AnvilInstance
  let proxy: { url: string; server: Server }
  let store: Hex
  let txHash: Hex
  const config = loadConfig({ env: { APP_ENV: 'test', RPC_URL: '' } })

  /** a fresh service (empty caches) over the proxy; a generous upstream budget: this is about answers, not time (a loaded machine replays slowly) */
  async function service() {
    const cache = createMemoryCacheStore()
    const engine = await createEngine({
      rpcUrl: proxy.url,
      cache,
      gasCap: 50_000_000n,
      rpcTimeoutMs: 20_000,
      maxStructLogSteps: 100_000,
      simulationTtlSeconds: 60,
    })
    const server = await listen(createApp({ config, engine, cache, logger: createLogger({ level: 'silent', secrets: [] }) }), { host: '127.0.0.1', port: 0 })
    return {
      async post([path, body]: readonly [string, unknown]) {
        const res = await fetch(`${server.url}/v1${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${config.api.auth_token}` },
          body: JSON.stringify(body),
        })
        return { status: res.status, json: (await res.json()) as any } // eslint-disable-line @typescript-eslint/no-explicit-any
      },
      async close() {
        await server.close(1000)
        await engine.close()
      },
    }
  }

  const requests = {
    simulate: () => ['/simulate', { params: { calls: [{ from: A, to: store, data: '0x' }] } }] as const,
    traceTx: () => ['/trace/tx', { transactionHash: txHash, tracerConfig: { callTracer: {} } }] as const,
    beyondHead: () => ['/trace/call', { call: { from: A, to: store }, blockNumber: '0xffffff', tracerConfig: { callTracer: {} } }] as const,
  }
  /** the part of an answer a fault must not change once it is gone */
  const essence = (json: any) => json.data?.calls?.[0]?.returnData ?? json.data?.callTracer ?? json.error?.code // eslint-disable-line @typescript-eslint/no-explicit-any

  beforeAll(async () => {
    anvil = await startAnvil()
    txHash = await anvil.rpc<Hex>('eth_sendTransaction', [{ from: A, data: STORE_INIT }])
    let receipt: { contractAddress: Hex } | null = null
    for (let i = 0; i < 200 && !receipt; i++) {
      receipt = await anvil.rpc('eth_getTransactionReceipt', [txHash])
      if (!receipt) await new Promise((r) => setTimeout(r, 10))
    }
    store = receipt!.contractAddress.toLowerCase() as Hex
    txHash = await anvil.rpc<Hex>('eth_sendTransaction', [{ from: A, to: store }])
    proxy = await startProxy(anvil.url)
  }, 60_000)
  afterAll(async () => {
    await new Promise((r) => proxy?.server.close(r))
    await anvil?.stop()
  })

  const rows: [string, (c: Call) => boolean, keyof typeof requests][] = [
    ['eth_getTransactionByHash', (c) => c.method === 'eth_getTransactionByHash', 'traceTx'],
    ['eth_getBlockByNumber', (c) => c.method === 'eth_getBlockByNumber', 'simulate'],
    ['eth_getBlockByNumber', (c) => c.method === 'eth_getBlockByNumber' && c.params[1] === true, 'traceTx'],
    ['eth_getBalance', (c) => c.method === 'eth_getBalance', 'simulate'],
    ['eth_getTransactionCount', (c) => c.method === 'eth_getTransactionCount', 'simulate'],
    ['eth_getCode', (c) => c.method === 'eth_getCode', 'simulate'],
    ['eth_getStorageAt', (c) => c.method === 'eth_getStorageAt', 'simulate'],
    ['eth_getBalance', (c) => c.method === 'eth_getBalance', 'traceTx'],
    ['eth_getStorageAt', (c) => c.method === 'eth_getStorageAt', 'traceTx'],
    ['eth_blockNumber', (c) => c.method === 'eth_blockNumber', 'beyondHead'],
  ]
  const table = rows.flatMap(([method, match, request]) => FAULTS.map((f) => [method, f.name, request, match, f.value] as const))

  const clean: Record<string, unknown> = {}
  const cleanAnswer = async (request: keyof typeof requests) => {
    if (!(request in clean)) {
      const svc = await service()
      clean[request] = essence((await svc.post(requests[request]())).json)
      await svc.close()
    }
    return clean[request]
  }

  it.each(table)('%s answering %s (%s): 502 naming the method, not cached', async (method, _fault, request, match, value) => {
    const want = await cleanAnswer(request)
    expect(want).toBeDefined()
    const svc = await service()
    try {
      corrupt = { match, value }
      const bad = await svc.post(requests[request]())
      expect(bad.status, JSON.stringify(bad.json)).toBe(502)
      expect(bad.json.error.code).toBe('STATE_ACCESS_ERROR')
      expect(bad.json.error.message).toContain(method)
      expect(bad.json.error.message).toMatch(/malformed/)
      corrupt = undefined
      const good = await svc.post(requests[request]())
      expect(essence(good.json)).toEqual(want)
    } finally {
      corrupt = undefined
      await svc.close()
    }
  })

  it('eth_createAccessList is a hint: a malformed one is dropped, the answer is the clean one', async () => {
    const want = await cleanAnswer('simulate')
    const svc = await service()
    try {
      corrupt = { match: (c) => c.method === 'eth_createAccessList', value: { accessList: [{ address: 5 }] } }
      const res = await svc.post(requests.simulate())
      expect(res.status).toBe(200)
      expect(essence(res.json)).toEqual(want)
    } finally {
      corrupt = undefined
      await svc.close()
    }
  })

  it.each(['simulate', 'traceTx'] as const)('a batch answered with rotated ids (%s) is a 502, not a 500', async (request) => {
    const svc = await service()
    try {
      rotateIds = true
      const res = await svc.post(requests[request]())
      expect(res.status, JSON.stringify(res.json)).toBe(502)
      expect(res.json.error.code).toBe('STATE_ACCESS_ERROR')
    } finally {
      rotateIds = false
      await svc.close()
    }
  })

  it.each(FAULTS)('eth_chainId answering $name: the engine does not start, STATE_ACCESS_ERROR naming the method', async ({ value }) => {
    corrupt = { match: (c) => c.method === 'eth_chainId', value }
    try {
      const err = await createEngine({
        rpcUrl: proxy.url,
        cache: createMemoryCacheStore(),
        gasCap: 1n,
        rpcTimeoutMs: 5000,
        maxStructLogSteps: 1,
        simulationTtlSeconds: 1,
      }).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(err).toBeInstanceOf(EngineError)
      expect((err as EngineError).code).toBe('STATE_ACCESS_ERROR')
      expect((err as EngineError).message).toContain('eth_chainId')
    } finally {
      corrupt = undefined
    }
  })
})
