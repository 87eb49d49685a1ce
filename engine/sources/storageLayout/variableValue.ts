/**
 * A value given by name checked against its Solidity type and turned into what storage holds:
 * the inverse of values.ts. Numbers as decimal or hex strings (or JSON integers), addresses as
 * hex (a mixed-case one must carry a valid EIP-55 checksum), booleans, enums by member name or
 * index, `bytesN` as exactly N bytes of hex. A value that does not fit is an Error saying why.
 */
import { isAddress } from 'viem'
import { enumAstId, type LayoutType } from './layout.js'
import type { EnumMembers } from './values.js'

/** the variable's bytes as an unsigned number of `numberOfBytes` bytes */
export function fieldOfValue(value: unknown, typeId: string, type: LayoutType, enums: EnumMembers): bigint {
  const size = Number(type.numberOfBytes)
  const bits = BigInt(size * 8)
  const label = type.label
  if (/^uint\d*$/.test(label)) {
    const n = integerOf(value)
    if (n < 0n || n >= 1n << bits) throw new Error(`${show(value)} is out of range for ${label} (0 to 2^${bits} - 1)`)
    return n
  }
  if (/^int\d*$/.test(label)) {
    const n = integerOf(value)
    const half = 1n << (bits - 1n)
    if (n < -half || n >= half) throw new Error(`${show(value)} is out of range for ${label} (-2^${bits - 1n} to 2^${bits - 1n} - 1)`)
    return n < 0n ? n + (1n << bits) : n
  }
  if (label === 'bool') {
    if (value === true || value === 'true') return 1n
    if (value === false || value === 'false') return 0n
    throw new Error(`${show(value)} is not a bool (true or false)`)
  }
  if (label === 'address' || label === 'address payable' || label.startsWith('contract ')) {
    if (typeof value !== 'string' || !isAddress(value))
      throw new Error(`${show(value)} is not an address (20 bytes of hex; mixed case must be a valid EIP-55 checksum)`)
    return BigInt(value)
  }
  if (label.startsWith('enum ')) return enumMemberOf(value, typeId, label, enums)
  if (type.encoding === 'inplace' && !type.members && type.base === undefined) {
    // bytesN, user-defined value types and the rest: exactly their bytes, as hex
    if (typeof value !== 'string' || !new RegExp(`^0x[0-9a-fA-F]{${size * 2}}$`).test(value))
      throw new Error(`${show(value)} is not ${label} (exactly ${size} bytes of hex)`)
    return BigInt(value)
  }
  throw new Error(`a ${label} is not written whole: name its members or elements`)
}

/** a string or bytes variable's content */
export function bytesOfValue(value: unknown, type: LayoutType): Uint8Array {
  if (typeof value !== 'string') throw new Error(`${show(value)} is not a ${type.label}`)
  if (type.label === 'string') return new TextEncoder().encode(value)
  if (!/^0x([0-9a-fA-F]{2})*$/.test(value)) throw new Error(`${show(value)} is not bytes (hex, an even number of digits)`)
  return Uint8Array.from(Buffer.from(value.slice(2), 'hex'))
}

/** a mapping key as Solidity hashes it: one word for value types (`bytesN` left-aligned, the rest right-aligned, signed ones sign-extended), the raw bytes for string and bytes */
export function keyWordOf(raw: string, typeId: string, type: LayoutType, enums: EnumMembers): Uint8Array {
  if (type.encoding === 'bytes') return bytesOfValue(raw, type)
  let field = fieldOfValue(raw, typeId, type, enums)
  const size = Number(type.numberOfBytes)
  if (/^bytes\d+$/.test(type.label)) field <<= BigInt((32 - size) * 8)
  else if (/^int\d*$/.test(type.label) && field >= 1n << BigInt(size * 8 - 1)) field += (1n << 256n) - (1n << BigInt(size * 8))
  return Uint8Array.from(Buffer.from(field.toString(16).padStart(64, '0'), 'hex'))
}

function integerOf(value: unknown): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value)
  if (typeof value === 'string' && /^-?(\d+|0x[0-9a-fA-F]+)$/.test(value)) {
    const negative = value.startsWith('-')
    const n = BigInt(negative ? value.slice(1) : value)
    return negative ? -n : n
  }
  throw new Error(`${show(value)} is not an integer (a decimal or 0x-hex string, or a safe JSON integer)`)
}

function enumMemberOf(value: unknown, typeId: string, label: string, enums: EnumMembers): bigint {
  const id = enumAstId(typeId)
  const members = id === undefined ? undefined : enums[id]
  if (typeof value === 'string' && members?.includes(value)) return BigInt(members.indexOf(value))
  const count = members?.length ?? 256
  if ((typeof value === 'number' || (typeof value === 'string' && /^\d+$/.test(value))) && BigInt(value) < BigInt(count) && BigInt(value) >= 0n)
    return BigInt(value)
  throw new Error(`${show(value)} is not a member of ${label}${members ? ` (${members.join(', ')})` : ''}`)
}

const show = (v: unknown): string => JSON.stringify(v) ?? String(v)
