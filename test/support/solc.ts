/**
 * Compiles Solidity in-process with npm `solc` (no download: the package ships the compiler).
 */
import { createRequire } from 'node:module'
import type { Abi, Hex } from 'viem'

const require = createRequire(import.meta.url)
// solc ships CommonJS only
const solc = require('solc') as { compile(input: string): string }

export interface CompiledContract {
  abi: Abi
  bytecode: Hex
  deployedBytecode: Hex
}

/**
 * @param sources file name → Solidity source
 * @returns contract name → artifact (names must be unique across files)
 * @example const { Token } = compile({ 'Token.sol': src })
 */
export function compile(
  sources: Record<string, string>,
  opts: { evmVersion?: string; optimize?: boolean; viaIR?: boolean } = {},
): Record<string, CompiledContract> {
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(Object.entries(sources).map(([name, content]) => [name, { content }])),
    settings: {
      optimizer: { enabled: opts.optimize ?? false, runs: 200 },
      evmVersion: opts.evmVersion ?? 'cancun',
      ...(opts.viaIR && { viaIR: true }),
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  }
  const out = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[]
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>>
  }
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length) throw new Error(`solc: ${errors.map((e) => e.formattedMessage).join('\n')}`)
  const result: Record<string, CompiledContract> = {}
  for (const file of Object.values(out.contracts)) {
    for (const [name, c] of Object.entries(file)) {
      result[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}`, deployedBytecode: `0x${c.evm.deployedBytecode.object}` }
    }
  }
  return result
}
