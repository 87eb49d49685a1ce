/**
 * The JSON-RPC endpoint over the engine on worker threads (what `server.workers` > 1 runs): the
 * new engine operations cross the thread boundary, and the errors they throw keep what the door
 * maps them by (the unsupported-method mark, geth's -32602 for a bad param); the request timeout
 * answers a JSON-RPC error while a worker computes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { startWorkerPool, type WorkerPoolEngine } from '../../../host/workers/index.js'
import { startTestApp, post, type TestApp } from '../support/startTestApp.js'

let pool: WorkerPoolEngine
let app: TestApp
const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
const ACCOUNT0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'

beforeAll(async () => {
  const cache = createMemoryCacheStore()
  pool = await startWorkerPool({
    cache,
    gasCap: 50_000_000n,
    rpcTimeoutMs: 10_000,
    maxStructLogSteps: 100_000,
    simulationTtlSeconds: 600,
    workers: 2,
    cacheUrl: 'memory://',
  })
  app = await startTestApp({ engine: pool, cache, env: { RPC_URL: '', REQUEST_TIMEOUT_MS: '500' } })
}, 120_000)
afterAll(async () => {
  await app?.close()
  await pool?.close()
})

async function rpc(body: unknown) {
  return (await (await app.fetch('/v1/rpc', post(body))).json()) as any // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe('JSON-RPC over the worker pool', () => {
  it('serves reads, eth_call, eth_estimateGas and eth_createAccessList in one batch', async () => {
    const transfer = `0xa9059cbb${'0'.repeat(24)}70997970c51812dc3a010c7d01b50e0d17dc79c8${'0'.repeat(63)}1`
    const answers = await rpc([
      { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' },
      { jsonrpc: '2.0', id: 2, method: 'eth_call', params: [{ to: TOKEN, data: '0x18160ddd' }, 'latest'] },
      { jsonrpc: '2.0', id: 3, method: 'eth_estimateGas', params: [{ from: ACCOUNT0, to: TOKEN, data: transfer }] },
      { jsonrpc: '2.0', id: 4, method: 'eth_createAccessList', params: [{ from: ACCOUNT0, to: TOKEN, data: transfer }] },
      { jsonrpc: '2.0', id: 5, method: 'eth_getProof', params: [ACCOUNT0, [], 'latest'] },
      { jsonrpc: '2.0', id: 6, method: 'eth_getTransactionByHash', params: ['0x12'] },
    ])
    expect(answers[0]).toEqual({ jsonrpc: '2.0', id: 1, result: '0x6' })
    expect(BigInt(answers[1].result)).toBe(10n ** 24n)
    expect(BigInt(answers[2].result)).toBeGreaterThan(21_000n)
    expect(answers[3].result.accessList[0].address).toBe(TOKEN)
    expect(answers[4].error).toEqual({ code: -32601, message: 'the method eth_getProof does not exist/is not available' })
    expect(answers[5].error).toEqual({ code: -32602, message: 'invalid argument 0: hex string of 32 bytes expected' })
  })

  it('answers a request past request_timeout_ms with HTTP 504 and a JSON-RPC error', async () => {
    // JUMPDEST PUSH1 0 JUMP: a loop that burns all the gas it is given (seconds for 50M gas, the cap)
    const loop = { '0x00000000000000000000000000000000000000aa': { code: '0x5b600056' } }
    const res = await app.fetch(
      '/v1/rpc',
      post({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ to: '0x00000000000000000000000000000000000000aa', gas: '0x2faf080' }, 'latest', loop] }),
    )
    expect(res.status).toBe(504)
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'the request ran longer than 500 ms' } })
  }, 30_000)
})
