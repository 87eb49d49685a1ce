/**
 * The JSON-RPC endpoint on a fork whose upstream fails in every way a real one does (a real HTTP
 * server in front of a real Anvil, test/support/faultyUpstream.ts): down, reset, hang, HTTP 500 /
 * 429, garbage, truncated, wrong types, null results, fewer batch items, shuffled order, swapped
 * ids — on forwarded reads and on the methods the engine runs, one request at a time and in one
 * batch. Every answer is a JSON-RPC answer (HTTP 200) within 1.5 × RPC_TIMEOUT_MS plus the
 * request's own run time: a result of the right form, or -32000 naming the upstream, never an
 * internal error and never a malformed value passed on. Once the upstream is well again, every
 * answer equals a clean service's: nothing malformed was cached. The REST API under the same
 * faults: never a 500, and the same answers as a clean service after recovery.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Hex } from 'viem'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../../support/anvil.js'
import { FAULTS, startFaultyUpstream, type Fault, type FaultyUpstream } from '../../support/faultyUpstream.js'
import { startRpcApp, type RpcApp } from './rpcApp.js'

const RPC_TIMEOUT_MS = 1000
/** the upstream time budget of one engine call (engine/upstream/upstreamBudget.ts) */
const BUDGET_MS = 1.5 * RPC_TIMEOUT_MS
const ready = requireAnvil()
const [A, B] = DEV_ACCOUNTS as unknown as [Hex, Hex]

/** a fresh address per request: its state is never in the fork cache, so the upstream is asked */
let fresh = 0x1000
const freshAddress = (): Hex => `0x${(fresh++).toString(16).padStart(40, 'c')}` as Hex

type Request = { name: string; kind: 'forwarded' | 'engine'; method: string; params: () => unknown[]; mayBeNull?: true }

function requests(txHash: Hex): Request[] {
  return [
    { name: 'eth_blockNumber', kind: 'forwarded', method: 'eth_blockNumber', params: () => [] },
    { name: 'eth_getBlockByNumber latest', kind: 'forwarded', mayBeNull: true, method: 'eth_getBlockByNumber', params: () => ['latest', false] },
    { name: 'eth_getBlockByNumber 0x1 full', kind: 'forwarded', mayBeNull: true, method: 'eth_getBlockByNumber', params: () => ['0x1', true] },
    { name: 'eth_getTransactionByHash', kind: 'forwarded', mayBeNull: true, method: 'eth_getTransactionByHash', params: () => [txHash] },
    { name: 'eth_getTransactionReceipt', kind: 'forwarded', mayBeNull: true, method: 'eth_getTransactionReceipt', params: () => [txHash] },
    { name: 'eth_getLogs', kind: 'forwarded', method: 'eth_getLogs', params: () => [{ fromBlock: '0x0', toBlock: 'latest' }] },
    { name: 'eth_feeHistory', kind: 'forwarded', method: 'eth_feeHistory', params: () => ['0x1', 'latest', [50]] },
    { name: 'eth_gasPrice', kind: 'forwarded', method: 'eth_gasPrice', params: () => [] },
    { name: 'eth_getBalance', kind: 'engine', method: 'eth_getBalance', params: () => [freshAddress(), 'latest'] },
    { name: 'eth_call', kind: 'engine', method: 'eth_call', params: () => [{ from: A, to: freshAddress(), value: '0x1' }, 'latest'] },
    { name: 'eth_estimateGas', kind: 'engine', method: 'eth_estimateGas', params: () => [{ from: A, to: freshAddress(), value: '0x1' }, 'latest'] },
    {
      name: 'debug_traceCall',
      kind: 'engine',
      method: 'debug_traceCall',
      params: () => [{ from: A, to: freshAddress(), value: '0x1' }, 'latest', { tracer: 'callTracer' }],
    },
    { name: 'trace_call', kind: 'engine', method: 'trace_call', params: () => [{ from: A, to: freshAddress(), value: '0x1' }, ['trace'], 'latest'] },
  ]
}

/** faults after which a right answer is still possible: the answers come, only their order differs, or some are null */
const MAY_ANSWER: Fault[] = ['shuffledOrder', 'swappedIds', 'nullResults', 'fewerItems']

