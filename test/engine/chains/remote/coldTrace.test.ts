/**
 * Upstream round trips of a cold trace of a mined transaction, against a real Anvil behind a
 * counting proxy. The transaction names its block; the block comes whole with the transaction's
 * own access-list hint in the same batch; then the state that hint names, the block's coinbase,
 * the system contracts and every sender and recipient leave with the earlier transactions' hints.
 * 3 round trips; a 4th only when the earlier transactions' hints name state besides (9 when the
 * block's header, the parent's header and the system contracts were read apart).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Hex } from 'viem'
import { createMemoryCacheStore } from '../../../../host/cache/memoryCacheStore.js'
import { createEngine, type Engine } from '../../../../engine/index.js'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../../../support/anvil.js'
import { startCountingProxy, type CountingProxy } from '../../../support/countingProxy.js'
import { ON_CHAIN } from '../../../../engine/types.js'

describe.skipIf(!requireAnvil())('cold trace of a mined transaction', () => {
  let anvil: AnvilInstance
  let proxy: CountingProxy
  let engine: Engine
  const hashes: Hex[] = []

  beforeAll(async () => {
    anvil = await startAnvil({ args: ['--no-mining'] })
    proxy = await startCountingProxy(anvil.url)
    // three transfers by three senders in one block: the traced one is the third
    for (let i = 0; i < 3; i++) hashes.push(await anvil.rpc<Hex>('eth_sendTransaction', [{ from: DEV_ACCOUNTS[i], to: DEV_ACCOUNTS[5], value: '0x1000' }]))
    await anvil.rpc('evm_mine')
    await anvil.rpc('evm_mine')
    engine = await createEngine({
      rpcUrl: proxy.url,
      cache: createMemoryCacheStore(),
      gasCap: 50_000_000n,
      rpcTimeoutMs: 10_000,
      maxStructLogSteps: 10_000,
      simulationTtlSeconds: 60,
    })
  }, 60_000)
  afterAll(async () => {
    await engine?.close()
    await proxy?.close()
    await anvil?.stop()
  })

  it('costs 3 round trips: transaction; block and its hint; state and the earlier hints; another transaction of the block then 1', async () => {
    proxy.reset()
    const trace = await engine.traceTransaction(ON_CHAIN, hashes[2]!, { prestateTracer: {} })
    expect(proxy.requests(), JSON.stringify(proxy.counts())).toBeLessThanOrEqual(3)
    // the state came from the batch, and it is the state geth would show: the sender paid fees before
    const pre = trace.prestateTracer as Record<string, { balance?: Hex }>
    expect(Object.keys(pre)).toContain(DEV_ACCOUNTS[2]!.toLowerCase())
    proxy.reset()
    await engine.traceTransaction(ON_CHAIN, hashes[1]!, { callTracer: {} })
    // the transaction's own lookup: everything else is held
    expect(proxy.requests(), JSON.stringify(proxy.counts())).toBe(1)
  })
})
