/**
 * A value-type variable read out of its slot: the bytes `[offset, offset + size)` counted from the
 * slot's right end, shown by type — numbers as decimal strings, addresses checksummed, booleans,
 * enums by member name, `bytesN` and anything else as hex.
 */
import { getAddress } from 'viem'
import { enumAstId, type LayoutType } from './layout.js'

/** a decoded value: what `before`/`after` carry */
export type StorageValue = string | boolean

/** the variable's bytes as an unsigned number */
export function fieldOf(word: bigint, offset: number, size: number): bigint {
  return (word >> BigInt(offset * 8)) & ((1n << BigInt(size * 8)) - 1n)
}

/** the word with the variable's bytes replaced and its neighbours kept */
export function withField(word: bigint, offset: number, size: number, field: bigint): bigint {
  const mask = ((1n << BigInt(size * 8)) - 1n) << BigInt(offset * 8)
  return (word & ~mask) | ((field << BigInt(offset * 8)) & mask)
}

const hexOf = (n: bigint, size: number): string => `0x${n.toString(16).padStart(size * 2, '0')}`

/** enum member names by the enum's AST id (from the compilation's AST) */
export type EnumMembers = Record<number, string[]>

export function decodeValue(field: bigint, typeId: string, type: LayoutType, enums: EnumMembers): StorageValue {
  const size = Number(type.numberOfBytes)
  const label = type.label
  if (/^uint\d*$/.test(label)) return field.toString()
  if (/^int\d*$/.test(label)) {
    const bits = BigInt(size * 8)
    return (field >= 1n << (bits - 1n) ? field - (1n << bits) : field).toString()
  }
  if (label === 'bool') return field !== 0n
  if (label === 'address' || label === 'address payable' || label.startsWith('contract ')) return getAddress(hexOf(field, 20))
  if (label.startsWith('enum ')) {
    const id = enumAstId(typeId)
    const name = id === undefined ? undefined : enums[id]?.[Number(field)]
    return name ?? field.toString()
  }
  return hexOf(field, size)
}
