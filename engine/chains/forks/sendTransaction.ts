/**
 * How a transaction enters a writable fork, as a node's pool takes it: eth_sendRawTransaction
 * decodes and checks the signed bytes (geth's txpool texts: `invalid sender: invalid chain id for
 * signer: …`, `nonce too low: next nonce N, tx nonce M`, `insufficient funds for gas * price +
 * value: balance B, tx cost C, overshot O`, `intrinsic gas too low: …`); eth_sendTransaction
 * builds one from a call object for an impersonated account or a devnet dev account, filling
 * nonce, gas and fees as Anvil fills them.
 */
import { preparedCommon } from '../../execution/preparedCommon.js'
import type { Common } from '@ethereumjs/common'
import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx, createTxFromRLP, TransactionType, type TypedTransaction } from '@ethereumjs/tx'
import { bytesToBigInt, hexToBytes } from '@ethereumjs/util'
import { fromRlp, keccak256, toHex, type Address, type Hex } from 'viem'
import { EngineError } from '../../platform/errors.js'
import { feeFields } from '../../execution/validateTx.js'
import type { OverlayStateManager } from '../../state/index.js'
import { createAddressFromString, type Address as EjsAddress } from '@ethereumjs/util'
import { holdDecodedTx } from './forkChain.js'
import type { PoolTx, SendCall } from './types.js'

/** a transaction the pool refuses, in geth's txpool words */
const invalid = (message: string) => new EngineError('VALIDATION_ERROR', message)

/** decodes and checks a signed transaction against the fork's head; the pool entry */
export async function acceptRawTransaction(
  raw: Hex,
  common: Common,
  chainId: number,
  head: { state: OverlayStateManager; baseFee: bigint | undefined; pendingNonce(from: Address): Promise<bigint> },
): Promise<{ entry: PoolTx; tx: TypedTransaction }> {
  const bytes = hexToBytes(raw)
  if (bytes[0] === TransactionType.BlobEIP4844) {
    throw invalid('transaction type not supported: blob transactions (EIP-4844) are not accepted by a fork')
  }
  // the chain id is read before decoding: ethereumjs refuses another chain's tx with its own text
  const txChain = chainIdOf(bytes)
  if (txChain !== undefined && txChain !== BigInt(chainId)) {
    throw invalid(`invalid sender: invalid chain id for signer: have ${txChain} want ${chainId}`)
  }
  let tx: TypedTransaction
  try {
    tx = createTxFromRLP(bytes, { common: preparedCommon(common), freeze: false })
  } catch (e) {
    throw invalid(`rlp: ${(e as Error).message.split(' (tx type')[0]}`)
  }
  let sender: EjsAddress
  try {
    sender = tx.getSenderAddress()
  } catch (e) {
    throw invalid(`invalid sender: ${(e as Error).message.split(' (tx type')[0]}`)
  }
  const from = sender.toString().toLowerCase() as Address
  await checkAgainstState(tx, from, head)
  const entry: PoolTx = { raw: raw.toLowerCase() as Hex, from, hash: toHex(tx.hash()), impersonated: false }
  // the signature is recovered once: mining and every later replay use this object
  return { tx: holdDecodedTx(common, entry, tx), entry }
}

/** a signed tx's chain id: a typed tx's first field, a legacy tx's EIP-155 v (undefined: unprotected or unreadable) */
function chainIdOf(bytes: Uint8Array): bigint | undefined {
  try {
    const typed = bytes[0]! <= 0x7f
    const fields = fromRlp(typed ? bytes.subarray(1) : bytes, 'bytes') as Uint8Array[]
    const raw = typed ? fields[0] : fields[6]
    if (!(raw instanceof Uint8Array)) return undefined
    const n = raw.length ? bytesToBigInt(raw) : 0n
    if (typed) return n
    return n === 27n || n === 28n ? undefined : (n - 35n) / 2n
  } catch {
    return undefined
  }
}

