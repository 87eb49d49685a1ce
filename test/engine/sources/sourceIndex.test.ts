/**
 * Build-info read into contracts and their code recognised wherever it runs, over real solc-js
 * output deployed on an in-process EVM: a linked library (its call protection carries its own
 * address), a contract with an immutable and constructor arguments, the same contract created by a
 * factory, and a rebuild whose metadata differs.
 */
import { type Hex, bytesToHex, encodeAbiParameters, hexToBytes } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { contractsOfBuildInfo } from '../../../engine/sources/buildInfo.js'
import { blankedCode, blankedHash } from '../../../engine/sources/codeMatch.js'
import { createSourceIndex } from '../../../engine/sources/sourceIndex.js'
import type { ContractSource } from '../../../engine/sources/types.js'
import { compileStandard, type StandardJsonPair } from '../../support/solcStandard.js'
import { type Chain, inProcessChain, link } from './deploy.js'
import { VAULT_SOURCES } from './vaultSources.js'

let build: StandardJsonPair
let contracts: ContractSource[]
let chain: Chain
const deployed: Record<string, { address: Hex; code: Uint8Array; initCode?: Hex }> = {}

const byName = (name: string) => contracts.find((c) => c.name === name)!
const vaultOut = () => build.output.contracts['src/Vault.sol']!.Vault

beforeAll(async () => {
  build = compileStandard(VAULT_SOURCES)
  // Hardhat's artifacts/build-info form
  contracts = contractsOfBuildInfo({ _format: 'hh-sol-build-info-1', solcLongVersion: build.solcVersion, ...build })
  chain = await inProcessChain()
  const math = await chain.create(`0x${build.output.contracts['src/Math.sol']!.Math.evm.bytecode.object}`)
  deployed.Math = math
  const vault = vaultOut()
  const initCode = (link(vault.evm.bytecode.object, vault.evm.bytecode.linkReferences, 'Math', math.address) +
    encodeAbiParameters([{ type: 'uint256' }], [1000n]).slice(2)) as Hex
  deployed.Vault = { ...(await chain.create(initCode)), initCode }
  const factoryOut = build.output.contracts['src/Vault.sol']!.Factory
  const factory = await chain.create(link(factoryOut.evm.bytecode.object, factoryOut.evm.bytecode.linkReferences, 'Math', math.address))
  const made = (await chain.call(factory.address, factoryOut.abi, 'make', [77n])) as Hex
  deployed.Made = { address: made, code: await chain.codeAt(made) }
}, 60_000)

