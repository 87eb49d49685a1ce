/**
 * A variable named by its Solidity path (`owner`, `balances[0x7099…]`, `positions[7].liquidity`,
 * `queue.length`, `byName["alice"]`) found in a storage layout: the slot and byte offset it lives
 * at, and its type. The path is the one decoded changes show, so what a trace names can be
 * written back by the same name. A path the layout does not have, or that does not fit a type
 * (an index on an address, a key on an array), is a PathError saying which part.
 */
import { keccak256 } from '../../platform/keccak.js'
import type { LayoutType, StorageLayout } from './layout.js'
import { dataSlotOf } from './preimages.js'
import { keyWordOf } from './variableValue.js'
import type { EnumMembers } from './values.js'

export class PathError extends Error {}

/** a value-type, string or bytes variable where the path leads */
export interface Located {
  slot: bigint
  /** bytes from the slot's right end */
  offset: number
  typeId: string
  type: LayoutType
}

type Step = { member: string } | { index: string }

/** longer than any path a contract's variables have (nested mapping keys of a few hundred bytes) */
const MAX_PATH = 4096

const LENGTH_TYPE: LayoutType = { encoding: 'inplace', label: 'uint256', numberOfBytes: 32n }
const slotsOf = (t: LayoutType): bigint => (t.numberOfBytes + 31n) / 32n

/** `balances[0x…].x` → [{member: 'balances'}, {index: '0x…'}, {member: 'x'}]; a quoted key is read as JSON (`byName["a]b"]`) */
export function parsePath(path: string): Step[] {
  if (path.length > MAX_PATH) throw new PathError(`a path is at most ${MAX_PATH} characters`)
  const steps: Step[] = []
  let i = 0
  const ident = () => {
    const m = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(path.slice(i))
    if (!m) throw new PathError(`expected a name at character ${i + 1}`)
    i += m[0].length
    steps.push({ member: m[0] })
  }
  ident()
  while (i < path.length) {
    if (path[i] === '.') {
      i++
      ident()
    } else if (path[i] === '[') {
      const quoted = /^\[("(?:[^"\\]|\\.)*")\]/.exec(path.slice(i))
      const plain = /^\[([^\]"]+)\]/.exec(path.slice(i))
      const m = quoted ?? plain
      if (!m) throw new PathError(`expected a key or index in brackets at character ${i + 1}`)
      steps.push({ index: quoted ? (JSON.parse(m[1]) as string) : m[1].trim() })
      i += m[0].length
    } else throw new PathError(`unexpected ${JSON.stringify(path[i])} at character ${i + 1}`)
  }
  return steps
}

/** the variable the path names; `length` reads a dynamic array's length slot (an index must be below it) */
export async function locatePath(layout: StorageLayout, enums: EnumMembers, path: string, length: (slot: bigint) => Promise<bigint>): Promise<Located> {
  const steps = parsePath(path)
  const first = steps[0] as { member: string }
  const root = layout.storage.find((e) => e.label === first.member)
  if (!root) throw new PathError(`no variable ${JSON.stringify(first.member)} (the contract has ${layout.storage.map((e) => e.label).join(', ')})`)
  let at: Located = { slot: root.slot, offset: root.offset, typeId: root.type, type: typeOf(layout, root.type) }
  let shown = first.member
  for (const step of steps.slice(1)) {
    at = await stepInto(layout, enums, at, step, shown, length)
    shown += 'member' in step ? `.${step.member}` : `[${step.index}]`
  }
  return at
}

function typeOf(layout: StorageLayout, id: string): LayoutType {
  const t = layout.types[id]
  if (!t) throw new PathError(`the layout does not describe type ${id}`)
  return t
}

async function stepInto(
  layout: StorageLayout,
  enums: EnumMembers,
  at: Located,
  step: Step,
  shown: string,
  length: (slot: bigint) => Promise<bigint>,
): Promise<Located> {
  const { type } = at
  if ('member' in step) {
    if (type.encoding === 'dynamic_array' && step.member === 'length') return { slot: at.slot, offset: 0, typeId: 't_uint256', type: LENGTH_TYPE }
    const m = type.members?.find((x) => x.label === step.member)
    if (!m) throw new PathError(`${shown} (${type.label}) has no member ${JSON.stringify(step.member)}`)
    return { slot: at.slot + m.slot, offset: m.offset, typeId: m.type, type: typeOf(layout, m.type) }
  }
  if (type.encoding === 'mapping') {
    const keyType = typeOf(layout, type.key ?? '')
    let key: Uint8Array
    try {
      key = keyWordOf(step.index, type.key ?? '', keyType, enums)
    } catch (e) {
      throw new PathError(`${shown}[${step.index}]: ${(e as Error).message}`)
    }
    const input = new Uint8Array(key.length + 32)
    input.set(key)
    input.set(wordOf(at.slot), key.length)
    const slot = BigInt(`0x${Buffer.from(keccak256(input)).toString('hex')}`)
    return { slot, offset: 0, typeId: type.value ?? '', type: typeOf(layout, type.value ?? '') }
  }
  if (type.encoding === 'dynamic_array' || (type.encoding === 'inplace' && type.base !== undefined)) {
    if (!/^\d+$/.test(step.index)) throw new PathError(`${shown} is an array: its index must be a decimal number, not ${JSON.stringify(step.index)}`)
    const index = BigInt(step.index)
    const element = typeOf(layout, type.base ?? '')
    const dynamic = type.encoding === 'dynamic_array'
    // a static array's size is in its label (`uint64[5]`): packed, its slots may hold more
    const count = dynamic ? await length(at.slot) : BigInt(/\[(\d+)\]$/.exec(type.label)?.[1] ?? type.numberOfBytes / 32n / slotsOf(element))
    const perSlot = packsPerSlot(element)
    if (index >= count) throw new PathError(`${shown}[${index}] is past the array's ${dynamic ? 'length' : 'size'} (${count})`)
    const data = dynamic ? dataSlotOf(at.slot) : at.slot
    if (perSlot > 1n) return { slot: data + index / perSlot, offset: Number((index % perSlot) * element.numberOfBytes), typeId: type.base ?? '', type: element }
    return { slot: data + index * slotsOf(element), offset: 0, typeId: type.base ?? '', type: element }
  }
  throw new PathError(`${shown} (${type.label}) takes no key or index`)
}

/** elements a slot holds: several for a small value type (solc packs `uint64[5]` four to a slot) */
function packsPerSlot(element: LayoutType): bigint {
  const plain = element.encoding === 'inplace' && !element.members && element.base === undefined
  return plain && element.numberOfBytes <= 16n ? 32n / element.numberOfBytes : 1n
}

function wordOf(n: bigint): Uint8Array {
  return Uint8Array.from(Buffer.from(n.toString(16).padStart(64, '0'), 'hex'))
}
