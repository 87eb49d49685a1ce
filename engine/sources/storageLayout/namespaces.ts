/**
 * ERC-7201 namespaced storage (OpenZeppelin 5's upgradeable contracts): a struct annotated
 * `@custom:storage-location erc7201:<id>` lives at keccak256(abi.encode(uint256(keccak256(id)) -
 * 1)) & ~0xff, and solc's `storageLayout` does not list it. Its layout is computed here from the
 * AST by solc's packing rules (value types share a slot while they fit; structs, arrays, mappings,
 * strings and bytes start a slot, and what follows a struct or array starts the next) and added to
 * the contract's layout as one more root variable named after the struct: `ERC20Storage._balances[0x…]`
 * (decision 0123). A struct holding a type this does not know is left out, never guessed.
 */
import { keccak256 } from '../../platform/keccak.js'

type Node = Record<string, unknown> & { nodeType?: string; id?: number }
/** a type as solc's storageLayout JSON writes it (sizes and slots as decimal strings) */
type SolcType = Record<string, unknown> & { encoding: string; label: string; numberOfBytes: string }
interface SolcEntry {
  label: string
  slot: string
  offset: number
  type: string
}
export interface NamespaceLayout {
  storage: SolcEntry[]
  types: Record<string, SolcType>
}

const ANNOTATION = /@custom:storage-location\s+erc7201:(\S+)/
const asNode = (v: unknown): Node | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Node) : undefined)
const nodesOf = (v: unknown): Node[] => (Array.isArray(v) ? v.map(asNode).filter((n): n is Node => n !== undefined) : [])

/** the namespace's root slot, as ERC-7201 defines it */
export function erc7201Slot(id: string): bigint {
  const inner = BigInt(`0x${Buffer.from(keccak256(new TextEncoder().encode(id))).toString('hex')}`) - 1n
  const word = Uint8Array.from(Buffer.from(inner.toString(16).padStart(64, '0'), 'hex'))
  return BigInt(`0x${Buffer.from(keccak256(word)).toString('hex')}`) & ~0xffn
}

/** each contract's (`file:name`) namespaces, from its own and its bases' annotated structs */
export function namespacesOfAsts(asts: unknown[]): Map<string, NamespaceLayout> {
  const decls = new Map<number, Node>()
  const contracts: { key: string; node: Node }[] = []
  const visit = (n: Node, file: string) => {
    if (typeof n.id === 'number') decls.set(n.id, n)
    if (n.nodeType === 'ContractDefinition') contracts.push({ key: `${file}:${String(n.name)}`, node: n })
    for (const c of nodesOf(n.nodes)) visit(c, file)
  }
  for (const unit of nodesOf(asts)) visit(unit, String(unit.absolutePath ?? ''))
  const out = new Map<string, NamespaceLayout>()
  for (const { key, node } of contracts) {
    const layout: NamespaceLayout = { storage: [], types: {} }
    const bases = Array.isArray(node.linearizedBaseContracts) ? (node.linearizedBaseContracts as number[]) : [node.id as number]
    for (const base of bases) {
      for (const struct of nodesOf(decls.get(base)?.nodes).filter((n) => n.nodeType === 'StructDefinition')) {
        const id = ANNOTATION.exec(String(asNode(struct.documentation)?.text ?? struct.documentation ?? ''))?.[1]
        if (!id) continue
        const types: Record<string, SolcType> = {}
        const type = structType(struct, decls, types)
        if (!type) continue
        Object.assign(layout.types, types)
        layout.storage.push({ label: String(struct.name), slot: erc7201Slot(id).toString(), offset: 0, type })
      }
    }
    if (layout.storage.length > 0) out.set(key, layout)
  }
  return out
}

/** solc's storageLayout with the namespaces appended (solc's own types win where both name one) */
export function withNamespaces(storageLayout: unknown, namespaces: NamespaceLayout | undefined): unknown {
  const raw = asNode(storageLayout)
  if (!namespaces || !raw || !Array.isArray(raw.storage)) return storageLayout
  return { ...raw, storage: [...raw.storage, ...namespaces.storage], types: { ...namespaces.types, ...(asNode(raw.types) ?? {}) } }
}

const slotsOf = (t: SolcType): bigint => (BigInt(t.numberOfBytes) + 31n) / 32n
/** a type that takes whole slots and makes what follows start a new one */
const isWhole = (t: SolcType): boolean => t.encoding !== 'inplace' || t.members !== undefined || t.base !== undefined

