/**
 * A solc standard-JSON compilation in-process with npm `solc`, returned as the pair a build-info
 * carries (`{ input, output, solcVersion }`), with every output tracing needs selected: ASTs,
 * bytecode, source maps, link and immutable references, generated sources, metadata.
 */
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
// solc ships CommonJS only
const solc = require('solc') as { compile(input: string): string; version(): string }

export const FULL_OUTPUT_SELECTION = {
  '*': {
    '': ['ast'],
    '*': ['abi', 'metadata', 'evm.bytecode', 'evm.deployedBytecode', 'evm.methodIdentifiers', 'storageLayout'],
  },
}

export interface StandardJsonPair {
  input: Record<string, unknown>
  output: Record<string, unknown> & { contracts: Record<string, Record<string, any>> }
  solcVersion: string
}

/** @param sources path → Solidity text */
export function compileStandard(sources: Record<string, string>, settings: Record<string, unknown> = {}): StandardJsonPair {
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(Object.entries(sources).map(([path, content]) => [path, { content }])),
    settings: { optimizer: { enabled: false, runs: 200 }, evmVersion: 'cancun', outputSelection: FULL_OUTPUT_SELECTION, ...settings },
  }
  const output = JSON.parse(solc.compile(JSON.stringify(input)))
  const errors = ((output.errors ?? []) as { severity: string; formattedMessage: string }[]).filter((e) => e.severity === 'error')
  if (errors.length) throw new Error(`solc: ${errors.map((e) => e.formattedMessage).join('\n')}`)
  return { input, output, solcVersion: solc.version() }
}
