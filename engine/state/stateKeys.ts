/**
 * Canonical keys and values of the state layer, shared by the sources and the overlay so that
 * every map in the layer agrees on one spelling (lowercase 0x-hex, slots 32 bytes, values minimal).
 */
import { KECCAK256_NULL, bytesToHex, hexToBytes, setLengthLeft, unpadBytes } from '@ethereumjs/util'
import { keccak256 } from 'viem'
import type { Hex } from 'viem'

export { KECCAK256_NULL }

const EMPTY = new Uint8Array(0)

/** 32-byte slot key from whatever length the caller holds */
export function slotKeyFromBytes(key: Uint8Array): Hex {
  return bytesToHex(key.length === 32 ? key : setLengthLeft(key, 32)) as Hex
}

/** canonical slot key from hex of any length up to 32 bytes (overrides, RPC answers) */
export function slotKeyFromHex(slot: string): Hex {
  const body = slot.toLowerCase().replace(/^0x/, '')
  if (body.length > 64 || !/^[0-9a-f]*$/.test(body)) throw new Error(`invalid storage slot ${slot}`)
  return `0x${body.padStart(64, '0')}` as Hex
}

/** storage value bytes as the layer keeps them: leading zeros stripped, zero = empty */
export function storageValue(value: Uint8Array): Uint8Array {
  if (value.length === 0) return EMPTY
  return value[0] === 0 ? unpadBytes(value) : value
}

export function storageValueFromHex(value: string): Uint8Array {
  const body = value.toLowerCase().replace(/^0x/, '')
  if (body.length > 64 || !/^[0-9a-f]*$/.test(body)) throw new Error(`invalid storage value ${value}`)
  if (body.length === 0) return EMPTY
  return storageValue(hexToBytes(`0x${body.length % 2 ? `0${body}` : body}`))
}

export function codeHashOf(code: Uint8Array): Uint8Array {
  return code.length === 0 ? KECCAK256_NULL : keccak256(code, 'bytes')
}

export function isEmptyCodeHash(hash: Uint8Array): boolean {
  if (hash.length !== 32) return false
  for (let i = 0; i < 32; i++) if (hash[i] !== KECCAK256_NULL[i]) return false
  return true
}

export const EMPTY_BYTES = EMPTY

/** bytecode from 0x-hex; throws on odd length or a non-hex digit */
export function codeFromHex(code: string): Uint8Array {
  const body = code.toLowerCase().replace(/^0x/, '')
  if (body.length % 2 || !/^[0-9a-f]*$/.test(body)) throw new Error('invalid code hex')
  return body.length ? hexToBytes(`0x${body}`) : EMPTY
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}