describe('contractsOfBuildInfo', () => {
  it('lists each contract with bytecode, not the interface or the abstract contract', () => {
    expect(contracts.map((c) => `${c.file}:${c.name}`).sort()).toEqual(['src/Math.sol:Math', 'src/Vault.sol:Factory', 'src/Vault.sol:Vault'])
    const vault = byName('Vault')
    expect(vault.compiler).toEqual({ version: build.solcVersion, language: 'Solidity' })
    expect(vault.runtime.object).toBe(`0x${vaultOut().evm.deployedBytecode.object}`)
    expect(vault.runtime.sourceMap).toBe(vaultOut().evm.deployedBytecode.sourceMap)
    expect(Object.keys(vault.runtime.immutableReferences ?? {})).toHaveLength(1)
    expect(vault.creation.linkReferences['src/Math.sol']?.Math?.length).toBeGreaterThan(0)
    expect(vault.runtimeCodeHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(vault.creationCodeHash).not.toBe(vault.runtimeCodeHash)
  })

  it('carries the sources by solc id with their text, and the generated Yul sources', () => {
    const vault = byName('Vault')
    const ids = (build.output.sources as Record<string, { id: number }>)['src/Vault.sol']!.id
    expect(vault.sources[ids]).toEqual({ path: 'src/Vault.sol', content: VAULT_SOURCES['src/Vault.sol'] })
    const generated = Object.values(vault.runtime.generatedSources ?? {})
    expect(generated.length).toBeGreaterThan(0)
    expect(generated[0]?.path).toMatch(/\.yul$/)
    expect(generated[0]?.content).toContain('function ')
  })

  it('reads the function table from the AST with canonical ABI parameter types', () => {
    const fns = byName('Vault').functions
    const credit = fns.find((f) => f.name === '_credit')!
    expect(credit).toMatchObject({
      contract: 'Vault',
      kind: 'function',
      parameters: ['(address,uint256)', 'uint8'],
      parameterNames: ['e', 'kind'],
      returns: ['uint256'],
    })
    const [start, length, id] = credit.src.split(':').map(Number)
    expect(VAULT_SOURCES['src/Vault.sol'].slice(start, start! + length!)).toMatch(/^function _credit\(Entry memory e, Kind kind\)/)
    expect(byName('Vault').sources[id!]?.path).toBe('src/Vault.sol')
    expect(fns.find((f) => f.name === 'onlyOwner')).toMatchObject({ contract: 'Owned', kind: 'modifier', parameters: [] })
    expect(fns.find((f) => f.contract === 'Vault' && f.kind === 'constructor')).toMatchObject({ name: 'constructor', parameters: ['uint256'] })
    expect(fns.find((f) => f.name === 'add')).toMatchObject({ contract: 'Math', parameters: ['uint256', 'uint256'], returns: ['uint256'] })
    expect(fns.find((f) => f.name === 'make')).toMatchObject({ contract: 'Factory', returns: ['address'] })
  })
})

describe('createSourceIndex', () => {
  it('recognises deployed code: immutables, linked libraries and call protection blanked', () => {
    const index = createSourceIndex(contracts)
    expect(index.empty).toBe(false)
    // the deployed library carries its own address where it was compiled with zeros
    expect(bytesToHex(deployed.Math!.code.subarray(1, 21))).toBe(deployed.Math!.address.toLowerCase())
    expect(index.matchRuntime(deployed.Math!.code)?.name).toBe('Math')
    expect(index.matchRuntime(deployed.Vault!.code)?.name).toBe('Vault')
    expect(index.matchRuntime(deployed.Made!.code)?.name).toBe('Vault')
    expect(deployed.Made!.code).not.toEqual(deployed.Vault!.code)
  })

  it('recognises creation code followed by constructor arguments', () => {
    const index = createSourceIndex(contracts)
    expect(index.matchCreation(hexToBytes(deployed.Vault!.initCode!))?.name).toBe('Vault')
    expect(index.matchCreation(hexToBytes(`0x${build.output.contracts['src/Math.sol']!.Math.evm.bytecode.object}`))?.name).toBe('Math')
    expect(index.matchCreation(deployed.Vault!.code)).toBeUndefined()
  })

  it('matches a rebuild whose metadata differs, and the hashes agree', () => {
    const rebuilt = compileStandard({ ...VAULT_SOURCES, 'src/Vault.sol': `${VAULT_SOURCES['src/Vault.sol']}// a comment changes the metadata hash\n` })
    const again = contractsOfBuildInfo(rebuilt)
    const vault = again.find((c) => c.name === 'Vault')!
    expect(vault.runtime.object).not.toBe(byName('Vault').runtime.object)
    expect(vault.runtimeCodeHash).toBe(byName('Vault').runtimeCodeHash)
    expect(vault.creationCodeHash).toBe(byName('Vault').creationCodeHash)
    expect(createSourceIndex(again).matchRuntime(deployed.Vault!.code)?.name).toBe('Vault')
  })

  it('does not match code that differs outside the blanked ranges, nor another length', () => {
    const index = createSourceIndex(contracts)
    const changed = deployed.Vault!.code.slice()
    changed[5] = changed[5]! ^ 0xff
    expect(index.matchRuntime(changed)).toBeUndefined()
    expect(index.matchRuntime(deployed.Vault!.code.subarray(0, deployed.Vault!.code.length - 1))).toBeUndefined()
    expect(createSourceIndex([]).empty).toBe(true)
    expect(createSourceIndex([]).matchRuntime(deployed.Vault!.code)).toBeUndefined()
  })

  it('hashes the blanked code: the answer of registration is keccak-256 of it', () => {
    const vault = byName('Vault')
    const blanked = blankedCode(vault.runtime, 'runtime')
    expect(blankedHash(blanked)).toBe(vault.runtimeCodeHash)
    const tail = blanked.bytes.length - 2
    const metadataLength = (blanked.bytes[tail]! << 8) | blanked.bytes[tail + 1]!
    expect(blanked.bytes.subarray(tail - metadataLength, tail).every((b) => b === 0)).toBe(true)
  })
})
