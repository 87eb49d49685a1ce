/**
 * The block a run sees (engine/execution/evmBlock.ts): its header fields decoded from the
 * BlockEnv, reused while runs follow one another at the same block (by value: every request has a
 * BlockEnv and a Common of its own), and decoded anew as soon as any of them differs; the blob
 * base fee follows each run's fork and fields.
 */
import { paramsBlock } from '@ethereumjs/block'
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { describe, expect, it } from 'vitest'
import { buildEvmBlock } from '../../../engine/execution/evmBlock.js'
import type { BlockEnv } from '../../../engine/execution/types.js'

const env = (over: Partial<BlockEnv> = {}): BlockEnv => ({
  number: 100n,
  timestamp: 1_700_000_000n,
  gasLimit: 30_000_000n,
  coinbase: '0x00000000000000000000000000000000000000c0',
  difficulty: 0n,
  prevRandao: '0x0000000000000000000000000000000000000000000000000000000000000042',
  excessBlobGas: 0n,
  parentBeaconBlockRoot: '0x00000000000000000000000000000000000000000000000000000000000000be',
  ...over,
})
// the service's Commons carry the block parameters (minBlobGas...) as ethereumjs' Block does
const withBlockParams = (hardfork: string) => new Common({ chain: Mainnet, hardfork, params: paramsBlock })
const cancun = withBlockParams(Hardfork.Cancun)
const header = (e: BlockEnv, common = cancun) =>
  (buildEvmBlock(e, common, { baseFeePerGas: 7n }) as unknown as { header: Record<string, unknown> & { getBlobGasPrice(): bigint | undefined } }).header

describe('the block a run sees', () => {
  it('decodes the header fields and keeps them for the next run at the same block', () => {
    const a = header(env())
    expect(String(a.coinbase)).toBe('0x00000000000000000000000000000000000000c0')
    expect(a.prevRandao).toEqual(a.mixHash)
    expect((a.prevRandao as Uint8Array)[31]).toBe(0x42)
    expect(a.getBlobGasPrice()).toBe(1n)
    expect(a.baseFeePerGas).toBe(7n)
    // another request at the same block: its own BlockEnv and its own copy of the Common
    const b = header(env(), cancun.copy())
    expect(b.coinbase).toBe(a.coinbase)
    expect(b.prevRandao).toBe(a.prevRandao)
  })

  it('decodes anew when a field differs, and prices blobs by the fork of each run', () => {
    const a = header(env())
    const other = header(env({ coinbase: '0x00000000000000000000000000000000000000c1' }))
    expect(String(other.coinbase)).toBe('0x00000000000000000000000000000000000000c1')
    expect(header(env({ blobBaseFee: 9n })).getBlobGasPrice()).toBe(9n)
    // excess blob gas of 10 blobs' target: the price rises above the minimum
    expect(header(env({ excessBlobGas: 10n * 393_216n })).getBlobGasPrice()).toBeGreaterThan(1n)
    expect(header(env(), withBlockParams(Hardfork.Shanghai)).getBlobGasPrice()).toBeUndefined()
    expect(header(env()).coinbase).not.toBe(a.coinbase)
    expect(String(header(env()).coinbase)).toBe(String(a.coinbase))
  })
})