describe.runIf(ready)('a failing upstream under the JSON-RPC endpoint', () => {
  let anvil: AnvilInstance
  let upstream: FaultyUpstream
  let app: RpcApp
  let txHash: Hex
  /** how long each request takes on a healthy upstream, cold: its own run time */
  const ownRunMs = new Map<string, number>()

  beforeAll(async () => {
    anvil = await startAnvil()
    txHash = await anvil.rpc<Hex>('eth_sendTransaction', [{ from: A, to: B, value: '0x1' }])
    upstream = await startFaultyUpstream(anvil.url)
    app = await startRpcApp({
      rpcUrl: upstream.url,
      env: { RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS), MAX_RPC_BATCH: '100' },
      engine: { rpcTimeoutMs: RPC_TIMEOUT_MS },
    })
    for (const r of requests(txHash)) {
      const t0 = performance.now()
      const { json } = await app.rpc({ jsonrpc: '2.0', id: 1, method: r.method, params: r.params() })
      ownRunMs.set(r.name, performance.now() - t0)
      expect(json.error, `${r.name} on a healthy upstream`).toBeUndefined()
    }
  }, 120_000)
  afterAll(async () => {
    await upstream?.fault('pass')
    await app?.close()
    await upstream?.close()
    await anvil?.stop()
  })

  /** the answer of one request under a fault, checked; `answer` is its JSON-RPC answer */
  function check(fault: Fault, r: Request, answer: { error?: { code: number; message: string }; result?: unknown }, ms: number) {
    const what = `${r.name} under ${fault}`
    expect(ms, `${what} took ${Math.round(ms)} ms`).toBeLessThan(BUDGET_MS + ownRunMs.get(r.name)! + RPC_TIMEOUT_MS / 2)
    if (answer.error) {
      expect(answer.error.code, `${what}: ${answer.error.message}`).toBe(-32000)
      expect(answer.error.message, what).toMatch(/upstream/)
      expect(answer.error.message, what).not.toContain('sk_test_faulty')
      return
    }
    expect(MAY_ANSWER, `${what} answered ${JSON.stringify(answer.result)?.slice(0, 200)}`).toContain(fault)
    // null passes only where the node means "not there" (an unknown block or transaction)
    if (fault === 'nullResults') expect(answer.result === null && r.mayBeNull, what).toBe(true)
  }

  it.each(FAULTS)(
    '%s: each request on its own',
    async (fault) => {
      await upstream.fault(fault)
      try {
        for (const r of requests(txHash)) {
          const t0 = performance.now()
          const { status, json } = await app.rpc({ jsonrpc: '2.0', id: 7, method: r.method, params: r.params() })
          const ms = performance.now() - t0
          expect(status, r.name).toBe(200)
          expect(json.id).toBe(7)
          check(fault, r, json, ms)
        }
      } finally {
        await upstream.fault('pass')
      }
    },
    120_000,
  )

  it.each(FAULTS)(
    '%s: all in one batch',
    async (fault) => {
      await upstream.fault(fault)
      try {
        const list = requests(txHash)
        const t0 = performance.now()
        const { status, json } = await app.rpc(list.map((r, i) => ({ jsonrpc: '2.0', id: i, method: r.method, params: r.params() })))
        const ms = performance.now() - t0
        expect(status).toBe(200)
        expect(json).toHaveLength(list.length)
        // the batch's items run at once: the batch takes the budget plus its longest run
        const own = Math.max(...ownRunMs.values())
        expect(ms, `the batch took ${Math.round(ms)} ms`).toBeLessThan(BUDGET_MS + own + RPC_TIMEOUT_MS / 2)
        for (const [i, r] of list.entries()) {
          expect(json[i].id).toBe(i)
          check(fault, r, json[i], 0)
        }
      } finally {
        await upstream.fault('pass')
      }
    },
    120_000,
  )

  /** REST requests that read the chain, each asking for something not cached yet */
  const rest = () =>
    [
      ['/v1/simulate', { params: { calls: [{ from: A, to: freshAddress(), value: '0x1' }] } }],
      ['/v1/trace/call', { call: { from: A, to: freshAddress(), value: '0x1' }, tracerConfig: { callTracer: {} } }],
      ['/v1/trace/tx', { transactionHash: txHash, tracerConfig: { callTracer: {} } }],
    ] as const
  const postRest = async (on: RpcApp, path: string, body: unknown) => {
    const res = await on.fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${on.config.api.auth_token}` },
      body: JSON.stringify(body),
    })
    return { status: res.status, json: await res.json() }
  }
  /** what a fault must not change once it is gone: the outcome, not the stored simulation's id */
  const essence = (json: any) => json.data?.calls?.map((c: any) => [c.status, c.returnData, c.gasUsed]) ?? json.data?.callTracer ?? json.error?.code // eslint-disable-line @typescript-eslint/no-explicit-any

  it.each(FAULTS)(
    'the REST API under %s: never a 500, an upstream failure is 502 naming the upstream',
    async (fault) => {
      await upstream.fault(fault)
      try {
        for (const [path, body] of rest()) {
          const { status, json } = await postRest(app, path, body)
          expect(status, `${path} under ${fault}: ${JSON.stringify(json).slice(0, 300)}`).not.toBe(500)
          if (status === 200) expect(MAY_ANSWER, `${path} answered under ${fault}`).toContain(fault)
          // a node that answers null for its latest block or the transaction says it has none
          else if (fault === 'nullResults' && status === 404) expect(['BLOCK_NOT_FOUND', 'TRANSACTION_NOT_FOUND']).toContain(json.error.code)
          else {
            expect(status, `${path} under ${fault}: ${JSON.stringify(json).slice(0, 300)}`).toBe(502)
            expect(json.error.code).toBe('STATE_ACCESS_ERROR')
            expect(JSON.stringify(json)).not.toContain('sk_test_faulty')
          }
        }
      } finally {
        await upstream.fault('pass')
      }
    },
    120_000,
  )

  it('answers as a clean service once the upstream is well again: nothing malformed was kept', async () => {
    const clean = await startRpcApp({ rpcUrl: anvil.url, engine: { rpcTimeoutMs: RPC_TIMEOUT_MS } })
    try {
      // a hang found the upstream stalled: a health check asks it again, and its answer ends the stall
      for (let i = 0; i < 20 && (await app.fetch('/v1/health')).status !== 200; i++) await new Promise((r) => setTimeout(r, RPC_TIMEOUT_MS / 4))
      for (const r of requests(txHash)) {
        // the same params on both (fresh addresses drawn once)
        const params = r.params()
        const ours = await app.rpc({ jsonrpc: '2.0', id: 1, method: r.method, params })
        const theirs = await clean.rpc({ jsonrpc: '2.0', id: 1, method: r.method, params })
        expect(ours.json, r.name).toEqual(theirs.json)
      }
      for (const [path, body] of rest()) {
        expect(essence((await postRest(app, path, body)).json), path).toEqual(essence((await postRest(clean, path, body)).json))
      }
      // error lines other than the access log's 502s: an internal error somewhere
      expect(app.logs.filter((l) => l.level === 50 && !(l.msg === 'request' && l.status === 502))).toEqual([])
    } finally {
      await clean.close()
    }
  }, 60_000)
})
