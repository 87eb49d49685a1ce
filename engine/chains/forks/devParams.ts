/**
 * Parameters of the development-node methods of a fork, checked with geth's wording
 * (`invalid argument N: …`, JSON-RPC -32602), so a bad call never reaches the fork.
 */
import type { Address, Hex } from 'viem'
import { EngineError } from '../../platform/errors.js'
import type { SendCall } from './sendTransaction.js'

export function bad(index: number, why: string): EngineError {
  return new EngineError('VALIDATION_ERROR', `invalid argument ${index}: ${why}`, { rpcCode: -32602 })
}

export function required(params: unknown[], i: number): unknown {
  if (params[i] === undefined || params[i] === null) throw new EngineError('VALIDATION_ERROR', `missing value for required argument ${i}`, { rpcCode: -32602 })
  return params[i]
}

export function address(v: unknown, i: number): Address {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(v)) throw bad(i, 'hex string of 20 bytes expected')
  return v.toLowerCase() as Address
}

export function quantity(v: unknown, i: number): bigint {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(v)) throw bad(i, 'hex quantity with 0x prefix expected')
  return BigInt(v)
}

export function optQuantity(v: unknown, i: number): bigint | undefined {
  return v === undefined || v === null ? undefined : quantityOrNumber(v, i)
}

/** a hex quantity or a plain JSON number (Hardhat and Anvil take both for time and counts) */
export function quantityOrNumber(v: unknown, i: number): bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v)
  if (typeof v === 'string' && /^[0-9]+$/.test(v)) return BigInt(v)
  return quantity(v, i)
}

export function bool(v: unknown, i: number): boolean {
  if (typeof v !== 'boolean') throw bad(i, 'boolean expected')
  return v
}

export function data(v: unknown, i: number): Hex {
  if (typeof v !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(v)) throw bad(i, 'hex string with 0x prefix and an even length expected')
  return v.toLowerCase() as Hex
}

/** a 32-byte word (a slot or a value), any length up to 32 bytes accepted and left-padded */
export function word(v: unknown, i: number): Hex {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(v)) throw bad(i, 'hex string of at most 32 bytes expected')
  return `0x${v.slice(2).toLowerCase().padStart(64, '0')}` as Hex
}

/** eth_sendTransaction's call object */
export function sendCall(v: unknown): SendCall {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw bad(0, 'transaction object expected')
  const o = v as Record<string, unknown>
  if (o.from === undefined) throw bad(0, 'from is required')
  if (o.data !== undefined && o.input !== undefined && o.data !== o.input) {
    throw bad(0, 'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data')
  }
  const opt = (k: string) => (o[k] === undefined || o[k] === null ? undefined : quantity(o[k], 0))
  const accessList = o.accessList === undefined || o.accessList === null ? undefined : parseAccessList(o.accessList)
  return {
    from: address(o.from, 0),
    to: o.to === undefined || o.to === null ? null : address(o.to, 0),
    data: o.input !== undefined && o.input !== null ? data(o.input, 0) : o.data !== undefined && o.data !== null ? data(o.data, 0) : '0x',
    value: opt('value'),
    gas: opt('gas'),
    gasPrice: opt('gasPrice'),
    maxFeePerGas: opt('maxFeePerGas'),
    maxPriorityFeePerGas: opt('maxPriorityFeePerGas'),
    nonce: opt('nonce'),
    ...(accessList && { accessList }),
  }
}

function parseAccessList(v: unknown): { address: Address; storageKeys: Hex[] }[] {
  if (!Array.isArray(v)) throw bad(0, 'accessList must be an array')
  return v.map((e: { address?: unknown; storageKeys?: unknown }) => ({
    address: address(e?.address, 0),
    storageKeys: Array.isArray(e?.storageKeys) ? e.storageKeys.map((k) => word(k, 0)) : [],
  }))
}

/** anvil_reset / hardhat_reset: `{ forking: { jsonRpcUrl?, blockNumber? } }` */
export function resetOptions(v: unknown): { blockNumber?: bigint } {
  if (v === undefined || v === null) return {}
  if (typeof v !== 'object' || Array.isArray(v)) throw bad(0, 'reset options object expected')
  const forking = (v as { forking?: { jsonRpcUrl?: unknown; blockNumber?: unknown } }).forking
  if (!forking) return {}
  if (forking.jsonRpcUrl !== undefined && forking.jsonRpcUrl !== null) {
    throw new EngineError(
      'VALIDATION_ERROR',
      'a fork resets onto its own upstream only: jsonRpcUrl is not accepted',
      { rpcCode: -32602 },
      'create a new fork for another chain',
    )
  }
  return forking.blockNumber === undefined || forking.blockNumber === null ? {} : { blockNumber: quantityOrNumber(forking.blockNumber, 0) }
}
