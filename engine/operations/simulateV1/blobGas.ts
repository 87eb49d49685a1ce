/**
 * The excess blob gas of a simulated block, as geth's eip4844.CalcExcessBlobGas computes it from
 * its parent: the fork's blob schedule of the CHILD block (Cancun 3/6 blobs, Prague 6/9, and the
 * blob-parameter-only forks BPO1/BPO2 that raise the target), and from Osaka on EIP-7918's reserve
 * price (when blob gas is cheaper than its execution cost at the parent's base fee, the excess
 * only grows, by the parent's blob gas scaled by (max − target) / max).
 *
 * A bare Common holds no block parameters: the schedule is read from a copy with
 * @ethereumjs/block's table merged (a genesis' own blobSchedule, as ethereumjs keeps it, included).
 *
 * @example
 * env.excessBlobGas = nextExcessBlobGas(common, parent)
 */
import { paramsBlock } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { fakeExponential } from '../../execution/evmBlock.js'

export interface BlobParent {
  excessBlobGas: bigint | undefined
  blobGasUsed: bigint | undefined
  baseFeePerGas: bigint | undefined
}

export function nextExcessBlobGas(child: Common, parent: BlobParent): bigint {
  const common = child.copy()
  common.updateParams(paramsBlock)
  const { target, max } = blobSchedule(common)
  const excess = parent.excessBlobGas ?? 0n
  const used = parent.blobGasUsed ?? 0n
  if (excess + used < target) return 0n
  if (common.isActivatedEIP(7918)) {
    const reservePrice = common.param('blobBaseCost') * (parent.baseFeePerGas ?? 0n)
    const blobBaseFee = fakeExponential(common.param('minBlobGas'), excess, common.param('blobGasPriceUpdateFraction'))
    const blobPrice = blobBaseFee * common.param('blobGasPerBlob')
    if (reservePrice > blobPrice) return excess + (used * (max - target)) / max
  }
  return excess + used - target
}

/**
 * target and max blob gas per block of the Common's fork. ethereumjs keeps them two ways: its own
 * schedule (BPO forks as `target`/`max` blob counts, read by getBlobGasSchedule), and a geth
 * genesis' `blobSchedule`, which it turns into per-fork `targetBlobGasPerBlock`/`maxBlobGasPerBlock`
 * (then a BPO fork has no `target` and getBlobGasSchedule throws).
 */
function blobSchedule(common: Common): { target: bigint; max: bigint } {
  try {
    const s = common.getBlobGasSchedule()
    return { target: s.targetBlobGasPerBlock, max: s.maxBlobGasPerBlock }
  } catch {
    return { target: common.param('targetBlobGasPerBlock'), max: common.param('maxBlobGasPerBlock') }
  }
}
