/**
 * A build-info as a project already has it, read into the contracts it compiled: Foundry's
 * `out/build-info/*.json` (`{ id, source_id_to_path, language, input, output, solcVersion, … }`),
 * Hardhat's `artifacts/build-info/*.json` (`{ _format, solcVersion, solcLongVersion, input,
 * output }`) and a bare solc standard-JSON pair `{ input, output }` are the same thing to it: the
 * compiler's input (sources' text, language) and its output (bytecode, source maps, ASTs).
 *
 * One entry per contract with bytecode; an interface or abstract contract (empty bytecode) is not
 * listed. What tracing needs and the output lacks is a VALIDATION_ERROR naming the path.
 *
 * @example contractsOfBuildInfo(JSON.parse(readFileSync('out/build-info/fc94e2ee249f5cd8.json', 'utf8')))
 */
import type { Abi } from 'viem'
import { blankedCode, blankedHash } from './codeMatch.js'
import { enumsOfAsts, functionsOfAsts } from './solcAst.js'
import { type NamespaceLayout, namespacesOfAsts, withNamespaces } from './storageLayout/namespaces.js'
import { buildInfoError, isRecord } from './sourcesError.js'
import type { CompiledCode, ContractSource, FunctionDefinition, SourceFile } from './types.js'

type Json = Record<string, unknown>

/** what every contract of one compilation shares */
interface Compilation {
  version: string
  language: 'Solidity' | 'Yul'
  sources: Record<number, SourceFile>
  functions: FunctionDefinition[]
  enums: Record<number, string[]>
  /** ERC-7201 namespaces by `file:name` of the contract */
  namespaces: Map<string, NamespaceLayout>
}

export function contractsOfBuildInfo(buildInfo: unknown): ContractSource[] {
  if (!isRecord(buildInfo)) throw buildInfoError([], 'expected a build-info object { input, output } as solc standard JSON')
  const { input, output } = buildInfo
  if (!isRecord(input)) throw buildInfoError(['input'], 'expected the compiler input (solc standard JSON)')
  if (!isRecord(output)) throw buildInfoError(['output'], 'expected the compiler output (solc standard JSON)')
  rejectFailedCompilation(output)
  const compilation = compilationOf(buildInfo, input, output)
  if (!isRecord(output.contracts)) throw buildInfoError(['output', 'contracts'], 'expected the compiled contracts by file')
  const out: ContractSource[] = []
  for (const [file, byName] of Object.entries(output.contracts)) {
    if (!isRecord(byName)) throw buildInfoError(['output', 'contracts', file], 'expected contracts by name')
    for (const [name, contract] of Object.entries(byName)) {
      const source = contractOf(['output', 'contracts', file, name], file, name, contract, compilation)
      if (source) out.push(source)
    }
  }
  return out
}

function rejectFailedCompilation(output: Json): void {
  const errors = Array.isArray(output.errors) ? output.errors : []
  const failed = errors.findIndex((e) => isRecord(e) && e.severity === 'error')
  if (failed >= 0) {
    const e = errors[failed] as Json
    throw buildInfoError(['output', 'errors', failed], `the compilation failed: ${String(e.formattedMessage ?? e.message ?? '')}`.trim())
  }
}

function languageOf(input: Json): 'Solidity' | 'Yul' {
  const language = input.language ?? 'Solidity'
  if (language === 'Solidity' || language === 'Yul') return language
  throw buildInfoError(['input', 'language'], `${JSON.stringify(language)} output cannot be mapped to source: Solidity and Yul can`)
}

