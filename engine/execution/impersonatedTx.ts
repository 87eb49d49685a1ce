/**
 * impersonatedTx: an unsigned ethereumjs transaction whose sender is whoever the call says, so
 * the VM runs it through runTx (intrinsic gas, refunds, the EIP-7623 floor) without a signature.
 * Signing and recovering a sender costs ~2 ms a call; instead the tx is left unfrozen and its
 * `getSenderAddress` / `isSigned` / `hash` answer for the impersonated sender (the approach of
 * tevm's createImpersonatedTx).
 *
 * The tx type follows the fee fields, as geth's call arguments do: maxFeePerGas or
 * maxPriorityFeePerGas → EIP-1559; gasPrice → legacy (EIP-2930 with an access list); none →
 * legacy at price 0 (EIP-1559 when an access list is given from London on); blob hashes → EIP-4844;
 * an authorization list → EIP-7702 (geth's TransactionArgs: fees as EIP-1559, gasPrice as both).
 */
import type { Common } from '@ethereumjs/common'
import { createAccessList2930Tx, createBlob4844Tx, createEOACode7702Tx, createFeeMarket1559Tx, createLegacyTx, type TypedTransaction } from '@ethereumjs/tx'
import {
  Address as EjsAddress,
  bigIntToUnpaddedBytes,
  hexToBytes,
  intToUnpaddedBytes,
  type EOACode7702AuthorizationListBytes,
  type EOACode7702AuthorizationListBytesItem,
} from '@ethereumjs/util'
import { keccak256 } from 'viem'
import { EngineError } from '../platform/errors.js'
import type { Authorization, CallInput } from './types.js'

export interface ImpersonatedTxInput {
  call: CallInput
  nonce: bigint
  gasLimit: bigint
}

/** 2^64 - 1: EIP-2681's bound, checked by the tx constructor */
const MAX_NONCE = 2n ** 64n - 1n

/** EIP-7825 (Osaka) per-tx gas cap, checked by the tx constructor */
const TX_GAS_CAP = 1n << 24n

/**
 * The tuples of a set-code transaction, after geth's checks of the message (core/state_transition.go
 * preCheck: ErrSetCodeTxCreate, ErrEmptyAuthList). A tuple that will not apply (another chain, a
 * wrong nonce, a bad signature) is no error: the EVM skips it, as EIP-7702 says.
 */
function setCodeTuples(common: Common, call: CallInput, list: Authorization[]): EOACode7702AuthorizationListBytes {
  if (!common.isActivatedEIP(7702)) throw new EngineError('VALIDATION_ERROR', 'authorizationList needs the Prague fork')
  if (!call.to) throw new EngineError('VALIDATION_ERROR', `EIP-7702 transaction cannot be used to create contract (sender ${call.from})`)
  if (list.length === 0) throw new EngineError('VALIDATION_ERROR', `EIP-7702 transaction with empty auth list (sender ${call.from})`)
  return list.map(
    (a): EOACode7702AuthorizationListBytesItem => [
      bigIntToUnpaddedBytes(a.chainId),
      hexToBytes(a.address),
      bigIntToUnpaddedBytes(a.nonce),
      intToUnpaddedBytes(a.yParity),
      bigIntToUnpaddedBytes(a.r),
      bigIntToUnpaddedBytes(a.s),
    ],
  )
}

export function createImpersonatedTx(common: Common, { call, nonce, gasLimit }: ImpersonatedTxInput): TypedTransaction {
  const base = {
    // ethereumjs refuses a nonce of 2^64 - 1 or more; geth's calls skip nonce checks and run it
    // (the sender's nonce then wraps to 0): build under it, set it after
    nonce: nonce >= MAX_NONCE ? 0n : nonce,
    // geth's calls skip the EIP-7825 cap (SkipTransactionChecks): build under it, set it after
    gasLimit: gasLimit > TX_GAS_CAP ? TX_GAS_CAP : gasLimit,
    to: call.to ?? undefined,
    value: call.value ?? 0n,
    data: call.data,
  }
  const accessList = call.accessList?.map((e) => ({ address: e.address, storageKeys: e.storageKeys }))
  const opts = { common, freeze: false }
  const london = common.isActivatedEIP(1559)
  let tx: TypedTransaction
  try {
    if (call.blobVersionedHashes?.length) {
      if (!common.isActivatedEIP(4844)) throw new EngineError('VALIDATION_ERROR', 'blob transactions need the Cancun fork')
      if (!call.to) throw new EngineError('VALIDATION_ERROR', 'a blob transaction cannot create a contract: `to` is required')
      tx = createBlob4844Tx(
        {
          ...base,
          maxFeePerGas: call.maxFeePerGas ?? call.gasPrice ?? call.maxPriorityFeePerGas ?? 0n,
          maxPriorityFeePerGas: call.maxPriorityFeePerGas ?? call.gasPrice ?? 0n,
          maxFeePerBlobGas: call.maxFeePerBlobGas ?? 0n,
          blobVersionedHashes: call.blobVersionedHashes,
          accessList,
        },
        opts,
      )
    } else if (call.authorizationList !== undefined) {
      tx = createEOACode7702Tx(
        {
          ...base,
          maxFeePerGas: call.maxFeePerGas ?? call.gasPrice ?? call.maxPriorityFeePerGas ?? 0n,
          maxPriorityFeePerGas: call.maxPriorityFeePerGas ?? call.gasPrice ?? 0n,
          accessList,
          authorizationList: setCodeTuples(common, call, call.authorizationList),
        },
        opts,
      )
    } else if (call.maxFeePerGas !== undefined || call.maxPriorityFeePerGas !== undefined) {
      if (!london) throw new EngineError('VALIDATION_ERROR', 'maxFeePerGas/maxPriorityFeePerGas need the London fork; use gasPrice')
      const maxFeePerGas = call.maxFeePerGas ?? call.maxPriorityFeePerGas ?? 0n
      tx = createFeeMarket1559Tx({ ...base, maxFeePerGas, maxPriorityFeePerGas: call.maxPriorityFeePerGas ?? 0n, accessList }, opts)
    } else if (accessList && accessList.length > 0) {
      if (!common.isActivatedEIP(2930)) throw new EngineError('VALIDATION_ERROR', 'accessList needs the Berlin fork')
      tx =
        call.gasPrice === undefined && london
          ? createFeeMarket1559Tx({ ...base, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, accessList }, opts)
          : createAccessList2930Tx({ ...base, gasPrice: call.gasPrice ?? 0n, accessList }, opts)
    } else {
      tx = createLegacyTx({ ...base, gasPrice: call.gasPrice ?? 0n }, opts)
    }
  } catch (e) {
    if (e instanceof EngineError) throw e
    throw new EngineError('VALIDATION_ERROR', `invalid call: ${(e as Error).message.split(' (tx type')[0]}`)
  }
  const sender = new EjsAddress(hexToBytes(call.from))
  // a stable hash for the impersonated tx, made only if something asks (two keccaks a call otherwise)
  let fakeHash: Uint8Array | undefined
  const unsignedHash = tx.getHashedMessageToSign.bind(tx)
  Object.assign(tx, {
    gasLimit,
    nonce,
    getSenderAddress: () => sender,
    isSigned: () => true,
    hash: () => (fakeHash ??= keccak256(new Uint8Array([...unsignedHash(), ...sender.bytes]), 'bytes')),
  })
  return tx
}
