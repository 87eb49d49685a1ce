/**
 * With no source known, a call tree has no source fields and costs no source work: no source observer
 * among the tracers (so the adapter keeps its light path and reads no code), and the same bytes.
 * A known contract that no frame runs attaches the observer but changes nothing in the answer.
 */
import { createRequire } from 'node:module'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDevnet, type Devnet } from '../../../../engine/chains/devnet/devnetChain.js'
import { contractsOfBuildInfo } from '../../../../engine/sources/buildInfo.js'
import { createSourceIndex } from '../../../../engine/sources/sourceIndex.js'
import { createTraceService } from '../../../../engine/operations/trace/traceService.js'
import { createTraceSet } from '../../../../engine/operations/trace/traceSet.js'
import type { SourceIndex } from '../../../../engine/sources/types.js'

const solc = createRequire(import.meta.url)('solc') as { compile(input: string): string }

function unrelatedIndex(): SourceIndex {
  const input = {
    language: 'Solidity',
    sources: {
      'Other.sol': {
        content: '// SPDX-License-Identifier: MIT\npragma solidity ^0.8.20;\ncontract Other { function f() external pure returns (uint256) { return 1; } }\n',
      },
    },
    settings: {
      outputSelection: {
        '*': {
          '': ['ast'],
          '*': [
            'abi',
            'evm.bytecode.object',
            'evm.bytecode.sourceMap',
            'evm.bytecode.linkReferences',
            'evm.deployedBytecode.object',
            'evm.deployedBytecode.sourceMap',
            'evm.deployedBytecode.linkReferences',
            'evm.deployedBytecode.immutableReferences',
          ],
        },
      },
    },
  }
  const output = JSON.parse(solc.compile(JSON.stringify(input)))
  return createSourceIndex(contractsOfBuildInfo({ input, output, solcVersion: '0.8.37' }))
}

describe('a call tree with no source known', () => {
  let devnet: Devnet
  beforeAll(async () => {
    devnet = await createDevnet()
  })
  afterAll(() => devnet?.close())

  it('attaches no source observer: the tracers are those of a tree without sources', () => {
    const opts = { maxStructLogSteps: 1000 }
    const config = { callTree: { internal: true } }
    const without = createTraceSet(config, opts).tracers
    const empty = createTraceSet(config, { ...opts, sources: createSourceIndex([]) }).tracers
    expect(empty).toHaveLength(without.length)
    for (const t of [...without, ...empty]) {
      expect(t.readsCode).toBeFalsy()
      expect(t.wantsStep).toBeUndefined()
    }
    const known = createTraceSet(config, { ...opts, sources: unrelatedIndex() }).tracers
    expect(known).toHaveLength(without.length + 1)
    expect(known.filter((t) => t.readsCode)).toHaveLength(1)
  })

  it('answers byte for byte the same, registry empty or knowing only other code', async () => {
    const base = createTraceService(devnet, { gasCap: 50_000_000n, maxStructLogSteps: 100_000 })
    const block = await base.traceBlock({ block: { number: 5n }, tracerConfig: { callTracer: {} } })
    const hashes = block.map((e) => e.txHash)
    expect(hashes.length).toBeGreaterThan(0)
    const other = unrelatedIndex()
    for (const sources of [createSourceIndex([]), other]) {
      const service = createTraceService(devnet, { gasCap: 50_000_000n, maxStructLogSteps: 100_000, sources: { index: async () => sources } })
      for (const hash of hashes)
        for (const tracerConfig of [{ callTree: { internal: true } }, { callTree: {} }, { callTree: {}, callTracer: { withLog: true } }]) {
          const a = JSON.stringify(await base.traceTransaction(hash, tracerConfig))
          const b = JSON.stringify(await service.traceTransaction(hash, tracerConfig))
          expect(b).toBe(a)
        }
    }
  })
})
