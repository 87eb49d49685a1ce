/**
 * The OP-stack fee formulas against the reference implementations' own vectors: op-revm's
 * l1block.rs and fast_lz.rs tests (Regolith, Ecotone, Fjord, Isthmus and Jovian cases, two of
 * them real OP Mainnet transactions with the fee the chain charged), and the fork schedule of
 * OP Mainnet at its activation times.
 */
import { describe, expect, it } from 'vitest'
import { hexToBytes } from '@ethereumjs/util'
import { flzCompressLen } from '../../../../../engine/chains/rollups/opStack/fastLz.js'
import { dataGas, l1Cost, operatorFee, type L1BlockInfo } from '../../../../../engine/chains/rollups/opStack/l1Fee.js'
import { ethereumForkOf, opForkAt, opScheduleOf } from '../../../../../engine/chains/rollups/opStack/forks.js'

const info = (o: Partial<L1BlockInfo>): L1BlockInfo => ({
  l1BaseFee: 0n,
  overhead: 0n,
  baseFeeScalar: 0n,
  blobBaseFee: 0n,
  blobBaseFeeScalar: 0n,
  emptyEcotoneScalars: false,
  operatorFeeScalar: 0n,
  operatorFeeConstant: 0n,
  daFootprintGasScalar: 0n,
  ...o,
})
const b = (hex: string) => hexToBytes(`0x${hex}`)

// op-revm fast_lz.rs: sample_contract_call (a real OP transaction), 202 compressed bytes
const SAMPLE_CALL =
  '02f901550a758302df1483be21b88304743f94f80e51afb613d764fa61751affd3313c190a86bb870151bd62fd12adb8e41ef24f3f000000000000000000000000000000000000000000000000000000000000006e000000000000000000000000af88d065e77c8cc2239327c5edb3a432268e5831000000000000000000000000000000000000000000000000000000000003c1e5000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000a000000000000000000000000000000000000000000000000000000000000000148c89ed219d02f1a5be012c689b4f5b731827bebe000000000000000000000000c001a033fd89cb37c31b2cba46b6466e040c61fc9b2a3675a7f5f493ebd5ad77c497f8a07cdf65680e238392693019b4092f610222e71b7cec06449cb922b93b6a12744e'
// second transaction of OP Mainnet Ecotone block 118024092 (l1 gas used 2456, fee 7306020222001 wei)
const ECOTONE_TX =
  '02f8b30a832253fc8402d11f39842c8a46398301388094dc6ff44d5d932cbd77b52e5612ba0529dc6226f180b844a9059cbb000000000000000000000000d43e02db81f4d46cdf8521f623d21ea0ec7562a50000000000000000000000000000000000000000000000008ac7230489e80000c001a02947e24750723b48f886931562c55d9e07f856d8e06468e719755e18bbc3a570a0784da9ce59fd7754ea5be6e17a86b348e441348cd48ace59d174772465eadbd1'

describe('FastLZ compressed length (op-revm fast_lz.rs vectors)', () => {
  it.each([
    ['empty', new Uint8Array(0), 0],
    ['1000 zeros', new Uint8Array(1000), 21],
    ['1000 x 42', new Uint8Array(1000).fill(42), 21],
    ['0xFACADE', b('facade'), 4],
    ['a contract call', b(SAMPLE_CALL), 202],
  ])('%s', (_name, input, expected) => {
    expect(flzCompressLen(input)).toBe(expected)
  })

  it('grows with every new byte of a sequence without repeats', () => {
    let last = 0
    for (let n = 1; n <= 256; n++) {
      const len = flzCompressLen(Uint8Array.from({ length: n }, (_, i) => i))
      expect(len).toBeGreaterThan(last)
      last = len
    }
  })
})

describe('data gas per fork', () => {
  it('counts 16 per non-zero byte and 4 per zero byte; Bedrock adds 68 bytes; Fjord prices at least 100 bytes', () => {
    expect(dataGas('bedrock', b('facade'))).toBe(1136n)
    expect(dataGas('regolith', b('facade'))).toBe(48n)
    expect(dataGas('fjord', b('facade'))).toBe(1600n)
    expect(dataGas('bedrock', b('fa00ca00de'))).toBe(1144n)
    expect(dataGas('regolith', b('fa00ca00de'))).toBe(56n)
    expect(dataGas('fjord', b('fa00ca00de'))).toBe(1600n)
  })
})