/** geth's txpool checks against the head state (core/txpool/validation.go) */
export async function checkAgainstState(tx: TypedTransaction, from: Address, head: { state: OverlayStateManager; baseFee: bigint | undefined }): Promise<void> {
  const account = await head.state.getAccount(createAddressFromString(from))
  const nonce = account?.nonce ?? 0n
  const balance = account?.balance ?? 0n
  if (tx.nonce < nonce) throw invalid(`nonce too low: next nonce ${nonce}, tx nonce ${tx.nonce}`)
  const { feeCap, tip } = feeFields(tx)
  if (tip > feeCap)
    throw invalid(`max priority fee per gas higher than max fee per gas: address ${from}, maxPriorityFeePerGas: ${tip}, maxFeePerGas: ${feeCap}`)
  if (head.baseFee !== undefined && feeCap < head.baseFee) {
    throw invalid(`max fee per gas less than block base fee: address ${from}, maxFeePerGas: ${feeCap}, baseFee: ${head.baseFee}`)
  }
  const cost = tx.gasLimit * feeCap + tx.value
  if (balance < cost) throw invalid(`insufficient funds for gas * price + value: balance ${balance}, tx cost ${cost}, overshot ${cost - balance}`)
  const intrinsic = tx.getIntrinsicGas()
  if (tx.gasLimit < intrinsic) throw invalid(`intrinsic gas too low: gas ${tx.gasLimit}, minimum needed ${intrinsic}`)
}

/** Anvil's default tip for a sent transaction without fee fields, 1 gwei */
export const DEFAULT_TIP = 1_000_000_000n

/**
 * eth_sendTransaction: a transaction of `call` filled as Anvil fills it (EIP-1559 unless a gas
 * price is given; fee cap = twice the next base fee plus the tip), signed with `key` (a dev
 * account) or left unsigned and answering for `from` (an impersonated account).
 */
export function buildSentTransaction(
  common: Common,
  call: SendCall & { nonce: bigint; gas: bigint },
  baseFee: bigint | undefined,
  key: Hex | undefined,
): { entry: PoolTx; tx: TypedTransaction } {
  const base = { nonce: call.nonce, gasLimit: call.gas, to: call.to ?? undefined, value: call.value ?? 0n, data: call.data }
  const opts = { common, freeze: false }
  const london = common.isActivatedEIP(1559) && baseFee !== undefined
  let tx: TypedTransaction
  if (call.gasPrice !== undefined || !london) {
    const gasPrice = call.gasPrice ?? (baseFee ?? 0n) + DEFAULT_TIP
    tx = call.accessList?.length
      ? createAccessList2930Tx({ ...base, gasPrice, accessList: call.accessList }, opts)
      : createLegacyTx({ ...base, gasPrice }, opts)
  } else {
    const tip = call.maxPriorityFeePerGas ?? DEFAULT_TIP
    // as Anvil (1.7) fills it: the next block's base fee plus the tip, so a dev account's
    // transaction is the very one Anvil signs (same fields, same hash)
    const maxFeePerGas = call.maxFeePerGas ?? baseFee + tip
    tx = createFeeMarket1559Tx(
      { ...base, maxFeePerGas, maxPriorityFeePerGas: tip > maxFeePerGas ? maxFeePerGas : tip, accessList: call.accessList ?? [] },
      opts,
    )
  }
  if (key) {
    const signed = tx.sign(hexToBytes(key))
    return { tx: signed, entry: { raw: toHex(signed.serialize()), from: call.from, hash: toHex(signed.hash()), impersonated: false } }
  }
  // Anvil's impersonated transactions carry no real signature; the hash binds the sender
  const hash = keccak256(new Uint8Array([...tx.getHashedMessageToSign(), ...hexToBytes(call.from)]))
  const sender = createAddressFromString(call.from)
  const hashBytes = hexToBytes(hash)
  Object.assign(tx, { getSenderAddress: () => sender, isSigned: () => true, hash: () => hashBytes })
  return { tx, entry: { raw: toHex(tx.serialize()), from: call.from, hash, impersonated: true } }
}
