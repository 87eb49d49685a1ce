/**
 * Strict readers of upstream state results, over the per-method answer schemas
 * (engine/upstream/upstreamAnswers.ts): a value that is not what the method promises is a
 * STATE_ACCESS_ERROR naming the method, never a silently wrong (or cached) state.
 */
import { hexToBytes } from '@ethereumjs/util'
import { readUpstream } from '../upstream/upstreamAnswers.js'
import { storageValueFromHex } from './stateKeys.js'

export function parseQuantity(v: unknown, method: 'eth_getBalance' | 'eth_getTransactionCount'): bigint {
  return BigInt(readUpstream(method, v))
}

export function parseCode(v: unknown, method: 'eth_getCode'): Uint8Array {
  const hex = readUpstream(method, v)
  return hex.length === 2 ? new Uint8Array(0) : hexToBytes(hex as `0x${string}`)
}

export function parseSlotValue(v: unknown, method: 'eth_getStorageAt'): Uint8Array {
  return storageValueFromHex(readUpstream(method, v))
}
