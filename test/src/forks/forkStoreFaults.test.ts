/**
 * A write that fails half way leaves the fork at its last complete block. Over a real Redis of the
 * test's own (an append-only file synced on every write, so a killed Redis comes back with what it
 * had): a send while Redis is down answers a clear JSON-RPC error with HTTP 503 and `Retry-After`
 * (no 500, no stack, no password),
 * and once Redis is back the fork is at its last complete block with every receipt; the service
 * killed (SIGKILL) while sends stream leaves no block without its receipts, and the fork goes on
 * from its head.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createRedisForkStore } from '../../../host/cache/redisForkStore.js'
import { requireRedisServer, startRedisServer, waitFor, type RedisServer } from '../../support/redisServer.js'
import { testToken } from '../support/startTestApp.js'
import { startForkApp, type ForkApp } from './forkApp.js'

const root = fileURLToPath(new URL('../../..', import.meta.url))
const PASSWORD = 'fork-store-password-9f3e'
const sender = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d')
const SINK = '0x000000000000000000000000000000000000bEEF'
const q = (n: bigint | number) => `0x${n.toString(16)}`

const transfer = (nonce: number) =>
  sender.signTransaction({ chainId: 31337, type: 'eip1559', nonce, to: SINK, value: 1n, gas: 21000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n })

type Rpc = (
  method: string,
  params?: unknown[],
) => Promise<{ status: number; retryAfter: string | null; text: string; result?: any; error?: { code: number; message: string; data?: unknown } }> // eslint-disable-line @typescript-eslint/no-explicit-any

function rpcOn(base: string, forkId: string): Rpc {
  let id = 0
  return async (method, params = []) => {
    const res = await fetch(`${base}/v1/forks/${forkId}/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${testToken}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    })
    const text = await res.text()
    return { status: res.status, retryAfter: res.headers.get('retry-after'), text, ...JSON.parse(text) }
  }
}

/** every block of the fork from its fork point to its head holds its transactions and each has its receipt */
async function expectWholeBlocks(rpc: Rpc, forkBlock: bigint): Promise<{ head: bigint; mined: Hex[] }> {
  const head = BigInt((await rpc('eth_blockNumber')).result)
  const mined: Hex[] = []
  for (let n = forkBlock + 1n; n <= head; n++) {
    const block = (await rpc('eth_getBlockByNumber', [q(n), false])).result
    expect(block, `block ${n}`).not.toBeNull()
    const receipts = (await rpc('eth_getBlockReceipts', [q(n)])).result as { transactionHash: Hex; blockNumber: Hex }[]
    expect(receipts.map((r) => r.transactionHash)).toEqual(block.transactions)
    for (const hash of block.transactions as Hex[]) {
      const receipt = (await rpc('eth_getTransactionReceipt', [hash])).result
      expect(receipt?.blockNumber, `receipt of ${hash}`).toBe(q(n))
      mined.push(hash)
    }
  }
  return { head, mined }
}

