/**
 * What the service knows of a contract's source: one compiled contract as solc described it,
 * reduced to what traces need (names, source maps, the functions' definitions, the sources'
 * text), and the index that recognises its code wherever it runs.
 *
 * Contracts are known by code, not by address: a runtime code matches whatever address it runs
 * at (a proxy's DELEGATECALL, a fork, a contract created inside the traced transaction), and a
 * creation input matches its init code with the constructor arguments appended.
 */
import type { Abi, Hex } from 'viem'

/** one source file of a compilation, by solc's source id */
export interface SourceFile {
  /** the path as the compiler input names it, e.g. `src/Vault.sol` */
  path: string
  /** the file's text; absent when the compilation did not carry it */
  content?: string
}

/** a function, modifier or constructor of the compiled sources, found in solc's AST */
export interface FunctionDefinition {
  /** `_credit`, `withdraw`, `onlyOwner`; `constructor`, `fallback`, `receive` by kind */
  name: string
  /** the contract, library or interface it is declared in */
  contract: string
  kind: 'function' | 'modifier' | 'constructor' | 'fallback' | 'receive' | 'freeFunction'
  /** canonical parameter types, e.g. `['address', 'uint256']`, as the ABI spells them */
  parameters: string[]
  /** parameter names in order ('' when unnamed) */
  parameterNames: string[]
  returns: string[]
  /** the definition's source range as solc's `src` gives it: `start:length:sourceId` */
  src: string
}

/** one bytecode of a contract (creation or runtime) with what maps it back to the source */
export interface CompiledCode {
  /** the bytecode as compiled, hex with `0x`; library placeholders (`__$…$__`) kept as they are */
  object: string
  /** solc's compressed source map */
  sourceMap: string
  /** solc's linkReferences: file → library → [{ start, length }] (byte offsets) */
  linkReferences: Record<string, Record<string, { start: number; length: number }[]>>
  /** runtime code only: AST id → [{ start, length }] of each immutable's value */
  immutableReferences?: Record<string, { start: number; length: number }[]>
  /** the compiler-generated Yul sources (ids past the input's), path and content */
  generatedSources?: Record<number, SourceFile>
}

/** one contract with bytecode out of a compilation */
export interface ContractSource {
  name: string
  /** the source file that declares it, e.g. `src/Vault.sol` */
  file: string
  compiler: { version: string; language: 'Solidity' | 'Yul' }
  abi: Abi
  creation: CompiledCode
  runtime: CompiledCode
  /** the compilation's source files by solc source id */
  sources: Record<number, SourceFile>
  /** every function, modifier and constructor of the compilation's sources */
  functions: FunctionDefinition[]
  /** keccak-256 of the runtime code with metadata, immutables and links blanked (see codeMatch) */
  runtimeCodeHash: Hex
  /** the same over the creation code */
  creationCodeHash: Hex
  /** solc's storageLayout when the compilation selected it, with the ERC-7201 namespaces its AST declares appended */
  storageLayout?: unknown
  /** enum member names by the enum's AST id, which storage layouts name types by; with storageLayout */
  enums?: Record<number, string[]>
}

/** what `POST /v1/sources` answers and `GET /v1/sources` lists */
export interface RegisteredContract {
  name: string
  file: string
  runtimeCodeHash: Hex
  creationCodeHash: Hex
}

/** the known contracts, recognised by their code */
export interface SourceIndex {
  /** no contract known: tracing skips every source step */
  readonly empty: boolean
  /** the contract whose deployed code this is */
  matchRuntime(code: Uint8Array): ContractSource | undefined
  /** the contract whose creation code begins this init code (constructor arguments follow it) */
  matchCreation(initCode: Uint8Array): ContractSource | undefined
}
