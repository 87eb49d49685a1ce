/**
 * Forks on a real Redis Cluster of the test's own (three primaries, each with a replica): the
 * properties forks hold over one Redis hold on it (`sharedForkProperties.ts`: concurrent sends on
 * two instances, read after write, a restart of every instance, the cap); and the primary holding
 * a fork killed (SIGKILL) while four senders stream transactions: until its replica has taken over,
 * answers are 503 with `Retry-After`, never a wrong one (a send answered with a hash has its
 * receipt at once); once it has, every send answered with a hash is in the fork, in whole blocks,
 * and the fork goes on. Under CI a missing redis-server fails the test.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Hex } from 'viem'
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { createRedisForkStore } from '../../../host/cache/redisForkStore.js'
import { requireRedisCluster, startRedisCluster, type RedisCluster } from '../../support/redisCluster.js'
import { startForkApp, type ForkApp } from './forkApp.js'
import { sharedForkProperties } from './sharedForkProperties.js'

const senders = [
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
  '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e',
].map((k) => privateKeyToAccount(k as Hex))
const SINK = '0x000000000000000000000000000000000000bEEF'
const q = (n: bigint | number) => `0x${n.toString(16)}`

type Answer = Awaited<ReturnType<ForkApp['rpc']>>

describe.runIf(requireRedisCluster())('forks on a Redis Cluster', () => {
  let cluster: RedisCluster
  beforeAll(async () => {
    cluster = await startRedisCluster()
  }, 60_000)
  afterAll(async () => {
    await cluster?.stop()
  })

  sharedForkProperties(() => cluster.url)

  describe('the primary holding a fork killed during sends', () => {
    let app: ForkApp
    const prefix = `failover-${randomUUID()}:`
    beforeAll(async () => {
      app = await startForkApp({ forkStore: createRedisForkStore({ url: cluster.url, prefix, opTimeoutMs: 3000 }) })
    })
    afterAll(async () => {
      await app?.close()
    })

    it('answers 503 with Retry-After until the replica has taken over, and loses no send it answered', async () => {
      const fork = await app.createFork()
      const forkId = fork.forkId
      const forkBlock = BigInt(fork.data.forkBlockNumber)
      const primary = await cluster.primaryOf(`${prefix}{fork:${forkId}}`)
      const answered: Hex[] = []
      const refused: Answer[] = []
      const wrong: string[] = []
      let stop = false
      let killed = false
      let answeredAfterFailover = 0

      /** one sender: its next nonce read from the fork, signed, sent, its receipt read at once; after a refusal the nonce is read again */
      const stream = async (account: PrivateKeyAccount) => {
        let nonce: number | undefined
        while (!stop) {
          if (nonce === undefined) {
            const n = await app.rpc(forkId, 'eth_getTransactionCount', [account.address, 'pending'])
            if (n.result === undefined) {
              refused.push(n)
              await pause(n)
              continue
            }
            nonce = Number(n.result)
          }
          const raw = await account.signTransaction({
            chainId: 31337,
            type: 'eip1559',
            nonce,
            to: SINK,
            value: 1n,
            gas: 21000n,
            maxFeePerGas: 10n ** 10n,
            maxPriorityFeePerGas: 1n,
          })
          const sent = await app.rpc(forkId, 'eth_sendRawTransaction', [raw])
          if (typeof sent.result !== 'string') {
            refused.push(sent)
            nonce = undefined
            await pause(sent)
            continue
          }
          answered.push(sent.result as Hex)
          if (killed) answeredAfterFailover++
          nonce++
          // read after write: the answered send is mined, or the store says to come back (never "no such transaction")
          const receipt = await app.rpc(forkId, 'eth_getTransactionReceipt', [sent.result])
          if (receipt.result === null) wrong.push(`no receipt for ${sent.result} just answered`)
          else if (receipt.result === undefined) refused.push(receipt)
        }
      }
      const streams = Promise.all(senders.map(stream))
      await until(() => answered.length >= 12, 'some sends answered before the kill')
      await cluster.kill(primary)
      killed = true
      const killedAt = Date.now()
      await cluster.waitForFailover(primary)
      const failoverMs = Date.now() - killedAt
      await until(() => answeredAfterFailover >= 12, 'sends answered once the replica has taken over')
      stop = true
      await streams

      expect(wrong).toEqual([])
      // every refusal during the failover: a 503 with Retry-After, saying the store did not answer
      expect(refused.length).toBeGreaterThan(0)
      for (const r of refused) {
        expect(r.status, JSON.stringify(r)).toBe(503)
        expect(r.retryAfter).toBe('1')
        expect(r.error?.message).toMatch(/fork store .* (did not answer|did not copy)/)
        expect(r.error?.data).toEqual({ code: 'FORKS_UNAVAILABLE', retryAfterSeconds: 1 })
      }
      // after the failover: every answered send in the fork, in whole consecutive blocks
      const head = BigInt((await app.rpc(forkId, 'eth_blockNumber')).result)
      const mined = new Set<string>()
      for (let n = forkBlock + 1n; n <= head; n++) {
        const block = (await app.rpc(forkId, 'eth_getBlockByNumber', [q(n), false])).result
        const receipts = (await app.rpc(forkId, 'eth_getBlockReceipts', [q(n)])).result as { transactionHash: Hex }[]
        expect(receipts.map((r) => r.transactionHash)).toEqual(block.transactions)
        for (const h of block.transactions as Hex[]) mined.add(h)
      }
      for (const hash of answered) expect(mined.has(hash), `answered ${hash} is in the fork`).toBe(true)
      expect((await app.request('GET', `/v1/forks/${forkId}`)).json.data.transactionCount).toBe(mined.size)
      console.info(`failover in ${failoverMs} ms; ${answered.length} sends answered, ${refused.length} answers 503, ${mined.size} mined`)
    }, 120_000)
  })
})

/** what a client does with a 503: wait Retry-After (here a fifth of it, to keep the test short) */
const pause = (a: Answer) => new Promise((r) => setTimeout(r, a.retryAfter ? Number(a.retryAfter) * 200 : 50))

async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}
