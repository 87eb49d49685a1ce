/**
 * The one block-override reader of eth_call, eth_estimateGas, debug_traceCall(Many) and
 * eth_simulateV1: geth's names and alloy's (reth, cast), two names of one field refused as reth
 * refuses them, fields the engine cannot apply refused by name.
 */
import { describe, expect, it } from 'vitest'
import { parseBlockOverrides } from '../../../../src/rpc/params/blockOverrides.js'
import { RpcError } from '../../../../src/rpc/rpcError.js'

const A = '0x00000000000000000000000000000000000000aa'
const R = `0x${'12'.repeat(32)}`

function refusal(v: unknown, opts: { simulate?: boolean } = {}): string {
  try {
    parseBlockOverrides(v, 3, 'blockOverrides', opts)
  } catch (e) {
    expect(e).toBeInstanceOf(RpcError)
    expect((e as RpcError).code).toBe(-32602)
    return (e as RpcError).message
  }
  throw new Error('expected a refusal')
}

describe('parseBlockOverrides', () => {
  it("reads geth's names and alloy's into the same overrides", () => {
    const want = { number: 0x99n, time: 0x10n, gasLimit: 0x5208n, coinbase: A, prevRandao: R, baseFee: 7n, blobBaseFee: 2n }
    expect(
      parseBlockOverrides({ number: '0x99', time: '0x10', gasLimit: '0x5208', feeRecipient: A, prevRandao: R, baseFeePerGas: '0x7', blobBaseFee: '0x2' }, 3),
    ).toEqual(want)
    expect(
      parseBlockOverrides({ blockNumber: '0x99', timestamp: '0x10', gasLimit: '0x5208', coinbase: A, random: R, baseFee: '0x7', blobBaseFee: '0x2' }, 3),
    ).toEqual(want)
    expect(parseBlockOverrides({ baseFee: '0x0' }, 3, '')).toEqual({ baseFee: 0n })
    expect(parseBlockOverrides(null, 3)).toBeUndefined()
  })

  it('refuses one field under two names, a null one too, as reth does', () => {
    expect(refusal({ baseFee: '0x1', baseFeePerGas: '0x2' })).toBe('invalid argument 3: blockOverrides.baseFeePerGas: baseFee is given twice')
    expect(refusal({ baseFeePerGas: '0x1', baseFee: null })).toBe('invalid argument 3: blockOverrides.baseFee: baseFee is given twice')
    expect(refusal({ coinbase: A, feeRecipient: A })).toMatch(/feeRecipient: coinbase is given twice/)
    expect(refusal({ number: '0x1', blockNumber: '0x1' }, { simulate: true })).toMatch(/blockNumber: number is given twice/)
  })

  it('refuses what the engine cannot apply and what nobody knows, by name', () => {
    expect(refusal({ beaconRoot: R })).toBe('invalid argument 3: blockOverrides.beaconRoot: block override "beaconRoot" is not supported for this RPC method')
    expect(refusal({ difficulty: '0x1' })).toMatch(/difficulty: block override "difficulty" is not supported here/)
    expect(refusal({ withdrawals: [] }, { simulate: true })).toMatch(/withdrawals is not supported by eth_simulateV1 here/)
    expect(refusal({ baseFeePerGass: '0x1' })).toMatch(/^invalid argument 3: blockOverrides\.baseFeePerGass: unknown field \(accepted: .*baseFee/)
    expect(refusal({ baseFee: 7 })).toMatch(/baseFee: expected a hex quantity string/)
    expect(refusal('0x1')).toBe('invalid argument 3: blockOverrides: expected a block overrides object')
  })

  it("eth_simulateV1's reading: difficulty read and ignored as geth does, a number wider than 64 bits left to the simulation", () => {
    expect(parseBlockOverrides({ difficulty: '0x1', number: '0x10000000000000000' }, 0, 'b', { simulate: true })).toEqual({ number: 2n ** 64n })
    expect(refusal({ number: '0x10000000000000000' })).toMatch(/number: hex number > 64 bits/)
    expect(refusal({ difficulty: '0x01' }, { simulate: true })).toMatch(/difficulty: hex number with leading zero digits/)
  })
})
