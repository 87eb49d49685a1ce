/**
 * Forks through the worker pool: on memory:// every fork call goes to the one worker holding the
 * forks, so calls spread by the pool still see one fork; on Redis any worker serves any fork.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { startWorkerPool, type WorkerPoolEngine } from '../../../host/workers/index.js'
import { requireEngineFacade } from './fixtures.js'
import { ON_CHAIN } from '../../../engine/types.js'

const alice = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
const SINK = '0x000000000000000000000000000000000000beef'
const REDIS_URL = process.env.REDIS_URL
const ready = requireEngineFacade()

const options = { gasCap: 50_000_000n, rpcTimeoutMs: 5000, maxStructLogSteps: 100_000, simulationTtlSeconds: 60 }

async function sendsAndReads(pool: WorkerPoolEngine) {
  const fork = await pool.createFork(ON_CHAIN, {})
  const nonce = Number(await pool.readChain({ fork: fork.forkId }, 'eth_getTransactionCount', [alice.address, 'latest']))
  for (let i = 0; i < 3; i++) {
    const raw = await alice.signTransaction({
      chainId: 31337,
      type: 'eip1559',
      nonce: nonce + i,
      to: SINK,
      value: 1n,
      gas: 21000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 1n,
    })
    await pool.forkRpc({ fork: fork.forkId }, { method: 'sendRawTransaction', raw })
  }
  // many reads at once: the pool spreads them, every one sees the three sends
  const balances = await Promise.all(Array.from({ length: 8 }, () => pool.readChain({ fork: fork.forkId }, 'eth_getBalance', [SINK, 'latest'])))
  expect(new Set(balances)).toEqual(new Set(['0x3' as Hex]))
  expect((await pool.getFork(ON_CHAIN, fork.forkId)).transactionCount).toBe(3)
}

describe.runIf(ready)('forks through the worker pool', () => {
  const pools: WorkerPoolEngine[] = []
  afterAll(async () => {
    for (const p of pools) await p.close()
  })

  it('on memory:// one worker holds the forks', async () => {
    const pool = await startWorkerPool({ ...options, cache: createMemoryCacheStore(), workers: 2, cacheUrl: 'memory://' })
    pools.push(pool)
    await sendsAndReads(pool)
  }, 60_000)

  it.runIf(REDIS_URL)(
    'on Redis any worker serves any fork',
    async () => {
      const pool = await startWorkerPool({
        ...options,
        cache: createMemoryCacheStore(),
        workers: 2,
        cacheUrl: REDIS_URL,
        cachePrefix: `forkpool-${randomUUID()}:`,
      })
      pools.push(pool)
      await sendsAndReads(pool)
    },
    60_000,
  )
})