describe('L1 data fee', () => {
  it('Regolith: (dataGas + overhead) * l1BaseFee * scalar / 1e6; nothing for a deposit or no bytes', () => {
    const i = info({ l1BaseFee: 1000n, overhead: 1000n, baseFeeScalar: 1000n })
    expect(l1Cost(i, 'regolith', b('facade')).l1Fee).toBe(1048n)
    expect(l1Cost(i, 'regolith', new Uint8Array(0)).l1Fee).toBe(0n)
    expect(l1Cost(i, 'regolith', b('7efacade')).l1Fee).toBe(0n)
  })

  it('Ecotone: dataGas * (16 * l1BaseFee * scalar + blobBaseFee * blobScalar) / 16e6, Bedrock while the scalars are unset', () => {
    const i = info({ l1BaseFee: 1000n, baseFeeScalar: 1000n, blobBaseFee: 1000n, blobBaseFeeScalar: 1000n, overhead: 1000n })
    expect(l1Cost(i, 'ecotone', b('facade')).l1Fee).toBe(51n)
    expect(l1Cost(i, 'ecotone', b('7efacade')).l1Fee).toBe(0n)
    expect(l1Cost({ ...i, emptyEcotoneScalars: true }, 'ecotone', b('facade')).l1Fee).toBe(1048n)
  })

  it('Ecotone: the fee OP Mainnet charged for a transfer of block 118024092', () => {
    const i = info({ l1BaseFee: 0xaf39ac327n, baseFeeScalar: 1368n, blobBaseFee: 0xd5ea528d2n, blobBaseFeeScalar: 810949n })
    const cost = l1Cost(i, 'ecotone', b(ECOTONE_TX))
    expect(cost.l1GasUsed).toBe(2456n)
    expect(cost.l1Fee).toBe(0x6a510bd7431n)
  })

  it('Fjord: max(100e6, 836500 * flzLen - 42585600) * scaled fee / 1e12', () => {
    const i = info({ l1BaseFee: 1000n, baseFeeScalar: 1000n, blobBaseFee: 1000n, blobBaseFeeScalar: 1000n })
    expect(l1Cost(i, 'fjord', b('facade')).l1Fee).toBe(1700n)
    expect(l1Cost(i, 'fjord', b(SAMPLE_CALL)).l1Fee).toBe(2148n)
    expect(l1Cost(i, 'fjord', b('7efacade')).l1Fee).toBe(0n)
  })
})

describe('operator fee', () => {
  const i = info({ operatorFeeScalar: 1000n, operatorFeeConstant: 10n })
  it('Isthmus: gas * scalar / 1e6 + constant; Jovian: gas * scalar * 100 + constant; nothing before Isthmus', () => {
    expect(operatorFee(i, 'isthmus', 1000n)).toBe(11n)
    expect(operatorFee(i, 'jovian', 1000n)).toBe(100_000_010n)
    expect(operatorFee(i, 'holocene', 1000n)).toBe(0n)
  })

  it('refunds the unused gas share: charge(limit) - charge(used), op-revm operator_fee_refund vector', () => {
    const j = info({ operatorFeeScalar: 2000n, operatorFeeConstant: 5n })
    // Gas::new(50000) with nothing spent: refund = charge(50000) - charge(0) = 100
    expect(operatorFee(j, 'isthmus', 50_000n) - operatorFee(j, 'isthmus', 0n)).toBe(100n)
  })
})

describe('OP Mainnet fork schedule', () => {
  const s = opScheduleOf(10)!
  it('names the fork active at each activation time, and the Ethereum fork its EVM runs', () => {
    expect(opForkAt(s, 1_710_374_400n)).toBe('delta')
    expect(opForkAt(s, 1_710_374_401n)).toBe('ecotone')
    expect(opForkAt(s, 1_720_627_201n)).toBe('fjord')
    expect(opForkAt(s, 1_746_806_401n)).toBe('isthmus')
    expect(ethereumForkOf('fjord')).toBe('cancun')
    expect(ethereumForkOf('isthmus')).toBe('prague')
    expect(ethereumForkOf('canyon')).toBe('shanghai')
  })
})