function versionOf(buildInfo: Json, output: Json): string {
  for (const v of [buildInfo.solcLongVersion, buildInfo.solcVersion]) if (typeof v === 'string' && v !== '') return v
  for (const byName of Object.values(isRecord(output.contracts) ? output.contracts : {})) {
    for (const c of Object.values(isRecord(byName) ? byName : {})) {
      const metadata = isRecord(c) && typeof c.metadata === 'string' ? safeJson(c.metadata) : undefined
      const version = isRecord(metadata) && isRecord(metadata.compiler) ? metadata.compiler.version : undefined
      if (typeof version === 'string') return version
    }
  }
  return 'unknown'
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** the sources by solc's id (`output.sources[path].id`) with their text from the input */
function compilationOf(buildInfo: Json, input: Json, output: Json): Compilation {
  if (!isRecord(output.sources)) throw buildInfoError(['output', 'sources'], 'expected the sources by path with their ids')
  const inputSources = isRecord(input.sources) ? input.sources : {}
  const sources: Record<number, SourceFile> = {}
  const asts: unknown[] = []
  for (const [path, entry] of Object.entries(output.sources)) {
    if (!isRecord(entry) || typeof entry.id !== 'number') throw buildInfoError(['output', 'sources', path, 'id'], 'expected the source id')
    const given = inputSources[path]
    const content = isRecord(given) && typeof given.content === 'string' ? given.content : undefined
    sources[entry.id] = { path, ...(content !== undefined && { content }) }
    if (entry.ast !== undefined) asts.push(entry.ast)
  }
  return {
    version: versionOf(buildInfo, output),
    language: languageOf(input),
    sources,
    functions: functionsOfAsts(asts),
    enums: enumsOfAsts(asts),
    namespaces: namespacesOfAsts(asts),
  }
}

function contractOf(at: string[], file: string, name: string, contract: unknown, compilation: Compilation): ContractSource | undefined {
  if (!isRecord(contract)) throw buildInfoError(at, 'expected a compiled contract')
  if (!isRecord(contract.evm)) throw buildInfoError([...at, 'evm'], 'expected evm.bytecode and evm.deployedBytecode (select them in outputSelection)')
  const creation = compiledCodeOf([...at, 'evm', 'bytecode'], contract.evm.bytecode)
  if (creation === undefined) return undefined
  const runtime = compiledCodeOf([...at, 'evm', 'deployedBytecode'], contract.evm.deployedBytecode) ?? emptyCode()
  return {
    name,
    file,
    compiler: { version: compilation.version, language: compilation.language },
    abi: Array.isArray(contract.abi) ? (contract.abi as Abi) : [],
    creation,
    runtime,
    sources: compilation.sources,
    functions: compilation.functions,
    runtimeCodeHash: blankedHash(blankedCode(runtime, 'runtime')),
    creationCodeHash: blankedHash(blankedCode(creation, 'creation')),
    ...(contract.storageLayout !== undefined && {
      storageLayout: withNamespaces(contract.storageLayout, compilation.namespaces.get(`${file}:${name}`)),
      enums: compilation.enums,
    }),
  }
}

const emptyCode = (): CompiledCode => ({ object: '0x', sourceMap: '', linkReferences: {} })

/** one bytecode with its source map; undefined when empty (an interface or abstract contract) */
function compiledCodeOf(at: string[], code: unknown): CompiledCode | undefined {
  if (!isRecord(code)) throw buildInfoError(at, 'expected the bytecode (select it in outputSelection)')
  if (typeof code.object !== 'string') throw buildInfoError([...at, 'object'], 'expected the bytecode as hex')
  const hex = code.object.startsWith('0x') ? code.object.slice(2) : code.object
  if (hex === '') return undefined
  if (!/^([0-9a-fA-F]{2}|__.{36}__)*$/.test(hex)) throw buildInfoError([...at, 'object'], 'expected the bytecode as hex')
  if (typeof code.sourceMap !== 'string') throw buildInfoError([...at, 'sourceMap'], 'expected the source map (select it in outputSelection)')
  const linkReferences = referencesOf([...at, 'linkReferences'], code.linkReferences, 2)
  if (hex.includes('__') && linkReferences === undefined) {
    throw buildInfoError([...at, 'linkReferences'], 'the bytecode has library placeholders: expected its linkReferences')
  }
  const immutableReferences = referencesOf([...at, 'immutableReferences'], code.immutableReferences, 1)
  return {
    object: `0x${hex}`,
    sourceMap: code.sourceMap,
    linkReferences: (linkReferences ?? {}) as CompiledCode['linkReferences'],
    ...(immutableReferences !== undefined && { immutableReferences: immutableReferences as CompiledCode['immutableReferences'] }),
    ...generatedSourcesOf(code.generatedSources),
  }
}

/** linkReferences (file → library → ranges: depth 2) or immutableReferences (id → ranges: depth 1) */
function referencesOf(at: string[], refs: unknown, depth: 1 | 2): Json | undefined {
  if (refs === undefined || refs === null) return undefined
  if (!isRecord(refs)) throw buildInfoError(at, 'expected byte ranges by name')
  for (const [key, inner] of Object.entries(refs)) {
    if (depth === 2) referencesOf([...at, key], inner, 1)
    else if (!Array.isArray(inner) || !inner.every((r) => isRecord(r) && Number.isInteger(r.start) && Number.isInteger(r.length))) {
      throw buildInfoError([...at, key], 'expected [{ start, length }]')
    }
  }
  return refs
}

function generatedSourcesOf(list: unknown): { generatedSources?: Record<number, SourceFile> } {
  if (!Array.isArray(list) || list.length === 0) return {}
  const generatedSources: Record<number, SourceFile> = {}
  for (const g of list) {
    if (isRecord(g) && typeof g.id === 'number') {
      generatedSources[g.id] = { path: String(g.name ?? `#utility.yul`), ...(typeof g.contents === 'string' && { content: g.contents }) }
    }
  }
  return { generatedSources }
}
