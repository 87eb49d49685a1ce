/**
 * The transaction a simulated call becomes in its block, as geth's
 * `TransactionArgs.ToTransaction(DynamicFeeTxType)` builds it: EIP-1559 by default, legacy when a
 * gasPrice is given (or the chain is before London), EIP-2930 never chosen on its own; unsigned
 * (v = r = s = 0), so its hash is keccak of that encoding. Used for the block's transaction
 * hashes, its transactions root and `returnFullTransactions`.
 *
 * @example
 * const tx = simTransaction(call, { chainId: 1n, nonce: 0n, gas: 21000n, london: true })
 * tx.hash // 0x…
 */
import { keccak256, toHex, toRlp, type Address, type Hex } from 'viem'
import type { CallInput } from '../../execution/types.js'

export interface SimTransaction {
  type: 0 | 2 | 3
  /** the call with every default filled (what runs) */
  call: CallInput & { gas: bigint; nonce: bigint }
  chainId: bigint
  hash: Hex
  /** the block body's encoding: an RLP list (legacy) or type ‖ RLP (typed) */
  encoded: Hex
  /** legacy: RLP list items, so the body can nest it */
  legacyItems?: RlpItem[]
}

type RlpItem = Hex | RlpItem[]

/** RLP integers are minimal big-endian bytes: zero is the empty string */
export const rlpInt = (n: bigint): Hex => (n === 0n ? '0x' : toHex(n))

export function simTransaction(call: CallInput & { gas: bigint; nonce: bigint }, opts: { chainId: bigint; london: boolean }): SimTransaction {
  const to: Hex = call.to ?? '0x'
  const value = rlpInt(call.value ?? 0n)
  const accessList: RlpItem[] = (call.accessList ?? []).map((e) => [e.address, e.storageKeys])
  if (call.gasPrice !== undefined || !opts.london) {
    const items: RlpItem[] = [rlpInt(call.nonce), rlpInt(call.gasPrice ?? 0n), rlpInt(call.gas), to, value, call.data, '0x', '0x', '0x']
    const encoded = toRlp(items as never) as Hex
    return { type: 0, call, chainId: opts.chainId, hash: keccak256(encoded), encoded, legacyItems: items }
  }
  const items: RlpItem[] = [
    rlpInt(opts.chainId),
    rlpInt(call.nonce),
    rlpInt(call.maxPriorityFeePerGas ?? 0n),
    rlpInt(call.maxFeePerGas ?? 0n),
    rlpInt(call.gas),
    to,
    value,
    call.data,
    accessList,
  ]
  // EIP-4844: the blob fee cap and the versioned hashes come before the signature
  const blob = (call.blobVersionedHashes?.length ?? 0) > 0
  if (blob) items.push(rlpInt(call.maxFeePerBlobGas ?? 0n), call.blobVersionedHashes!)
  items.push('0x', '0x', '0x')
  const encoded = `${blob ? '0x03' : '0x02'}${(toRlp(items as never) as Hex).slice(2)}` as Hex
  return { type: blob ? 3 : 2, call, chainId: opts.chainId, hash: keccak256(encoded), encoded }
}

/** geth's RPCTransaction of a simulated transaction (returnFullTransactions) */
export function rpcTransaction(
  tx: SimTransaction,
  where: { blockHash: Hex; blockNumber: bigint; blockTimestamp: bigint; index: number; baseFee: bigint | undefined },
): Record<string, unknown> {
  const c = tx.call
  const out: Record<string, unknown> = {
    blockHash: where.blockHash,
    blockNumber: toHex(where.blockNumber),
    blockTimestamp: toHex(where.blockTimestamp),
    from: c.from as Address,
    gas: toHex(c.gas),
    gasPrice: toHex(c.gasPrice ?? 0n),
  }
  if (tx.type !== 0) {
    const feeCap = c.maxFeePerGas ?? 0n
    const tip = c.maxPriorityFeePerGas ?? 0n
    // geth: the effective price once the block is known
    const base = where.baseFee ?? 0n
    out.gasPrice = toHex(base + tip < feeCap ? base + tip : feeCap)
    out.maxFeePerGas = toHex(feeCap)
    out.maxPriorityFeePerGas = toHex(tip)
    if (tx.type === 3) out.maxFeePerBlobGas = toHex(c.maxFeePerBlobGas ?? 0n)
  }
  Object.assign(out, {
    hash: tx.hash,
    input: c.data,
    nonce: toHex(c.nonce),
    to: c.to ?? null,
    transactionIndex: toHex(where.index),
    value: toHex(c.value ?? 0n),
    type: toHex(tx.type),
  })
  if (tx.type !== 0) {
    out.accessList = c.accessList ?? []
    out.chainId = toHex(tx.chainId)
  }
  if (tx.type === 3) out.blobVersionedHashes = c.blobVersionedHashes
  Object.assign(out, { v: '0x0', r: '0x0', s: '0x0' })
  if (tx.type !== 0) out.yParity = '0x0'
  return out
}
