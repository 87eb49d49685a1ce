/**
 * One registration as the cache store keeps it: the contracts of one build-info with what they
 * share (the sources' text, the function table) written once, as deflated JSON. One value per
 * registration, written whole: a reader sees all of a registration or none of it.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib'
import type { ContractSource, FunctionDefinition, SourceFile } from './types.js'

interface StoredEntry {
  sources: Record<number, SourceFile>
  functions: FunctionDefinition[]
  contracts: Omit<ContractSource, 'sources' | 'functions'>[]
}

/** the entry's bytes, and the size of its JSON: what the registry's cap counts (it is about what a process holds decoded) */
export function encodeEntry(contracts: ContractSource[]): { bytes: Uint8Array; jsonBytes: number } {
  const first = contracts[0]
  const entry: StoredEntry = {
    sources: first?.sources ?? {},
    functions: first?.functions ?? [],
    contracts: contracts.map(({ sources: _s, functions: _f, ...rest }) => rest),
  }
  const json = Buffer.from(JSON.stringify(entry))
  // a copy: zlib's output is a view into a larger chunk
  return { bytes: new Uint8Array(deflateRawSync(json, { level: 6 })), jsonBytes: json.byteLength }
}

export function decodeEntry(bytes: Uint8Array): ContractSource[] {
  const entry = JSON.parse(inflateRawSync(bytes).toString('utf8')) as StoredEntry
  return entry.contracts.map((c) => ({ ...c, sources: entry.sources, functions: entry.functions }))
}
