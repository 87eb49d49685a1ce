/**
 * Strict readers of upstream JSON-RPC results: a value that is not what the method promises is a
 * STATE_ACCESS_ERROR, never a silently wrong state.
 */
import { hexToBytes } from '@ethereumjs/util'
import { EngineError } from '../errors.js'
import { storageValueFromHex } from './stateKeys.js'

const malformed = (method: string) => new EngineError('STATE_ACCESS_ERROR', `upstream returned a malformed ${method} result`)

export function parseQuantity(v: unknown, method: string): bigint {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(v)) throw malformed(method)
  return BigInt(v)
}

export function parseCode(v: unknown, method: string): Uint8Array {
  if (typeof v !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(v)) throw malformed(method)
  return v.length === 2 ? new Uint8Array(0) : hexToBytes(v as `0x${string}`)
}

export function parseSlotValue(v: unknown, method: string): Uint8Array {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{0,64}$/.test(v)) throw malformed(method)
  return storageValueFromHex(v)
}
