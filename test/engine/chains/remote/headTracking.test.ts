/**
 * Head tracking (`chain.head_max_age_ms`): a request at `latest` within the age runs on the head
 * seen last, with no upstream request, and says which block it ran on; past the age `latest` is
 * asked again; 0 asks on every request; a tracked head the upstream no longer knows (a dev chain
 * reverted to a snapshot) never fails a request. Against a real Anvil behind a counting proxy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Address, Hex } from 'viem'
import { createMemoryCacheStore } from '../../../../host/cache/memoryCacheStore.js'
import { createEngine, type Engine } from '../../../../engine/index.js'
import type { SimulateParams } from '../../../../engine/types.js'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../../../support/anvil.js'
import { startCountingProxy, type CountingProxy } from '../../../support/countingProxy.js'
import { ON_CHAIN } from '../../../../engine/types.js'

const [A, B, C, D] = DEV_ACCOUNTS as unknown as [Address, Address, Address, Address]
const ready = requireAnvil()

/** a plain value transfer: nothing to prefetch beyond two accounts */
const send = (value: bigint, from: Address = A, to: Address = B): SimulateParams => ({
  calls: [{ from, to, data: '0x', value }],
  block: { tag: 'latest' },
  validation: false,
  traceAssetChanges: false,
  traceTransfers: false,
})

describe.runIf(ready)('head tracking', () => {
  let anvil: AnvilInstance
  let proxy: CountingProxy
  const engines: Engine[] = []

  const engineWith = async (headMaxAgeMs: number) => {
    const engine = await createEngine({
      rpcUrl: proxy.url,
      cache: createMemoryCacheStore(),
      gasCap: 30_000_000n,
      rpcTimeoutMs: 5_000,
      maxStructLogSteps: 1_000,
      simulationTtlSeconds: 60,
      headMaxAgeMs,
    })
    engines.push(engine)
    return engine
  }
  const head = async () => BigInt(await anvil.rpc<Hex>('eth_blockNumber'))
  const mine = () => anvil.rpc('evm_mine')

  beforeAll(async () => {
    anvil = await startAnvil()
    proxy = await startCountingProxy(anvil.url)
  })
  afterAll(async () => {
    for (const e of engines) await e.close()
    await proxy?.close()
    await anvil?.stop()
  })

  it('within the age, latest is the head seen last: no upstream request, the answer names its block', async () => {
    await mine()
    const engine = await engineWith(60_000)
    const first = await engine.simulate(ON_CHAIN, send(1n))
    expect(BigInt(first.blockNumber)).toBe(await head())
    await mine() // the upstream moves on; within the age the service keeps the head it saw
    proxy.reset()
    const second = await engine.simulate(ON_CHAIN, send(2n))
    expect(proxy.requests()).toBe(0)
    expect(second.blockNumber).toBe(first.blockNumber)
    expect(second.status).toBe('success')
  })

  it('past the age, latest is asked again and the answer moves to the new head', async () => {
    const engine = await engineWith(150)
    const first = await engine.simulate(ON_CHAIN, send(3n))
    await mine()
    await new Promise((r) => setTimeout(r, 200))
    proxy.reset()
    const second = await engine.simulate(ON_CHAIN, send(4n))
    expect(proxy.counts().eth_getBlockByNumber ?? 0).toBeGreaterThanOrEqual(1)
    expect(BigInt(second.blockNumber)).toBe(BigInt(first.blockNumber) + 1n)
  })

  it('0 restores per-request resolution: every request asks for latest', async () => {
    const engine = await engineWith(0)
    await engine.simulate(ON_CHAIN, send(5n))
    proxy.reset()
    await engine.simulate(ON_CHAIN, send(6n))
    await engine.simulate(ON_CHAIN, send(7n))
    expect(proxy.counts().eth_getBlockByNumber).toBe(2)
  })

  it('with 0, a new call on a new head still sends the block and its hint in one batch (2 round trips)', async () => {
    const engine = await engineWith(0)
    await engine.simulate(ON_CHAIN, send(10n))
    await mine()
    proxy.reset()
    // its accounts were read at the head before: that must not count as warm at a head that moved
    const r = await engine.simulate(ON_CHAIN, send(11n))
    expect(r.status).toBe('success')
    expect(proxy.requests(), JSON.stringify(proxy.counts())).toBeLessThanOrEqual(2)
  })

  it('a tracked head the upstream no longer knows (chain reverted to a snapshot) does not fail the request', async () => {
    const snapshot = await anvil.rpc<Hex>('evm_snapshot')
    await mine()
    await mine()
    const engine = await engineWith(60_000)
    const before = await engine.simulate(ON_CHAIN, send(8n))
    await anvil.rpc('evm_revert', [snapshot])
    // accounts never read at the tracked head: their reads fail upstream, the request runs anew
    const after = await engine.simulate(ON_CHAIN, send(9n, C, D))
    expect(after.status).toBe('success')
    expect(BigInt(after.blockNumber)).toBe(await head())
    expect(BigInt(after.blockNumber)).toBeLessThan(BigInt(before.blockNumber))
  })
})
