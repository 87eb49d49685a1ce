/**
 * The base fee after an OP-stack block from Holocene (op-geth consensus/misc/eip1559 CalcBaseFee;
 * specs: holocene/exec-engine "Dynamic EIP-1559 Parameters", jovian/exec-engine "Minimum Base
 * Fee", "DA Footprint Block Limit"): the parent's extra data gives the denominator and elasticity
 * (and from Jovian the minimum base fee), a Jovian parent's DA footprint (blobGasUsed) counts when
 * above its gas used. A fork's mined block carries its parent's parameters on, in its own fork's
 * layout (op-geth's EncodeMinBaseFeeExtraData(250, 6, 1e9) test vector for the Jovian one).
 */
import { createBlockHeader } from '@ethereumjs/block'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { decodeOpExtraData, encodeOpExtraData, opNextBaseFee } from '../../../../../engine/chains/rollups/opStack/baseFee.js'
import { createOpStackRules } from '../../../../../engine/chains/rollups/opStack/opStackRules.js'

const HOLOCENE_250_6 = hexToBytes('0x00000000fa00000006')
const JOVIAN_250_6_1GWEI = hexToBytes('0x01000000fa00000006000000003b9aca00')
const GWEI = 1_000_000_000n
// gas limit 30M, elasticity 6: target 5M; denominator 250
const parent = (o: { gasUsed: bigint; blobGasUsed?: bigint; baseFeePerGas?: bigint; extraData?: Uint8Array }) => ({
  gasLimit: 30_000_000n,
  baseFeePerGas: GWEI,
  extraData: HOLOCENE_250_6,
  ...o,
})

describe('OP-stack extra data (Holocene, Jovian)', () => {
  it("encodes and decodes the parameters in each fork's layout", () => {
    expect(bytesToHex(encodeOpExtraData({ denominator: 250n, elasticity: 6n, minBaseFee: GWEI }, 'jovian'))).toBe(bytesToHex(JOVIAN_250_6_1GWEI))
    expect(bytesToHex(encodeOpExtraData({ denominator: 250n, elasticity: 6n }, 'holocene'))).toBe(bytesToHex(HOLOCENE_250_6))
    expect(decodeOpExtraData(JOVIAN_250_6_1GWEI, 'jovian')).toEqual({ denominator: 250n, elasticity: 6n, minBaseFee: GWEI })
    expect(decodeOpExtraData(HOLOCENE_250_6, 'isthmus')).toEqual({ denominator: 250n, elasticity: 6n })
    // before Holocene, or in another layout: none
    expect(decodeOpExtraData(HOLOCENE_250_6, 'granite')).toBeUndefined()
    expect(decodeOpExtraData(JOVIAN_250_6_1GWEI, 'isthmus')).toBeUndefined()
    expect(decodeOpExtraData(new Uint8Array(0), 'jovian')).toBeUndefined()
  })
})

describe('OP-stack next base fee', () => {
  it("Holocene: EIP-1559 with the parent's denominator and elasticity", () => {
    expect(opNextBaseFee(parent({ gasUsed: 5_000_000n }), 'holocene')).toBe(GWEI)
    expect(opNextBaseFee(parent({ gasUsed: 0n }), 'holocene')).toBe(GWEI - GWEI / 250n)
    expect(opNextBaseFee(parent({ gasUsed: 30_000_000n }), 'isthmus')).toBe(GWEI + (GWEI * 25n) / 5n / 250n)
    // an increase is at least 1 wei
    expect(opNextBaseFee(parent({ gasUsed: 5_000_001n, baseFeePerGas: 1n }), 'isthmus')).toBe(2n)
  })

  it('Jovian: the DA footprint counts when above the gas used; the minimum base fee holds', () => {
    const daHeavy = {
      gasUsed: 1_000_000n,
      blobGasUsed: 30_000_000n,
      extraData: encodeOpExtraData({ denominator: 250n, elasticity: 6n, minBaseFee: 0n }, 'jovian'),
    }
    expect(opNextBaseFee(parent(daHeavy), 'jovian')).toBe(GWEI + (GWEI * 25n) / 5n / 250n)
    // an Isthmus parent's blobGasUsed is not a DA footprint
    expect(opNextBaseFee(parent({ ...daHeavy, extraData: HOLOCENE_250_6 }), 'isthmus')).toBe(GWEI - (GWEI * 4n) / 5n / 250n)
    expect(
      opNextBaseFee(parent({ gasUsed: 0n, extraData: encodeOpExtraData({ denominator: 250n, elasticity: 6n, minBaseFee: 2n * GWEI }, 'jovian') }), 'jovian'),
    ).toBe(2n * GWEI)
  })

  it("without readable parameters (before Holocene, empty extra data): none, EIP-1559's applies", () => {
    expect(opNextBaseFee(parent({ gasUsed: 0n }), 'granite')).toBeUndefined()
    expect(opNextBaseFee(parent({ gasUsed: 0n, extraData: new Uint8Array(0) }), 'jovian')).toBeUndefined()
  })

  it("the rules: a mined block's base fee and extra data from its parent's header", () => {
    const rules = createOpStackRules({ chainId: 10, hardfork: 'jovian' })
    const common = rules.commonFactory!({ number: 1n, timestamp: 1n })
    const header = createBlockHeader(
      {
        number: 1n,
        timestamp: 1n,
        gasLimit: 30_000_000n,
        gasUsed: 1_000_000n,
        blobGasUsed: 30_000_000n,
        excessBlobGas: 0n,
        baseFeePerGas: GWEI,
        extraData: JOVIAN_250_6_1GWEI,
      },
      { common, setHardfork: false },
    )
    expect(rules.nextBaseFee!(header)).toBe(GWEI + (GWEI * 25n) / 5n / 250n)
    expect(bytesToHex(rules.minedExtraData!(header, { number: 2n, timestamp: 2n })!)).toBe(bytesToHex(JOVIAN_250_6_1GWEI))
    // a Holocene-layout parent carried into a Jovian block: version 1, minimum base fee 0
    const isthmusRules = createOpStackRules({ chainId: 10, hardfork: 'isthmus' })
    const holocene = createBlockHeader(
      { number: 1n, timestamp: 1n, gasLimit: 30_000_000n, baseFeePerGas: GWEI, excessBlobGas: 0n, blobGasUsed: 0n, extraData: HOLOCENE_250_6 },
      { common, setHardfork: false },
    )
    expect(bytesToHex(isthmusRules.minedExtraData!(holocene, { number: 2n, timestamp: 2n })!)).toBe(bytesToHex(HOLOCENE_250_6))
    expect(bytesToHex(rules.minedExtraData!(holocene, { number: 2n, timestamp: 2n })!)).toBe('0x01000000fa000000060000000000000000')
  })
})
