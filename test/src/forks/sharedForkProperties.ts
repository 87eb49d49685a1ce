/**
 * Forks in Redis, served by several instances: two apps (each its own engine over the same
 * embedded devnet) share one store. Sends at once to both end up in distinct, consecutive blocks,
 * in each sender's nonce order, none lost and none twice; a read on one instance sees a write
 * answered by the other; a fork outlives every instance that served it; creations racing on both
 * make no more forks than the cap. Run over one Redis (`sharedForks.test.ts`) and over a Redis
 * Cluster (`clusterForks.test.ts`).
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPublicClient, createWalletClient, http, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { foundry } from 'viem/chains'
import { createRedisForkStore } from '../../../host/cache/redisForkStore.js'
import { startForkApp, type ForkApp } from './forkApp.js'

const senders = [
  privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'),
  privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a'),
]
const SINK = '0x000000000000000000000000000000000000bEEF'

/**
 * The properties of forks shared by two instances over one store, registered inside the caller's
 * `describe`; `url()` is read once the caller's own `beforeAll` has run (a cluster it started).
 */
export function sharedForkProperties(url: () => string): void {
  describe('forks shared by two instances', () => {
    const prefix = `forktest-${randomUUID()}:`
    const start = () => startForkApp({ forkStore: createRedisForkStore({ url: url(), prefix }) })
    let a: ForkApp
    let b: ForkApp
    beforeAll(async () => {
      ;[a, b] = await Promise.all([start(), start()])
    })
    afterAll(async () => {
      await a?.close()
      await b?.close()
    })

    it('serves a fork created on one instance from the other, read after write', async () => {
      const fork = await a.createFork({ label: 'shared' })
      const onB = await b.request('GET', `/v1/forks/${fork.forkId}`)
      expect(onB.json.data).toMatchObject({ forkId: fork.forkId, label: 'shared' })
      const wallet = createWalletClient({ account: senders[0]!, chain: foundry, transport: http(fork.rpcUrl) })
      const hash = await wallet.sendTransaction({ to: SINK, value: 5n })
      const receipt = await b.rpc(fork.forkId, 'eth_getTransactionReceipt', [hash])
      expect(receipt.result.status).toBe('0x1')
      expect((await b.rpc(fork.forkId, 'eth_getBalance', [SINK, 'latest'])).result).toBe('0x5')
      const trace = await b.rpc(fork.forkId, 'debug_traceTransaction', [hash, { tracer: 'callTracer' }])
      expect(trace.result).toMatchObject({ type: 'CALL', to: SINK.toLowerCase(), value: '0x5' })
    })

    it('puts transactions sent at once to both instances in distinct, consecutive blocks in nonce order', async () => {
      const fork = await a.createFork()
      const startBlock = BigInt(fork.data.headBlockNumber)
      const raws: { raw: Hex; from: string; nonce: number }[] = []
      for (const s of senders) {
        const nonce = Number((await a.rpc(fork.forkId, 'eth_getTransactionCount', [s.address, 'latest'])).result)
        for (let i = 0; i < 4; i++) {
          const raw = await s.signTransaction({
            chainId: 31337,
            type: 'eip1559',
            nonce: nonce + i,
            to: SINK,
            value: 1n,
            gas: 21000n,
            maxFeePerGas: 10n ** 10n,
            maxPriorityFeePerGas: 1n,
          })
          raws.push({ raw, from: s.address.toLowerCase(), nonce: nonce + i })
        }
      }
      // all eight at once, alternating instances
      const answers = await Promise.all(raws.map((t, i) => (i % 2 ? b : a).rpc(fork.forkId, 'eth_sendRawTransaction', [t.raw])))
      expect(answers.every((x) => typeof x.result === 'string')).toBe(true)
      const receipts = await Promise.all(answers.map((x, i) => (i % 2 ? a : b).rpc(fork.forkId, 'eth_getTransactionReceipt', [x.result])))
      const blocks = receipts.map((r) => BigInt(r.result.blockNumber))
      expect(new Set(blocks).size).toBe(8)
      expect([...blocks].sort((x, y) => Number(x - y))).toEqual(Array.from({ length: 8 }, (_, i) => startBlock + 1n + BigInt(i)))
      for (const s of senders) {
        const mine = raws.map((t, i) => ({ ...t, block: blocks[i]! })).filter((t) => t.from === s.address.toLowerCase())
        const byBlock = [...mine].sort((x, y) => Number(x.block - y.block)).map((t) => t.nonce)
        expect(byBlock).toEqual(mine.map((t) => t.nonce))
      }
      expect((await b.rpc(fork.forkId, 'eth_blockNumber')).result).toBe(`0x${(startBlock + 8n).toString(16)}`)
      expect((await a.request('GET', `/v1/forks/${fork.forkId}`)).json.data.transactionCount).toBe(8)
    }, 60_000)

    it('keeps a fork across a restart of every instance', async () => {
      const fork = await a.createFork()
      const wallet = createWalletClient({ account: senders[1]!, chain: foundry, transport: http(fork.rpcUrl) })
      const hash = await wallet.sendTransaction({ to: SINK, value: 9n })
      await a.rpc(fork.forkId, 'anvil_setBalance', ['0x2222222222222222222222222222222222222222', '0x2a'])
      await a.close()
      await b.close()
      ;[a, b] = await Promise.all([start(), start()])
      const receipt = await b.rpc(fork.forkId, 'eth_getTransactionReceipt', [hash])
      expect(receipt.result.status).toBe('0x1')
      expect((await a.rpc(fork.forkId, 'eth_getBalance', ['0x2222222222222222222222222222222222222222', 'latest'])).result).toBe('0x2a')
      const onA = fork.rpcUrl.replace(/^http:\/\/[^/]+/, a.url)
      const onB = fork.rpcUrl.replace(/^http:\/\/[^/]+/, b.url)
      const next = await createWalletClient({ account: senders[1]!, chain: foundry, transport: http(onA) }).sendTransaction({ to: SINK, value: 1n })
      const pub = createPublicClient({ chain: foundry, transport: http(onB), cacheTime: 0 })
      expect((await pub.waitForTransactionReceipt({ hash: next })).blockNumber).toBe(BigInt(receipt.result.blockNumber) + 1n)
    }, 60_000)
  })

  describe('forks.max_forks across two instances', () => {
    const prefix = `forktest-${randomUUID()}:`
    const start = () => startForkApp({ forkStore: createRedisForkStore({ url: url(), prefix }), env: { FORKS_MAX_FORKS: '3' } })
    let a: ForkApp
    let b: ForkApp
    beforeAll(async () => {
      ;[a, b] = await Promise.all([start(), start()])
    })
    afterAll(async () => {
      await a?.close()
      await b?.close()
    })

    it('lets creations racing on both instances make no more forks than the cap', async () => {
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? b : a).request('POST', '/v1/forks', { label: `race-${i}` })))
      const statuses = answers.map((r) => r.status)
      expect(statuses.filter((s) => s === 201)).toHaveLength(3)
      expect(statuses.filter((s) => s === 409)).toHaveLength(9)
      for (const refused of answers.filter((r) => r.status === 409)) expect(refused.json.error.code).toBe('FORK_LIMIT_REACHED')
      expect((await b.request('GET', '/v1/forks')).json.data).toHaveLength(3)
      // a deleted fork frees its place, on either instance
      const first = answers.find((r) => r.status === 201)!.json.data.forkId as string
      expect((await b.request('DELETE', `/v1/forks/${first}`)).status).toBe(200)
      expect((await a.request('POST', '/v1/forks', {})).status).toBe(201)
      expect((await b.request('POST', '/v1/forks', {})).status).toBe(409)
    }, 60_000)
  })
}
