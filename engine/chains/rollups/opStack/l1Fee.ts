/**
 * l1Fee: what an OP-stack transaction pays besides its gas — the L1 data fee and, from Isthmus,
 * the operator fee — computed from the L1Block predeploy's storage by the block's fork formula
 * (specs: protocol/exec-engine "L1-Cost fees", ecotone/l1-attributes, fjord/exec-engine "Fees",
 * isthmus/exec-engine "Operator fee"; op-revm l1block.rs reads the same slots):
 *
 * - Bedrock/Regolith: (dataGas + overhead) * l1BaseFee * scalar / 1e6, dataGas = 16 per non-zero
 *   byte and 4 per zero byte of the signed transaction (Bedrock adds 68 non-zero bytes);
 * - Ecotone: dataGas * (16 * l1BaseFee * baseFeeScalar + blobBaseFee * blobBaseFeeScalar) / 16e6
 *   (the Bedrock formula while both scalars are still unset, the first Ecotone block);
 * - Fjord on: max(100e6, 836500 * flzLen - 42585600) * (same scaled fee) / 1e12, and
 *   l1GasUsed = that estimate * 16 / 1e6;
 * - Isthmus on: operatorFee = gas * operatorFeeScalar / 1e6 + operatorFeeConstant, charged on
 *   the gas limit up front and on the gas used in the end;
 * - Jovian on: a transaction's DA footprint, max(100, Fjord's estimate / 1e6) * daFootprintGasScalar
 *   (jovian/exec-engine "DA Footprint Block Limit"; op-geth core/types/rollup_cost.go
 *   EstimatedDASize, CalcDAFootprint), which a block's header sums in `blobGasUsed`.
 *
 * @example
 * const info = await readL1BlockInfo(state, 'fjord')
 * l1Cost(info, 'fjord', signedTxBytes) // { l1Fee, l1GasUsed }
 */
