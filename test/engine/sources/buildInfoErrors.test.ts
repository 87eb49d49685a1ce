/**
 * A build-info the service cannot use is a VALIDATION_ERROR naming the JSON path of what is wrong
 * (no object, no input or output, a failed compilation, a contract without the bytecode or
 * source-map fields, a language other than Solidity and Yul), never a crash.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { contractsOfBuildInfo } from '../../../engine/sources/buildInfo.js'
import { EngineError } from '../../../engine/platform/errors.js'
import { compileStandard, type StandardJsonPair } from '../../support/solcStandard.js'
import { VAULT_SOURCES } from './vaultSources.js'

let build: StandardJsonPair
beforeAll(() => {
  build = compileStandard(VAULT_SOURCES)
})

const copy = (): StandardJsonPair => structuredClone(build)

function rejection(buildInfo: unknown): { message: string; path: string } {
  try {
    contractsOfBuildInfo(buildInfo)
  } catch (e) {
    expect(e).toBeInstanceOf(EngineError)
    const err = e as EngineError
    expect(err.code).toBe('VALIDATION_ERROR')
    const issues = err.details?.issues as { path: string }[]
    return { message: err.message, path: issues[0]!.path }
  }
  throw new Error('accepted')
}

describe('contractsOfBuildInfo refuses what it cannot map', () => {
  it.each([
    ['a string', 'not json', ''],
    ['an array', [1, 2], ''],
    ['no output', { input: {} }, 'output'],
    ['no input', { output: {} }, 'input'],
  ])('%s', (_, body, path) => {
    expect(rejection(body).path).toBe(path)
  })

  it('a contract without its runtime source map', () => {
    const b = copy()
    delete b.output.contracts['src/Vault.sol']!.Vault.evm.deployedBytecode.sourceMap
    expect(rejection(b)).toEqual({
      path: 'output.contracts["src/Vault.sol"].Vault.evm.deployedBytecode.sourceMap',
      message: expect.stringContaining('source map'),
    })
  })

  it('a contract without evm output', () => {
    const b = copy()
    delete b.output.contracts['src/Math.sol']!.Math.evm
    expect(rejection(b).path).toBe('output.contracts["src/Math.sol"].Math.evm')
  })

  it('bytecode that is not hex, and placeholders without link references', () => {
    const b = copy()
    b.output.contracts['src/Vault.sol']!.Vault.evm.bytecode.object = 'zz'
    expect(rejection(b).path).toBe('output.contracts["src/Vault.sol"].Vault.evm.bytecode.object')
    const c = copy()
    delete c.output.contracts['src/Vault.sol']!.Vault.evm.bytecode.linkReferences
    expect(rejection(c).path).toBe('output.contracts["src/Vault.sol"].Vault.evm.bytecode.linkReferences')
  })

  it('output of a language the service cannot map', () => {
    const b = copy()
    b.input.language = 'Vyper'
    expect(rejection(b)).toEqual({ path: 'input.language', message: expect.stringContaining('Vyper') })
  })

  it('a failed compilation', () => {
    const b = copy()
    b.output.errors = [{ severity: 'error', formattedMessage: 'ParserError: Expected ;' }]
    expect(rejection(b)).toEqual({ path: 'output.errors[0]', message: expect.stringContaining('ParserError') })
  })

  it('sources without ids', () => {
    const b = copy()
    ;(b.output.sources as Record<string, unknown>)['src/Math.sol'] = {}
    expect(rejection(b).path).toBe('output.sources["src/Math.sol"].id')
  })
})
