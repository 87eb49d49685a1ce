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
import type { TypedTransaction } from '@ethereumjs/tx'
import type { Address, Hex } from 'viem'
import { EngineError } from '../../errors.js'
import { createImpersonatedTx } from '../../execution/impersonatedTx.js'
import type { DecodedTx } from '../rules.js'

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

const big = (v: unknown): bigint => (typeof v === 'string' && v.length > 0 ? BigInt(v) : 0n)

export async function decodeDeposit(json: Record<string, unknown>, common: Common): Promise<DecodedTx | undefined> {
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
