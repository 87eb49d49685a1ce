/**
 * deposit: OP-stack deposit transactions (EIP-2718 type 0x7e; specs: protocol/deposits) decoded
 * from the upstream's JSON for a replay. The EVM runs a deposit as an unsigned call from its
 * `from` at gas price 0 (no signature, no fee); what else a deposit is — its mint, its source and
 * whether it is a Bedrock system transaction — rides beside the ethereumjs transaction, read by
 * the OP-stack rules (opStackRules.ts) when it runs.
 *
 * @example
 * const d = await decodeDeposit(json, common) // undefined unless json.type is 0x7e
 * depositOf(d.tx)?.mint
 */
import type { Common } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import type { TypedTransaction } from '@ethereumjs/tx'
import { bigIntToUnpaddedBytes, bytesToHex, hexToBytes } from '@ethereumjs/util'
import { keccak256 } from '../../../platform/keccak.js'
import type { Address, Hex } from 'viem'
import { EngineError } from '../../../platform/errors.js'
import { toQuantity } from '../../../platform/quantity.js'
import { createImpersonatedTx } from '../../../execution/impersonatedTx.js'
import type { DecodedTx } from '../../rules.js'

export const DEPOSIT_TX_TYPE = 0x7e

export interface DepositFields {
  sourceHash: Hex
  /** wei credited to `from` before the call, kept even when the call fails */
  mint: bigint
  /** Bedrock's system transactions (gas-free; invalid from Regolith on) */
  isSystemTx: boolean
}

const deposits = new WeakMap<TypedTransaction, DepositFields>()

/** the deposit fields of a transaction decoded here; undefined for every other transaction */
export const depositOf = (tx: TypedTransaction): DepositFields | undefined => deposits.get(tx)

/** a deposit's fields (its RLP payload, specs: deposits "The Deposited Transaction Type") */
export interface DepositInput {
  sourceHash: Hex
  from: Address
  to: Address | null
  mint: bigint
  value: bigint
  gas: bigint
  isSystemTx: boolean
  data: Hex
}

/** 0x7e ‖ rlp([sourceHash, from, to, mint, value, gas, isSystemTx, data]) */
export function encodeDeposit(d: DepositInput): Uint8Array {
  const payload = RLP.encode([
    hexToBytes(d.sourceHash),
    hexToBytes(d.from),
    d.to ? hexToBytes(d.to) : new Uint8Array(),
    bigIntToUnpaddedBytes(d.mint),
    bigIntToUnpaddedBytes(d.value),
    bigIntToUnpaddedBytes(d.gas),
    d.isSystemTx ? new Uint8Array([1]) : new Uint8Array(),
    hexToBytes(d.data),
  ])
  const out = new Uint8Array(payload.length + 1)
  out[0] = DEPOSIT_TX_TYPE
  out.set(payload, 1)
  return out
}

/** a deposit's EIP-2718 bytes decoded for a run (the inverse of encodeDeposit) */
export function decodeDepositBytes(bytes: Uint8Array, common: Common): DecodedTx {
  const fields = RLP.decode(bytes.subarray(1)) as Uint8Array[]
  const [sourceHash, from, to, mint, value, gas, isSystemTx, data] = fields
  const hex = (b: Uint8Array | undefined) => bytesToHex(b ?? new Uint8Array()) as Hex
  const decoded = buildDeposit(
    {
      type: '0x7e',
      hash: bytesToHex(keccak256(bytes)),
      sourceHash: hex(sourceHash),
      from: hex(from),
      to: to && to.length > 0 ? hex(to) : null,
      mint: hex(mint).length > 2 ? hex(mint) : '0x0',
      value: hex(value).length > 2 ? hex(value) : '0x0',
      gas: hex(gas).length > 2 ? hex(gas) : '0x0',
      isSystemTx: (isSystemTx?.length ?? 0) > 0,
      input: hex(data),
    },
    common,
  )
  return decoded!
}

/** a deposit decoded or built here as its EIP-2718 bytes; undefined for every other transaction */
export function depositBytes(tx: TypedTransaction): Uint8Array | undefined {
  const d = deposits.get(tx)
  if (!d) return undefined
  return encodeDeposit({
    sourceHash: d.sourceHash,
    from: tx.getSenderAddress().toString() as Address,
    to: tx.to ? (tx.to.toString() as Address) : null,
    mint: d.mint,
    value: tx.value,
    gas: tx.gasLimit,
    isSystemTx: d.isSystemTx,
    data: bytesToHex(tx.data) as Hex,
  })
}

/** what a deposit adds to its JSON object (op-geth's RPCTransaction): no signature, its own fields */
export function depositJson(tx: TypedTransaction): Record<string, unknown> | undefined {
  const d = deposits.get(tx)
  if (!d) return undefined
  return {
    type: '0x7e',
    sourceHash: d.sourceHash,
    mint: toQuantity(d.mint),
    isSystemTx: d.isSystemTx,
    gasPrice: '0x0',
    v: '0x0',
    r: '0x0',
    s: '0x0',
  }
}

const big = (v: unknown): bigint => (typeof v === 'string' && v.length > 0 ? BigInt(v) : 0n)

export async function decodeDeposit(json: Record<string, unknown>, common: Common): Promise<DecodedTx | undefined> {
  return buildDeposit(json, common)
}

function buildDeposit(json: Record<string, unknown>, common: Common): DecodedTx | undefined {
  if (json.type === undefined || Number(BigInt(json.type as string)) !== DEPOSIT_TX_TYPE) return undefined
  const hash = String(json.hash)
  try {
    const from = String(json.from).toLowerCase() as Address
    const fields: DepositFields = {
      sourceHash: String(json.sourceHash ?? `0x${'0'.repeat(64)}`).toLowerCase() as Hex,
      mint: big(json.mint),
      isSystemTx: json.isSystemTx === true,
    }
    const tx = createImpersonatedTx(common, {
      call: { from, to: (json.to as Address | null | undefined) ?? null, data: String(json.input ?? '0x') as Hex, value: big(json.value), gasPrice: 0n },
      nonce: big(json.nonce),
      gasLimit: big(json.gas),
    })
    deposits.set(tx, fields)
    return { tx, from }
  } catch (e) {
    throw new EngineError('VALIDATION_ERROR', `deposit transaction ${hash} is malformed: ${(e as Error).message}`)
  }
}
