/**
 * A contract's changed slots told by variable: each variable whose bytes changed once, with its
 * value before and after decoded by type. A string or bytes spread over several slots is one
 * change with all its slots; a packed slot gives one change per variable whose bytes differ; a
 * slot the layout does not explain is reported as it is, with `variable: null`.
 */
import { bytesToHex } from 'viem'
import type { LayoutType, StorageLayout } from './layout.js'
import { locate, type Placement } from './locate.js'
import { dataSlotOf, type Preimages } from './preimages.js'
import { decodeValue, type EnumMembers, fieldOf, type StorageValue } from './values.js'

export interface DecodedChange {
  /** the Solidity path; null when nothing explains the slot */
  variable: string | null
  /** the type as solc labels it (`uint256`, `mapping(...)`'s value type, `string`); null when unexplained */
  type: string | null
  /** the slots the change spans, hex */
  slots: string[]
  /** decoded by type; the raw 32-byte words when unexplained; null for a value that cannot be read whole */
  before: StorageValue | null
  after: StorageValue | null
}

/** a slot's value before and after the run */
export type SlotReader = (slot: bigint, when: 'before' | 'after') => Promise<bigint>

export interface ContractLayout {
  layout: StorageLayout
  enums: EnumMembers
}

/** the proxy slots of EIP-1967, named wherever they change */
export const EIP1967_SLOTS: Record<string, string> = {
  '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc': 'eip1967.implementation',
  '0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103': 'eip1967.admin',
  '0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50': 'eip1967.beacon',
}
const ADDRESS: LayoutType = { encoding: 'inplace', label: 'address', numberOfBytes: 20n }

/** a string's or bytes' longest length read whole (in slots); past it the value is reported null */
const MAX_DATA_SLOTS = 4096n

export const slotHex = (slot: bigint): string => `0x${slot.toString(16).padStart(64, '0')}`

export async function decodeChanges(contract: ContractLayout | undefined, changed: bigint[], preimages: Preimages, read: SlotReader): Promise<DecodedChange[]> {
  const byPath = new Map<string, DecodedChange>()
  const out: DecodedChange[] = []
  for (const slot of changed) {
    const [before, after] = [await read(slot, 'before'), await read(slot, 'after')]
    const placements = placementsOf(contract, slot, preimages)
    let explained = false
    for (const p of placements) {
      const seen = byPath.get(p.path)
      if (seen) {
        if (!seen.slots.includes(slotHex(slot))) seen.slots.push(slotHex(slot))
        explained = true
        continue
      }
      const change = await changeOf(p, contract?.enums ?? {}, before, after, read)
      if (!change) continue
      explained = true
      byPath.set(p.path, change)
      out.push(change)
      if (p.slot !== slot) change.slots = [slotHex(p.slot), slotHex(slot)].filter((s, i, a) => a.indexOf(s) === i)
    }
    if (!explained) out.push({ variable: null, type: null, slots: [slotHex(slot)], before: slotHex(before), after: slotHex(after) })
  }
  return out
}

function placementsOf(contract: ContractLayout | undefined, slot: bigint, preimages: Preimages): Placement[] {
  const proxySlot = EIP1967_SLOTS[slotHex(slot)]
  if (proxySlot) return [{ path: proxySlot, typeId: 't_address', type: ADDRESS, slot, offset: 0 }]
  if (!contract) return []
  return locate({ layout: contract.layout, preimages, enums: contract.enums }, slot)
}

async function changeOf(p: Placement, enums: EnumMembers, before: bigint, after: bigint, read: SlotReader): Promise<DecodedChange | undefined> {
  const slots = [slotHex(p.slot)]
  if (p.type.encoding === 'bytes') {
    const [b, a] = [await wholeBytes(p, 'before', read), await wholeBytes(p, 'after', read)]
    return { variable: p.path, type: p.type.label, slots, before: b, after: a }
  }
  const size = Number(p.type.numberOfBytes)
  const [b, a] = [fieldOf(before, p.offset, size), fieldOf(after, p.offset, size)]
  if (b === a) return undefined
  return { variable: p.path, type: p.type.label, slots, before: decodeValue(b, p.typeId, p.type, enums), after: decodeValue(a, p.typeId, p.type, enums) }
}

/** a string or bytes: short ones (length < 32) sit in their slot with 2·length in the low byte; long ones store 2·length+1 and their data at keccak256(slot) */
async function wholeBytes(p: Placement, when: 'before' | 'after', read: SlotReader): Promise<StorageValue | null> {
  const head = await read(p.slot, when)
  let data: Uint8Array
  if ((head & 1n) === 0n) {
    const length = Number((head & 0xffn) / 2n)
    data = wordBytes(head).subarray(0, length)
  } else {
    const length = (head - 1n) / 2n
    const slots = (length + 31n) / 32n
    if (slots > MAX_DATA_SLOTS) return null
    const start = dataSlotOf(p.slot)
    const buf = new Uint8Array(Number(slots) * 32)
    for (let i = 0n; i < slots; i++) buf.set(wordBytes(await read(start + i, when)), Number(i) * 32)
    data = buf.subarray(0, Number(length))
  }
  return p.type.label === 'string' ? new TextDecoder().decode(data) : bytesToHex(data)
}

function wordBytes(word: bigint): Uint8Array {
  const out = new Uint8Array(32)
  let v = word
  for (let i = 31; i >= 0; i--) {
    out[i] = Number(v & 0xffn)
    v >>= 8n
  }
  return out
}