describe.runIf(requireRedisServer())('a fork whose store fails during a write', () => {
  let redis: RedisServer
  beforeAll(async () => {
    redis = await startRedisServer({ password: PASSWORD, persist: true })
  })
  afterAll(async () => {
    await redis?.stop()
  })

  describe('Redis down during a send', () => {
    let app: ForkApp
    beforeAll(async () => {
      app = await startForkApp({ forkStore: createRedisForkStore({ url: redis.url, prefix: 'faults-a:', opTimeoutMs: 1500 }) })
    })
    afterAll(async () => {
      await app?.close()
    })

    it('answers a clear JSON-RPC error, then serves the fork at its last complete block', async () => {
      const fork = await app.createFork()
      const forkBlock = BigInt(fork.data.forkBlockNumber)
      const rpc = rpcOn(app.url, fork.forkId)
      const nonce = Number((await rpc('eth_getTransactionCount', [sender.address, 'latest'])).result)
      const first = await rpc('eth_sendRawTransaction', [await transfer(nonce)])
      expect(first.result).toMatch(/^0x[0-9a-f]{64}$/)

      await redis.kill()
      const second = await transfer(nonce + 1)
      const refused = await rpc('eth_sendRawTransaction', [second])
      expect(refused.status).toBe(503)
      expect(refused.retryAfter).toBe('1')
      expect(refused.error?.code).toBe(-32000)
      expect(refused.error?.data).toEqual({ code: 'FORKS_UNAVAILABLE', retryAfterSeconds: 1 })
      expect(refused.error?.message).toMatch(/fork store .* did not answer/)
      expect(refused.text).not.toContain(PASSWORD)
      expect(refused.text).not.toMatch(/\bat .+\.(ts|js):\d+/)
      // a read is refused as clearly, and the REST resource answers its envelope, not a 500
      const read = await rpc('eth_blockNumber')
      expect(read.error?.message).toMatch(/fork store .* did not answer/)
      const rest = await app.request('GET', `/v1/forks/${fork.forkId}`)
      expect(rest.status).toBe(503)
      expect(rest.json.error.code).toBe('FORKS_UNAVAILABLE')
      expect(rest.retryAfter).toBe('1')
      expect(rest.json.success).toBe(false)
      expect(JSON.stringify(rest.json)).not.toContain(PASSWORD)

      await redis.restart()
      await waitFor(async () => (await rpc('eth_blockNumber')).result !== undefined, 'the fork store to answer again')
      const { head, mined } = await expectWholeBlocks(rpc, forkBlock)
      expect(head).toBe(forkBlock + 1n)
      expect(mined).toEqual([first.result])
      expect((await rpc('eth_getTransactionCount', [sender.address, 'pending'])).result).toBe(q(nonce + 1))
      // the refused send was never taken: sent again, it is mined on the head
      const again = await rpc('eth_sendRawTransaction', [second])
      expect((await rpc('eth_getTransactionReceipt', [again.result])).result.blockNumber).toBe(q(forkBlock + 2n))
    }, 60_000)
  })

  it('closes its store at once while Redis is down (a stopping instance does not wait on it)', async () => {
    const store = createRedisForkStore({ url: redis.url, prefix: 'faults-c:', opTimeoutMs: 1500 })
    expect(await store.count()).toBe(0)
    await redis.kill()
    try {
      const started = Date.now()
      await store.close()
      expect(Date.now() - started).toBeLessThan(1000)
    } finally {
      await redis.restart()
    }
  })

  describe('the service killed while sends stream', () => {
    let child: ChildProcess | undefined
    afterAll(() => {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    })

    it('leaves no block without its receipts', async () => {
      const env = { ...process.env, APP_ENV: 'test', PORT: '0', WORKERS: '1', PROCESSES: '1', LOG_LEVEL: 'info', CACHE_URL: redis.url, RPC_URL: '' }
      child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/main.ts')], { env, cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
      const proc = child
      const url = await new Promise<string>((resolve, reject) => {
        createInterface({ input: proc.stdout! }).on('line', (line) => {
          try {
            const entry = JSON.parse(line) as Record<string, unknown>
            if (entry.msg === 'listening') resolve(entry.url as string)
          } catch {
            // not a log line
          }
        })
        proc.stderr!.on('data', (d: Buffer) => process.stderr.write(d))
        proc.once('exit', (code) => reject(new Error(`the service exited (${code})`)))
      })
      const created = await fetch(`${url}/v1/forks`, { method: 'POST', headers: { authorization: `Bearer ${testToken}` } })
      const { forkId, forkBlockNumber } = ((await created.json()) as { data: { forkId: string; forkBlockNumber: Hex } }).data
      const rpc = rpcOn(url, forkId)
      const nonce = Number((await rpc('eth_getTransactionCount', [sender.address, 'latest'])).result)
      const raws = await Promise.all(Array.from({ length: 60 }, (_, i) => transfer(nonce + i)))
      // four senders at a time stream the transactions; the process is killed once some are mined
      let next = 0
      let answered = 0
      const stream = async () => {
        while (next < raws.length) {
          const raw = raws[next++]!
          try {
            const a = await rpc('eth_sendRawTransaction', [raw])
            if (a.result) answered++
          } catch {
            return // the process is gone
          }
        }
      }
      const streams = Promise.all([stream(), stream(), stream(), stream()])
      await waitFor(async () => answered >= 8, 'some sends to be mined')
      proc.kill('SIGKILL')
      await streams
      expect(next).toBeLessThan(raws.length)

      // another instance over the same Redis: whole blocks only, and the fork goes on from its head
      const app = await startForkApp({ forkStore: createRedisForkStore({ url: redis.url, prefix: 'evmsim:' }) })
      try {
        const onApp = rpcOn(app.url, forkId)
        const { head, mined } = await expectWholeBlocks(onApp, BigInt(forkBlockNumber))
        expect(mined.length).toBeGreaterThanOrEqual(answered)
        expect(head - BigInt(forkBlockNumber)).toBe(BigInt(mined.length))
        expect((await app.request('GET', `/v1/forks/${forkId}`)).json.data.transactionCount).toBe(mined.length)
        const resumed = await onApp('eth_sendRawTransaction', [raws[mined.length]!])
        expect((await onApp('eth_getTransactionReceipt', [resumed.result])).result.blockNumber).toBe(q(head + 1n))
      } finally {
        await app.close()
      }
    }, 120_000)
  })
})
