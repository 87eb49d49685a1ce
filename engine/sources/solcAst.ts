/**
 * The function table of a compilation, read from solc's compact JSON AST (`output.sources[*].ast`):
 * every function, modifier and constructor with its contract, its parameters' canonical ABI types
 * and its `src` range, which is what a source map's jump into a function points at.
 */
import type { FunctionDefinition } from './types.js'

type Node = Record<string, unknown> & { nodeType?: string; id?: number }

const asNode = (v: unknown): Node | undefined => (typeof v === 'object' && v !== null ? (v as Node) : undefined)
const nodesOf = (list: unknown[]): Node[] => list.map(asNode).filter((n): n is Node => n !== undefined)
const children = (n: Node): Node[] => (Array.isArray(n.nodes) ? nodesOf(n.nodes) : [])

/** every declaration a parameter's type may name (structs, enums, contracts, value types), by AST id */
function declarationsById(asts: Node[]): Map<number, Node> {
  const byId = new Map<number, Node>()
  const visit = (n: Node) => {
    if (typeof n.id === 'number') byId.set(n.id, n)
    for (const c of children(n)) visit(c)
  }
  for (const ast of asts) visit(ast)
  return byId
}

const ELEMENTARY_ALIASES: Record<string, string> = { uint: 'uint256', int: 'int256', byte: 'bytes1', fixed: 'fixed128x18', ufixed: 'ufixed128x18' }

/**
 * A type name as the ABI spells it in a signature: `address` for contracts, `uint8` for enums,
 * `(uint256,address)` for structs, the underlying type of a user-defined value type. Types with no
 * ABI form (mappings, storage pointers of internal functions) keep solc's spelling.
 */
export function abiTypeOf(typeName: Node | undefined, decls: Map<number, Node>): string {
  if (!typeName) return ''
  switch (typeName.nodeType) {
    case 'ElementaryTypeName': {
      const name = String(typeName.name ?? '')
      return ELEMENTARY_ALIASES[name] ?? name
    }
    case 'UserDefinedTypeName':
      return userDefinedAbiType(typeName, decls)
    case 'ArrayTypeName': {
      const length = asNode(typeName.length)
      const size = length && typeof length.value === 'string' ? length.value : ''
      return `${abiTypeOf(asNode(typeName.baseType), decls)}[${size}]`
    }
    case 'Mapping':
      return `mapping(${abiTypeOf(asNode(typeName.keyType), decls)} => ${abiTypeOf(asNode(typeName.valueType), decls)})`
    case 'FunctionTypeName':
      return 'function'
    default:
      return typeStringOf(typeName)
  }
}

function userDefinedAbiType(typeName: Node, decls: Map<number, Node>): string {
  const decl = decls.get(Number(typeName.referencedDeclaration))
  switch (decl?.nodeType) {
    case 'ContractDefinition':
      return 'address'
    case 'EnumDefinition':
      return 'uint8'
    case 'UserDefinedValueTypeDefinition':
      return abiTypeOf(asNode(decl.underlyingType), decls)
    case 'StructDefinition': {
      const members = Array.isArray(decl.members) ? (decl.members as Node[]) : []
      return `(${members.map((m) => abiTypeOf(asNode(m.typeName), decls)).join(',')})`
    }
    default:
      return typeStringOf(typeName)
  }
}

function typeStringOf(n: Node): string {
  const d = asNode(n.typeDescriptions)
  return typeof d?.typeString === 'string' ? d.typeString : ''
}

function parametersOf(list: unknown, decls: Map<number, Node>): { types: string[]; names: string[] } {
  const params = Array.isArray(asNode(list)?.parameters) ? (asNode(list)?.parameters as Node[]) : []
  return {
    types: params.map((p) => abiTypeOf(asNode(p.typeName), decls)),
    names: params.map((p) => (typeof p.name === 'string' ? p.name : '')),
  }
}

const KINDS = new Set(['function', 'constructor', 'fallback', 'receive', 'freeFunction'])

function definitionOf(n: Node, contract: string, decls: Map<number, Node>): FunctionDefinition | undefined {
  const kind = n.nodeType === 'ModifierDefinition' ? 'modifier' : String(n.kind ?? 'function')
  if (n.nodeType !== 'ModifierDefinition' && (n.nodeType !== 'FunctionDefinition' || !KINDS.has(kind))) return undefined
  const params = parametersOf(n.parameters, decls)
  const name = typeof n.name === 'string' && n.name !== '' ? n.name : kind
  return {
    name,
    contract,
    kind: kind as FunctionDefinition['kind'],
    parameters: params.types,
    parameterNames: params.names,
    returns: parametersOf(n.returnParameters, decls).types,
    src: String(n.src ?? ''),
  }
}

/** the function table of every source unit's AST (free functions have contract '') */
export function functionsOfAsts(asts: unknown[]): FunctionDefinition[] {
  const units = nodesOf(asts)
  const decls = declarationsById(units)
  const out: FunctionDefinition[] = []
  const visit = (n: Node, contract: string) => {
    const def = definitionOf(n, contract, decls)
    if (def) out.push(def)
    const inner = n.nodeType === 'ContractDefinition' ? String(n.name ?? '') : contract
    for (const c of children(n)) visit(c, inner)
  }
  for (const unit of units) visit(unit, '')
  return out
}

/** every enum's member names by its AST id: storage layouts name an enum type by that id (`t_enum(Color)4`) */
export function enumsOfAsts(asts: unknown[]): Record<number, string[]> {
  const enums: Record<number, string[]> = {}
  const visit = (n: Node) => {
    if (n.nodeType === 'EnumDefinition' && typeof n.id === 'number' && Array.isArray(n.members)) {
      enums[n.id] = nodesOf(n.members).map((m) => String(m.name ?? ''))
    }
    for (const c of children(n)) visit(c)
  }
  for (const ast of nodesOf(asts)) visit(ast)
  return enums
}
