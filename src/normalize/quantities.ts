/** Hex quantities and data to the engine's canonical values, with the bounds geth applies. */
import type { Address, Hex } from 'viem'
import { validationError } from '../errors/apiError.js'

export const UINT64_MAX = (1n << 64n) - 1n
export const UINT256_MAX = (1n << 256n) - 1n

/** `0x001a` → 26n; `max` bounds it (uint256 unless told) */
export function toQuantity(value: string | number, path: string, max = UINT256_MAX): bigint {
  const n = BigInt(value)
  if (n < 0n || n > max) {
    throw validationError([{ path, message: `quantity exceeds ${max.toString(2).length} bits` }])
  }
  return n
}

export const toAddress = (value: string): Address => value.toLowerCase() as Address
export const toData = (value: string): Hex => value.toLowerCase() as Hex

/** a storage slot or value: any quantity up to 32 bytes, left-padded to 32 bytes */
export function toWord(value: string, path: string): Hex {
  const n = toQuantity(value, path)
  return `0x${n.toString(16).padStart(64, '0')}` as Hex
}
