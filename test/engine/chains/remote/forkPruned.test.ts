/**
 * An upstream that pruned old state (a real Anvil with --prune-history 2): simulating on a block
 * it no longer holds is BLOCK_NOT_FOUND (interface §2), while recent blocks still work.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Address, Hex } from 'viem'
import { createMemoryCacheStore } from '../../../../host/cache/memoryCacheStore.js'
import { createEngine } from '../../../../engine/index.js'
import type { Engine, SimulateParams } from '../../../../engine/types.js'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../../../support/anvil.js'
import { ON_CHAIN } from '../../../../engine/types.js'

const [A, B] = DEV_ACCOUNTS as unknown as [Address, Address]
let anvil: AnvilInstance | undefined
let engine: Engine | undefined

beforeAll(async () => {
  if (!requireAnvil()) return
  anvil = await startAnvil({ args: ['--prune-history', '2'] })
  for (let i = 0; i < 8; i++) await anvil.rpc('evm_mine')
  engine = await createEngine({
    rpcUrl: anvil.url,
    cache: createMemoryCacheStore(),
    gasCap: 30_000_000n,
    rpcTimeoutMs: 5_000,
    maxStructLogSteps: 1_000,
    simulationTtlSeconds: 60,
  })
}, 60_000)
afterAll(async () => {
  await engine?.close()
  await anvil?.stop()
})

const params = (block: SimulateParams['block']): SimulateParams => ({
  calls: [{ from: A, to: B, data: '0x', value: 1n }],
  block,
  validation: false,
  traceTransfers: false,
  traceAssetChanges: false,
})

describe('pruned upstream state', () => {
  it('has a real Anvil', () => expect(anvil, 'Anvil missing').toBeDefined())

  it('an old block whose state is gone is BLOCK_NOT_FOUND; the head still simulates', async () => {
    const err = await engine!.simulate(ON_CHAIN, params({ number: 1n })).catch((e: unknown) => e)
    expect(err).toMatchObject({ code: 'BLOCK_NOT_FOUND' })
    expect((err as Error).message).toMatch(/pruned/)
    expect((err as Error).message).not.toContain(anvil!.url)
    const head = BigInt(await anvil!.rpc<Hex>('eth_blockNumber'))
    const ok = await engine!.simulate(ON_CHAIN, params({ number: head }))
    expect(ok.status).toBe('success')
  })
})