import type { StateManagerInterface } from '@ethereumjs/common'
import { Address as EjsAddress, bytesToBigInt, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import { flzCompressLen } from './fastLz.js'
import { opActive, type OpFork } from './forks.js'

export const L1_BLOCK = '0x4200000000000000000000000000000000000015'
export const BASE_FEE_VAULT = '0x4200000000000000000000000000000000000019'
export const L1_FEE_VAULT = '0x420000000000000000000000000000000000001a'
export const OPERATOR_FEE_VAULT = '0x420000000000000000000000000000000000001b'
export const SEQUENCER_FEE_VAULT = '0x4200000000000000000000000000000000000011'

/** the L1Block fields the fee formulas read (slots per the L1Block storage layout) */
export interface L1BlockInfo {
  l1BaseFee: bigint
  /** pre-Ecotone, or Ecotone before its scalars are set */
  overhead: bigint
  /** pre-Ecotone: the one scalar; Ecotone on: baseFeeScalar */
  baseFeeScalar: bigint
  blobBaseFee: bigint
  blobBaseFeeScalar: bigint
  /** Ecotone active but both scalars still zero: the Bedrock formula applies */
  emptyEcotoneScalars: boolean
  operatorFeeScalar: bigint
  operatorFeeConstant: bigint
  /** Jovian on: the DA footprint gas scalar (uint16 beside the operator fee parameters) */
  daFootprintGasScalar: bigint
}

export interface L1Cost {
  l1Fee: bigint
  l1GasUsed: bigint
}

const SLOT = { l1BaseFee: 1n, feeScalars: 3n, overhead: 5n, scalar: 6n, blobBaseFee: 7n, operatorFee: 8n }
const l1Block = new EjsAddress(hexToBytes(L1_BLOCK))

async function slot(state: StateManagerInterface, n: bigint): Promise<Uint8Array> {
  const key = setLengthLeft(hexToBytes(`0x${n.toString(16).padStart(2, '0')}`), 32)
  return setLengthLeft(await state.getStorage(l1Block, key), 32)
}

const field = (word: Uint8Array, offset: number, size: number): bigint => bytesToBigInt(word.subarray(offset, offset + size))

export async function readL1BlockInfo(state: StateManagerInterface, fork: OpFork): Promise<L1BlockInfo> {
  const l1BaseFee = bytesToBigInt(await slot(state, SLOT.l1BaseFee))
  const info: L1BlockInfo = {
    l1BaseFee,
    overhead: 0n,
    baseFeeScalar: 0n,
    blobBaseFee: 0n,
    blobBaseFeeScalar: 0n,
    emptyEcotoneScalars: false,
    operatorFeeScalar: 0n,
    operatorFeeConstant: 0n,
    daFootprintGasScalar: 0n,
  }
  if (!opActive(fork, 'ecotone')) {
    info.baseFeeScalar = bytesToBigInt(await slot(state, SLOT.scalar))
    info.overhead = bytesToBigInt(await slot(state, SLOT.overhead))
    return info
  }
  const scalars = await slot(state, SLOT.feeScalars)
  info.blobBaseFee = bytesToBigInt(await slot(state, SLOT.blobBaseFee))
  // baseFeeScalar at byte 16, blobBaseFeeScalar at byte 20 (both uint32, beside the sequence number)
  info.baseFeeScalar = field(scalars, 16, 4)
  info.blobBaseFeeScalar = field(scalars, 20, 4)
  info.emptyEcotoneScalars = info.baseFeeScalar === 0n && info.blobBaseFeeScalar === 0n
  if (info.emptyEcotoneScalars) {
    // the first Ecotone block still runs the Bedrock formula, with the old single scalar slot's value
    // op-revm reads overhead here and keeps baseFeeScalar 0, as the specs' edge case does
    info.overhead = bytesToBigInt(await slot(state, SLOT.overhead))
  }
  if (opActive(fork, 'isthmus')) {
    const op = await slot(state, SLOT.operatorFee)
    info.operatorFeeScalar = field(op, 20, 4)
    info.operatorFeeConstant = field(op, 24, 8)
    if (opActive(fork, 'jovian')) info.daFootprintGasScalar = field(op, 18, 2)
  }
  return info
}

/** calldata gas of the bytes: 4 per zero byte, 16 per other (EIP-2028 pricing) */
function calldataGas(bytes: Uint8Array): bigint {
  let zeros = 0
  for (const b of bytes) if (b === 0) zeros++
  return BigInt(zeros) * 4n + BigInt(bytes.length - zeros) * 16n
}

/** Fjord's compressed-size estimate, scaled by 1e6 */
export function fjordEstimatedSize(bytes: Uint8Array, extraFlzBytes = 0): bigint {
  const flz = BigInt(flzCompressLen(bytes) + extraFlzBytes)
  const estimate = 836_500n * flz - 42_585_600n
  return estimate > 100_000_000n ? estimate : 100_000_000n
}

/**
 * The scalar an L1 attributes deposit sets when the SystemConfig's is 0 (specs: jovian/l1-attributes)
 */
export const DA_FOOTPRINT_GAS_SCALAR_DEFAULT = 400n

/**
 * A transaction's DA footprint from its EIP-2718 bytes as signed: its DA usage estimate in bytes
 * (Fjord's estimate unscaled, at least 100) times the block's DA footprint gas scalar; a deposit's
 * is 0.
 */
export function daFootprint(enveloped: Uint8Array, scalar: bigint): bigint {
  if (enveloped[0] === 0x7e) return 0n
  return (fjordEstimatedSize(enveloped) / 1_000_000n) * scalar
}

/** data gas: what the fork counts the transaction's bytes as in L1 gas */
export function dataGas(fork: OpFork, bytes: Uint8Array): bigint {
  if (opActive(fork, 'fjord')) return (fjordEstimatedSize(bytes) * 16n) / 1_000_000n
  const gas = calldataGas(bytes)
  // before Regolith the empty signature's 68 bytes were counted as non-zero
  return opActive(fork, 'regolith') ? gas : gas + 68n * 16n
}

const scaledFee = (i: L1BlockInfo): bigint => i.l1BaseFee * 16n * i.baseFeeScalar + i.blobBaseFee * i.blobBaseFeeScalar

/**
 * The L1 data fee of a transaction from its EIP-2718 bytes as signed (a deposit, type 0x7e, or
 * nothing: 0).
 */
export function l1Cost(info: L1BlockInfo, fork: OpFork, enveloped: Uint8Array): L1Cost {
  if (enveloped.length === 0 || enveloped[0] === 0x7e) return { l1Fee: 0n, l1GasUsed: 0n }
  const gasUsed = dataGas(fork, enveloped)
  if (!opActive(fork, 'ecotone') || info.emptyEcotoneScalars) {
    return { l1Fee: ((gasUsed + info.overhead) * info.l1BaseFee * info.baseFeeScalar) / 1_000_000n, l1GasUsed: gasUsed + info.overhead }
  }
  if (!opActive(fork, 'fjord')) return { l1Fee: (gasUsed * scaledFee(info)) / 16_000_000n, l1GasUsed: gasUsed }
  const scaled = scaledFee(info)
  if (scaled === 0n) return { l1Fee: 0n, l1GasUsed: gasUsed }
  return { l1Fee: (fjordEstimatedSize(enveloped) * scaled) / 1_000_000_000_000n, l1GasUsed: gasUsed }
}

/**
 * The operator fee on `gas` (Isthmus on; 0 before). Jovian multiplies the scalar by 100 instead
 * of dividing by 1e6 (specs: jovian/exec-engine).
 */
export function operatorFee(info: L1BlockInfo, fork: OpFork, gas: bigint): bigint {
  if (!opActive(fork, 'isthmus')) return 0n
  if (opActive(fork, 'jovian')) return gas * info.operatorFeeScalar * 100n + info.operatorFeeConstant
  return (gas * info.operatorFeeScalar) / 1_000_000n + info.operatorFeeConstant
}
