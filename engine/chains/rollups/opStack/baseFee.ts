/**
 * baseFee: the base fee of the next block of an OP-stack chain from Holocene on, from its parent's
 * header alone (specs: holocene/exec-engine "Dynamic EIP-1559 Parameters", jovian/exec-engine
 * "Minimum Base Fee" and "DA Footprint Block Limit"; op-geth consensus/misc/eip1559
 * CalcBaseFee, DecodeOptimismExtraData):
 *
 * - a Holocene parent's `extraData` is version 0 ‖ denominator (u32) ‖ elasticity (u32), 9 bytes;
 *   a Jovian parent's is version 1 ‖ the same ‖ the minimum base fee (u64), 17 bytes;
 * - the EIP-1559 update runs with that denominator and elasticity, on the parent's gas used, from
 *   Jovian on max(gasUsed, blobGasUsed) (its DA footprint), and from Jovian a result under the
 *   minimum base fee is raised to it.
 *
 * A block this service mines carries its parent's parameters on (there is no L1 SystemConfig to
 * change them), in its own fork's layout.
 *
 * @example
 * opNextBaseFee({ gasLimit: 30_000_000n, gasUsed: 0n, baseFeePerGas: 10n ** 9n, extraData }, 'jovian')
 */
import { bytesToBigInt } from '@ethereumjs/util'
import { opActive, type OpFork } from './forks.js'

export interface Eip1559Params {
  denominator: bigint
  elasticity: bigint
  /** Jovian on */
  minBaseFee?: bigint
}

/** the parameters in a header's extra data in the layout of its block's fork; undefined: none readable */
export function decodeOpExtraData(extra: Uint8Array, fork: OpFork): Eip1559Params | undefined {
  if (!opActive(fork, 'holocene')) return undefined
  // a Jovian header carries the minimum base fee (version 1); Holocene's layout reads without one
  const jovian = opActive(fork, 'jovian') && extra.length === 17 && extra[0] === 1
  if (!jovian && (extra.length !== 9 || extra[0] !== 0)) return undefined
  const denominator = bytesToBigInt(extra.subarray(1, 5))
  const elasticity = bytesToBigInt(extra.subarray(5, 9))
  if (denominator === 0n) return undefined
  return { denominator, elasticity, ...(jovian && { minBaseFee: bytesToBigInt(extra.subarray(9, 17)) }) }
}

/** `params` in the extra data layout of a block of `fork` (Holocene on), the minimum base fee 0 where unknown */
export function encodeOpExtraData(params: Eip1559Params, fork: OpFork): Uint8Array {
  const jovian = opActive(fork, 'jovian')
  const out = new Uint8Array(jovian ? 17 : 9)
  const view = new DataView(out.buffer)
  out[0] = jovian ? 1 : 0
  view.setUint32(1, Number(params.denominator))
  view.setUint32(5, Number(params.elasticity))
  if (jovian) view.setBigUint64(9, params.minBaseFee ?? 0n)
  return out
}

export interface OpParentHeader {
  gasLimit: bigint
  gasUsed: bigint
  blobGasUsed?: bigint
  baseFeePerGas?: bigint
  extraData: Uint8Array
}

/** the next block's base fee after `parent` (a block of `parentFork`); undefined: its extra data has no parameters */
export function opNextBaseFee(parent: OpParentHeader, parentFork: OpFork): bigint | undefined {
  const params = decodeOpExtraData(parent.extraData, parentFork)
  if (!params || parent.baseFeePerGas === undefined || params.elasticity === 0n) return undefined
  const baseFee = parent.baseFeePerGas
  const metered = opActive(parentFork, 'jovian') && (parent.blobGasUsed ?? 0n) > parent.gasUsed ? parent.blobGasUsed! : parent.gasUsed
  const target = parent.gasLimit / params.elasticity
  let next: bigint
  if (metered === target) next = baseFee
  else if (metered > target) {
    const delta = (baseFee * (metered - target)) / target / params.denominator
    next = baseFee + (delta > 1n ? delta : 1n)
  } else {
    const delta = (baseFee * (target - metered)) / target / params.denominator
    next = baseFee > delta ? baseFee - delta : 0n
  }
  return params.minBaseFee !== undefined && next < params.minBaseFee ? params.minBaseFee : next
}
