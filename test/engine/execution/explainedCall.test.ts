/**
 * A plain simulation or eth_call runs untraced, and a failed one again observed
 * (engine/execution/explainedCall.ts). What only the observed run knows must still reach the
 * answer: the frame a bubbled revert came from (not the contract called), and geth's error text
 * with the failing step's details. Both fail if the failure is not run again observed. A
 * success, run once, is the same answer as with an observer riding along.
 */
import { encodeFunctionData, type Address, type Hex } from 'viem'
import { afterAll, describe, expect, it } from 'vitest'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { DEV_ACCOUNTS } from '../../../engine/chains/memory/accounts.js'
import { DEMO_TOKEN_ADDRESS, demoTokenAbi } from '../../../engine/chains/devnet/demoTransactions.js'
import { createEngine } from '../../../engine/index.js'
import { ON_CHAIN } from '../../../engine/types.js'

const engine = await createEngine({
  cache: createMemoryCacheStore(),
  gasCap: 50_000_000n,
  rpcTimeoutMs: 10_000,
  maxStructLogSteps: 10_000,
  simulationTtlSeconds: 60,
})
afterAll(() => engine.close())

const FROM = DEV_ACCOUNTS[0]!.address as Address
const INNER = '0x0000000000000000000000000000000000001001' as Address
const OUTER = '0x0000000000000000000000000000000000001002' as Address
const UNDERFLOW = '0x0000000000000000000000000000000000001003' as Address
// reverts with the 4 bytes 0xdeadbeef
const INNER_CODE = '0x63deadbeef6000526004601cfd' as Hex
// calls INNER with no data, then reverts with what INNER returned (as Solidity bubbles a revert)
const OUTER_CODE = `0x60006000600060006000${`73${INNER.slice(2)}`}5af13d600060003e3d6000fd` as Hex
// ADD on an empty stack
const UNDERFLOW_CODE = '0x01' as Hex
const stateOverrides = { [INNER]: { code: INNER_CODE }, [OUTER]: { code: OUTER_CODE }, [UNDERFLOW]: { code: UNDERFLOW_CODE } }
const block = { tag: 'latest' as const }
const simulate = (to: Address, extra: { traceTransfers?: boolean } = {}) =>
  engine.simulate(ON_CHAIN, {
    calls: [{ from: FROM, to, data: '0x', gas: 100_000n }],
    block,
    validation: false,
    traceAssetChanges: false,
    traceTransfers: false,
    stateOverrides,
    ...extra,
  })

describe('a failure is explained by a second, observed run', () => {
  it('simulate names the contract a bubbled revert came from, traced or not', async () => {
    for (const traceTransfers of [false, true]) {
      const result = await simulate(OUTER, { traceTransfers })
      expect(result.calls[0]!.status).toBe('reverted')
      expect(result.calls[0]!.error).toMatchObject({ message: 'execution reverted', revertData: '0xdeadbeef', contractAddress: INNER })
    }
  })

  it('simulate and eth_call give geth’s error text with the failing step’s details', async () => {
    const result = await simulate(UNDERFLOW)
    expect(result.calls[0]!.error?.message).toBe('stack underflow (0 <=> 2)')
    const out = await engine.call(ON_CHAIN, { call: { from: FROM, to: UNDERFLOW, data: '0x', gas: 100_000n }, block, stateOverrides })
    expect(out).toMatchObject({ status: 'failed', error: 'stack underflow (0 <=> 2)' })
  })

  it('a success runs once and answers as a traced run does', async () => {
    const to = DEV_ACCOUNTS[1]!.address as Address
    const data = encodeFunctionData({ abi: demoTokenAbi, functionName: 'transfer', args: [to, 5n] })
    const params = { calls: [{ from: FROM, to: DEMO_TOKEN_ADDRESS, data, gas: 100_000n }], block, validation: false, traceAssetChanges: false }
    const plain = await engine.simulate(ON_CHAIN, { ...params, traceTransfers: false })
    const traced = await engine.simulate(ON_CHAIN, { ...params, traceTransfers: true })
    const { transfers, ...tracedCall } = traced.calls[0]!
    expect(transfers).toHaveLength(1)
    expect(plain.calls[0]).toEqual(tracedCall)
    const out = await engine.call(ON_CHAIN, { call: params.calls[0]!, block })
    expect(out).toMatchObject({ status: 'success', returnData: plain.calls[0]!.returnData, gasUsed: plain.calls[0]!.gasUsed })
  })
})
