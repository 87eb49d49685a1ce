/**
 * validateTx: the checks geth runs before a transaction executes (core/state_transition.go
 * preCheck, buyGas, then the intrinsic gas check), in geth's order and with geth's messages, so a
 * bad call is a clear EngineError instead of an ethereumjs exception:
 * nonce (validation only) → fee cap vs base fee → funds (always: value + gas × price) → block gas
 * limit (validation only) → intrinsic gas and the EIP-7623 floor.
 */
import type { Common } from '@ethereumjs/common'
import { Capability, getCalldataFloorGas, isBlob4844Tx, type TypedTransaction } from '@ethereumjs/tx'
import type { Address as EjsAddress } from '@ethereumjs/util'
import { EngineError } from '../platform/errors.js'
import { toQuantity } from '../platform/quantity.js'

/** EIP-4844 GAS_PER_BLOB (2^17), unchanged by later forks */
const BLOB_GAS_PER_BLOB = 131072n

export interface ValidateTxInput {
  tx: TypedTransaction
  sender: EjsAddress
  senderBalance: bigint
  senderNonce: bigint
  common: Common
  /** the base fee the EVM runs with (undefined pre-London) */
  baseFee: bigint | undefined
  /** true when a zero-fee call runs with the base fee zeroed (geth NoBaseFee) */
  noBaseFee: boolean
  blobGasPrice: bigint | undefined
  validation: boolean
  blockGasLimit: bigint
  blockGasUsed: bigint
}

/** fee cap and tip of any tx type (legacy: both the gas price) */
export function feeFields(tx: TypedTransaction): { feeCap: bigint; tip: bigint } {
  if (tx.supports(Capability.EIP1559FeeMarket)) {
    const t = tx as TypedTransaction & { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }
    return { feeCap: t.maxFeePerGas, tip: t.maxPriorityFeePerGas }
  }
  const p = (tx as TypedTransaction & { gasPrice: bigint }).gasPrice
  return { feeCap: p, tip: p }
}

const MAX_NONCE = 2n ** 64n - 1n

export function validateTx(v: ValidateTxInput): void {
  const { tx, common } = v
  const who = v.sender.toString()
  if (v.validation) {
    if (tx.nonce < v.senderNonce) {
      throw new EngineError('VALIDATION_ERROR', `nonce too low: address ${who}, tx: ${tx.nonce} state: ${v.senderNonce}`, { rule: 'nonce' })
    }
    if (tx.nonce > v.senderNonce) {
      throw new EngineError('VALIDATION_ERROR', `nonce too high: address ${who}, tx: ${tx.nonce} state: ${v.senderNonce}`, { rule: 'nonce' })
    }
    // EIP-2681: the sender's nonce could not be bumped past it (geth ErrNonceMax)
    if (v.senderNonce >= MAX_NONCE) {
      throw new EngineError('VALIDATION_ERROR', `nonce has max value: address ${who}, nonce: ${v.senderNonce}`, { rule: 'nonceMax' })
    }
  }
  const { feeCap, tip } = feeFields(tx)
  if (v.baseFee !== undefined && !(v.noBaseFee && feeCap === 0n && tip === 0n)) {
    if (tip > feeCap) {
      throw new EngineError(
        'VALIDATION_ERROR',
        `max priority fee per gas higher than max fee per gas: address ${who}, maxPriorityFeePerGas: ${tip}, maxFeePerGas: ${feeCap}`,
        { rule: 'fees' },
      )
    }
    if (feeCap < v.baseFee) {
      throw new EngineError(
        'VALIDATION_ERROR',
        `max fee per gas less than block base fee: address ${who}, maxFeePerGas: ${feeCap}, baseFee: ${v.baseFee}`,
        { rule: 'baseFee' },
        'raise maxFeePerGas (or gasPrice) to at least the block base fee, or send no fee fields',
      )
    }
  }
  let want = tx.gasLimit * feeCap + tx.value
  if (isBlob4844Tx(tx)) {
    const blobGas = BLOB_GAS_PER_BLOB * BigInt(tx.numBlobs())
    want += blobGas * tx.maxFeePerBlobGas
    if (v.validation && v.blobGasPrice !== undefined && tx.maxFeePerBlobGas < v.blobGasPrice) {
      throw new EngineError(
        'VALIDATION_ERROR',
        `max fee per blob gas less than block blob gas fee: address ${who} blobGasFeeCap: ${tx.maxFeePerBlobGas}, blobBaseFee: ${v.blobGasPrice}`,
        { rule: 'blobFee' },
      )
    }
  }
  if (v.senderBalance < want) {
    throw new EngineError(
      'VALIDATION_ERROR',
      `insufficient funds for gas * price + value: address ${who} have ${v.senderBalance} want ${want}`,
      { rule: 'funds', have: toQuantity(v.senderBalance), want: toQuantity(want) },
      'fund the sender (a balance state override) or lower value, gas or gas price',
    )
  }
  if (v.validation && tx.gasLimit > v.blockGasLimit - v.blockGasUsed) {
    throw new EngineError('VALIDATION_ERROR', `gas limit reached: tx gas ${tx.gasLimit} exceeds the block's remaining ${v.blockGasLimit - v.blockGasUsed}`, {
      rule: 'blockGasLimit',
    })
  }
  const intrinsic = tx.getIntrinsicGas()
  if (tx.gasLimit < intrinsic) {
    throw new EngineError(
      'INSUFFICIENT_GAS',
      `intrinsic gas too low: have ${tx.gasLimit}, want ${intrinsic}`,
      { gasRequired: toQuantity(intrinsic) },
      `set gas to at least ${intrinsic}`,
    )
  }
  if (common.isActivatedEIP(7623)) {
    const floor = getCalldataFloorGas(tx, v.sender)
    if (tx.gasLimit < floor) {
      throw new EngineError(
        'INSUFFICIENT_GAS',
        `insufficient gas for floor data gas cost: have ${tx.gasLimit}, want ${floor}`,
        { gasRequired: toQuantity(floor) },
        `set gas to at least ${floor}`,
      )
    }
  }
}
