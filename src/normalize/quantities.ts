/** Hex quantities and data to the engine's canonical values, with the bounds geth applies (src/params/grammar.ts reads them). */
import type { Address, Hex } from 'viem'
import { UINT64_MAX, UINT256_MAX } from '../params/grammar.js'
import { REST } from './bodyReader.js'

export { UINT64_MAX, UINT256_MAX }

/** `0x001a` → 26n; `max` bounds it (uint256 unless told) */
export function toQuantity(value: string | number, path: string, max = UINT256_MAX): bigint {
  return REST.quantity(value, path, { max, leadingZeros: true, numbers: true })
}

export const toAddress = (value: string): Address => REST.address(value, '')
export const toData = (value: string): Hex => REST.data(value, '')

/** a storage slot or value: any quantity up to 32 bytes, left-padded to 32 bytes */
export function toWord(value: string, path: string): Hex {
  return REST.word(value, path, 'quantity')
}