function structType(struct: Node, decls: Map<number, Node>, types: Record<string, SolcType>): string | undefined {
  const id = `t_struct(${String(struct.name)})${struct.id}_storage`
  if (types[id]) return id
  const label = `struct ${String(struct.canonicalName ?? struct.name)}`
  // a struct reached again through its own mapping or dynamic array: that member is one slot whatever the struct holds
  types[id] = { encoding: 'inplace', label, numberOfBytes: '0', members: [] }
  const members: SolcEntry[] = []
  let slot = 0n
  let offset = 0
  for (const m of nodesOf(struct.members)) {
    const typeId = typeIdOf(asNode(m.typeName), decls, types)
    const t = typeId === undefined ? undefined : types[typeId]
    if (!typeId || !t) {
      delete types[id]
      return undefined
    }
    const size = Number(t.numberOfBytes)
    if (offset > 0 && (isWhole(t) || offset + size > 32)) {
      slot++
      offset = 0
    }
    members.push({ label: String(m.name), slot: slot.toString(), offset, type: typeId })
    if (isWhole(t)) slot += slotsOf(t)
    else offset += size
  }
  const total = slot + (offset > 0 ? 1n : 0n)
  types[id] = { encoding: 'inplace', label, numberOfBytes: (total * 32n).toString(), members }
  return id
}

/** the type's id in solc's spelling, its description added to `types`; undefined for a type not known here */
function typeIdOf(typeName: Node | undefined, decls: Map<number, Node>, types: Record<string, SolcType>): string | undefined {
  if (!typeName) return undefined
  const add = (id: string, t: SolcType) => ((types[id] ??= t), id)
  switch (typeName.nodeType) {
    case 'ElementaryTypeName':
      return elementary(String(asNode(typeName.typeDescriptions)?.typeString ?? typeName.name), add)
    case 'UserDefinedTypeName':
      return userDefined(decls.get(Number(typeName.referencedDeclaration)), decls, types, add)
    case 'Mapping': {
      const [key, value] = [typeIdOf(asNode(typeName.keyType), decls, types), typeIdOf(asNode(typeName.valueType), decls, types)]
      if (!key || !value) return undefined
      const label = `mapping(${types[key]!.label} => ${types[value]!.label})`
      return add(`t_mapping(${key},${value})`, { encoding: 'mapping', label, numberOfBytes: '32', key, value })
    }
    case 'ArrayTypeName': {
      const base = typeIdOf(asNode(typeName.baseType), decls, types)
      if (!base) return undefined
      const element = types[base]!
      const length = /\[(\d*)\]$/.exec(String(asNode(typeName.typeDescriptions)?.typeString ?? ''))?.[1]
      if (length === undefined) return undefined
      if (length === '') return add(`t_array(${base})dyn_storage`, { encoding: 'dynamic_array', label: `${element.label}[]`, numberOfBytes: '32', base })
      const perSlot = isWhole(element) || Number(element.numberOfBytes) > 16 ? 1n : 32n / BigInt(element.numberOfBytes)
      const slots = isWhole(element) || perSlot === 1n ? BigInt(length) * slotsOf(element) : (BigInt(length) + perSlot - 1n) / perSlot
      return add(`t_array(${base})${length}_storage`, {
        encoding: 'inplace',
        label: `${element.label}[${length}]`,
        numberOfBytes: (slots * 32n).toString(),
        base,
      })
    }
    default:
      return undefined
  }
}

function elementary(typeString: string, add: (id: string, t: SolcType) => string): string | undefined {
  const name = typeString === 'uint' ? 'uint256' : typeString === 'int' ? 'int256' : typeString
  if (name === 'string' || name === 'bytes' || name.startsWith('string ') || name.startsWith('bytes ')) {
    const label = name.split(' ')[0]!
    return add(`t_${label}_storage`, { encoding: 'bytes', label, numberOfBytes: '32' })
  }
  const int = /^u?int(\d+)$/.exec(name)
  const fixed = /^bytes(\d+)$/.exec(name)
  const size = int ? Number(int[1]) / 8 : fixed ? Number(fixed[1]) : name === 'bool' ? 1 : name === 'address' || name === 'address payable' ? 20 : undefined
  if (size === undefined) return undefined
  return add(`t_${name.replace(' ', '_')}`, { encoding: 'inplace', label: name, numberOfBytes: String(size) })
}

function userDefined(
  decl: Node | undefined,
  decls: Map<number, Node>,
  types: Record<string, SolcType>,
  add: (id: string, t: SolcType) => string,
): string | undefined {
  const name = String(decl?.name ?? '')
  switch (decl?.nodeType) {
    case 'StructDefinition':
      return structType(decl, decls, types)
    case 'EnumDefinition':
      return add(`t_enum(${name})${decl.id}`, { encoding: 'inplace', label: `enum ${String(decl.canonicalName ?? name)}`, numberOfBytes: '1' })
    case 'ContractDefinition':
      return add(`t_contract(${name})${decl.id}`, { encoding: 'inplace', label: `contract ${name}`, numberOfBytes: '20' })
    case 'UserDefinedValueTypeDefinition': {
      const under = typeIdOf(asNode(decl.underlyingType), decls, types)
      if (!under) return undefined
      return add(`t_userDefinedValueType(${name})${decl.id}`, { encoding: 'inplace', label: name, numberOfBytes: types[under]!.numberOfBytes })
    }
    default:
      return undefined
  }
}
