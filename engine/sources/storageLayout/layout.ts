/**
 * solc's `storageLayout` output (the `storage` entries of a contract and the `types` they name),
 * checked once into a typed form. Slots and sizes are decimal strings in solc's JSON; here they
 * are bigints and numbers.
 */

/** one variable (or struct member) at a slot and byte offset */
export interface LayoutEntry {
  label: string
  slot: bigint
  /** bytes from the right end of the slot */
  offset: number
  type: string
}

export interface LayoutType {
  encoding: 'inplace' | 'mapping' | 'dynamic_array' | 'bytes'
  label: string
  numberOfBytes: bigint
  /** arrays: the element type */
  base?: string
  /** mappings */
  key?: string
  value?: string
  /** structs */
  members?: LayoutEntry[]
}

export interface StorageLayout {
  storage: LayoutEntry[]
  types: Record<string, LayoutType>
}

const ENCODINGS = new Set(['inplace', 'mapping', 'dynamic_array', 'bytes'])
type Json = Record<string, unknown>
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

function entryOf(e: unknown): LayoutEntry | undefined {
  if (!isRecord(e) || typeof e.label !== 'string' || typeof e.type !== 'string' || typeof e.offset !== 'number') return undefined
  if (typeof e.slot !== 'string' || !/^\d+$/.test(e.slot)) return undefined
  return { label: e.label, slot: BigInt(e.slot), offset: e.offset, type: e.type }
}

function entriesOf(list: unknown): LayoutEntry[] | undefined {
  if (!Array.isArray(list)) return undefined
  const entries = list.map(entryOf)
  return entries.every((e) => e !== undefined) ? (entries as LayoutEntry[]) : undefined
}

function typeOf(t: unknown): LayoutType | undefined {
  if (!isRecord(t) || typeof t.encoding !== 'string' || !ENCODINGS.has(t.encoding) || typeof t.label !== 'string') return undefined
  if (typeof t.numberOfBytes !== 'string' || !/^\d+$/.test(t.numberOfBytes)) return undefined
  const members = t.members === undefined ? undefined : entriesOf(t.members)
  if (t.members !== undefined && members === undefined) return undefined
  return {
    encoding: t.encoding as LayoutType['encoding'],
    label: t.label,
    numberOfBytes: BigInt(t.numberOfBytes),
    ...(typeof t.base === 'string' && { base: t.base }),
    ...(typeof t.key === 'string' && { key: t.key }),
    ...(typeof t.value === 'string' && { value: t.value }),
    ...(members && { members }),
  }
}

/** the layout, or undefined when the value is not one solc wrote (a layout that cannot be read explains nothing) */
export function parseStorageLayout(raw: unknown): StorageLayout | undefined {
  if (!isRecord(raw)) return undefined
  const storage = entriesOf(raw.storage)
  if (!storage) return undefined
  const types: Record<string, LayoutType> = {}
  for (const [id, t] of Object.entries(isRecord(raw.types) ? raw.types : {})) {
    const parsed = typeOf(t)
    if (!parsed) return undefined
    types[id] = parsed
  }
  for (const e of storage) if (!types[e.type]) return undefined
  return { storage, types }
}

/** the AST id solc appends to an enum's type id: `t_enum(Color)4` → 4 */
export function enumAstId(typeId: string): number | undefined {
  const m = /^t_enum\(.*\)(\d+)$/.exec(typeId)
  return m ? Number(m[1]) : undefined
}
