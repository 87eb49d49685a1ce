/**
 * Which variable a slot belongs to, found by walking the layout from its roots: a struct's or
 * static array's slots are counted from its base, a dynamic array's elements and a long string's
 * data start at keccak256(slot), and a mapping's values at keccak256(key ‖ slot) for the keys the
 * run hashed. A slot the walk does not reach belongs to nothing known.
 */
import type { LayoutEntry, LayoutType, StorageLayout } from './layout.js'
import { dataSlotOf, type Preimages } from './preimages.js'
import { decodeValue, type EnumMembers } from './values.js'

/** a variable found at the slot */
export interface Placement {
  /** the Solidity path: `balances[0x…]`, `positions[7].liquidity`, `queue.length` */
  path: string
  typeId: string
  type: LayoutType
  /** the variable's first slot (a string's or bytes' length slot) */
  slot: bigint
  offset: number
}

/** past this many elements a dynamic array's data is not looked for (keccak outputs are 2^256 apart on average) */
const MAX_ELEMENTS = 1n << 48n

const LENGTH_TYPE: LayoutType = { encoding: 'inplace', label: 'uint256', numberOfBytes: 32n }

export interface Walk {
  layout: StorageLayout
  preimages: Preimages
  enums: EnumMembers
}

/** every variable at `slot`: several when the slot packs them */
export function locate(walk: Walk, slot: bigint, roots: LayoutEntry[] = walk.layout.storage, prefix = ''): Placement[] {
  const found: Placement[] = []
  for (const e of roots) found.push(...within(walk, slot, e.slot, e.offset, e.type, `${prefix}${e.label}`))
  return found
}

const slotsOf = (t: LayoutType): bigint => (t.numberOfBytes + 31n) / 32n

function within(walk: Walk, slot: bigint, base: bigint, offset: number, typeId: string, path: string): Placement[] {
  const type = walk.layout.types[typeId]
  if (!type) return []
  switch (type.encoding) {
    case 'mapping':
      return slot === base ? [] : inMapping(walk, slot, base, type, path)
    case 'bytes':
      return slot === base || inData(slot, dataSlotOf(base)) ? [{ path, typeId, type, slot: base, offset: 0 }] : []
    case 'dynamic_array':
      if (slot === base) return [{ path: `${path}.length`, typeId: 't_uint256', type: LENGTH_TYPE, slot: base, offset: 0 }]
      return inArray(walk, slot, dataSlotOf(base), type.base ?? '', undefined, path)
    default:
      // a struct's or static array's dynamic members keep their data outside its own slots
      if (type.members)
        return locate(
          walk,
          slot,
          type.members.map((m) => ({ ...m, slot: m.slot + base })),
          `${path}.`,
        )
      if (type.base !== undefined) return inStaticArray(walk, slot, base, type, path)
      return slot === base ? [{ path, typeId, type, slot: base, offset }] : []
  }
}

/** past this many elements a static array's elements are not searched for data stored outside them */
const MAX_SEARCHED_ELEMENTS = 256n

function inStaticArray(walk: Walk, slot: bigint, base: bigint, type: LayoutType, path: string): Placement[] {
  if (slot >= base && slot < base + slotsOf(type)) return inArray(walk, slot, base, type.base ?? '', slotsOf(type), path)
  const element = walk.layout.types[type.base ?? '']
  if (!element || !holdsDynamic(walk, type.base ?? '')) return []
  const count = type.numberOfBytes / slotsOf(element) / 32n
  if (count > MAX_SEARCHED_ELEMENTS) return []
  const found: Placement[] = []
  for (let i = 0n; i < count; i++) found.push(...within(walk, slot, base + i * slotsOf(element), 0, type.base ?? '', `${path}[${i}]`))
  return found
}

/** whether a type keeps data outside its own slots (a mapping, dynamic array or string in it) */
function holdsDynamic(walk: Walk, typeId: string): boolean {
  const type = walk.layout.types[typeId]
  if (!type) return false
  if (type.encoding !== 'inplace') return true
  if (type.members) return type.members.some((m) => holdsDynamic(walk, m.type))
  return type.base !== undefined && holdsDynamic(walk, type.base)
}

const inData = (slot: bigint, data: bigint): boolean => slot >= data && slot - data < MAX_ELEMENTS

/** an element of an array whose elements start at `data` (`span`: the static array's slots, or unbounded) */
function inArray(walk: Walk, slot: bigint, data: bigint, baseId: string, span: bigint | undefined, path: string): Placement[] {
  const element = walk.layout.types[baseId]
  if (!element || slot < data || slot - data >= (span ?? MAX_ELEMENTS)) return []
  const size = element.numberOfBytes
  if (size <= 16n && element.encoding === 'inplace' && !element.members && element.base === undefined) {
    const perSlot = 32n / size
    const first = (slot - data) * perSlot
    const found: Placement[] = []
    for (let i = 0n; i < perSlot; i++) {
      found.push(...within(walk, slot, slot, Number(i * size), baseId, `${path}[${first + i}]`))
    }
    return found
  }
  const index = (slot - data) / slotsOf(element)
  return within(walk, slot, data + index * slotsOf(element), 0, baseId, `${path}[${index}]`)
}

function inMapping(walk: Walk, slot: bigint, base: bigint, type: LayoutType, path: string): Placement[] {
  const found: Placement[] = []
  for (const { hash, key } of walk.preimages.keysOf(base)) {
    const shown = keyOf(walk, key, type.key ?? '')
    if (shown === undefined) continue
    found.push(...within(walk, slot, hash, 0, type.value ?? '', `${path}[${shown}]`))
  }
  return found
}

/** a mapping key as the path shows it; undefined when the bytes cannot be a key of that type */
function keyOf(walk: Walk, key: Uint8Array, keyTypeId: string): string | undefined {
  const type = walk.layout.types[keyTypeId]
  if (!type) return undefined
  const hex = Buffer.from(key).toString('hex')
  if (type.encoding === 'bytes') return type.label === 'string' ? JSON.stringify(Buffer.from(key).toString('utf8')) : `0x${hex}`
  if (key.length !== 32) return undefined
  const word = BigInt(`0x${hex}`)
  const size = Number(type.numberOfBytes)
  // bytesN keys are left-aligned in their word, every other value type right-aligned
  const field = /^bytes\d+$/.test(type.label) ? word >> BigInt((32 - size) * 8) : word & ((1n << BigInt(size * 8)) - 1n)
  return String(decodeValue(field, keyTypeId, type, walk.enums))
}
