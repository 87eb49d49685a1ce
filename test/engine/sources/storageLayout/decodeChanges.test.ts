import { type Abi, type Hex, encodeAbiParameters, getAddress, hexToBytes, keccak256, toHex } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { contractsOfBuildInfo } from '../../../../engine/sources/buildInfo.js'
import { createAddressFromString } from '@ethereumjs/util'
import { contractLayoutOf, decodeChanges, EIP1967_SLOTS, Preimages, type DecodedChange } from '../../../../engine/sources/storageLayout/index.js'
import type { ContractSource } from '../../../../engine/sources/types.js'
import { compileStandard } from '../../../support/solcStandard.js'
import { type Chain, inProcessChain } from '../deploy.js'
import { STORAGE_CORPUS } from './corpus.js'
import { observeCall } from './recordRun.js'

let chain: Chain
let sources: Record<string, ContractSource>
let shapes: Hex
const ALICE = getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8')
const BOB = getAddress('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266')

beforeAll(async () => {
  const pair = compileStandard({ 'Corpus.sol': STORAGE_CORPUS })
  sources = Object.fromEntries(contractsOfBuildInfo(pair).map((c) => [c.name, c]))
  chain = await inProcessChain()
  shapes = (await chain.create(sources.Shapes.creation.object as Hex)).address
})

const abiOf = (name: string) => sources[name].abi as Abi

/** runs the call on Shapes and decodes what it changed */
async function decoded(functionName: string, args: unknown[], contract = 'Shapes', at: Hex = shapes, to: Hex = at): Promise<DecodedChange[]> {
  const run = await observeCall(chain, at, to, abiOf(contract), functionName, args)
  return decodeChanges(contractLayoutOf(sources[contract]), run.changed, new Preimages(run.preimages), run.read)
}
const byVariable = (changes: DecodedChange[]) => Object.fromEntries(changes.map((c) => [c.variable, [c.before, c.after]]))
const get = (fn: string, args: unknown[] = [], contract = 'Shapes', at: Hex = shapes) => chain.call(at, abiOf(contract), fn, args)

describe('decodeChanges over solc storage layouts', () => {
  it('names value types in one packed slot, each alone, enums by member name, and values alone in their slots', async () => {
    const changes = await decoded('setValues', [7, true, 2, '0xdeadbeef', -5, ALICE, 10n ** 24n])
    expect(byVariable(changes)).toEqual({
      small: ['0', String(await get('small'))],
      paused: [false, await get('paused')],
      phase: ['Idle', 'Closed'],
      selector: ['0x00000000', await get('selector')],
      delta: ['0', String(await get('delta'))],
      owner: ['0x0000000000000000000000000000000000000000', await get('owner')],
      totalSupply: ['0', String(await get('totalSupply'))],
    })
    expect(changes.find((c) => c.variable === 'phase')?.type).toBe('enum Shapes.Phase')
    // a packed neighbour that did not change is not reported
    expect(byVariable(await decoded('setPaused', [false]))).toEqual({ paused: [true, false] })
  })

  it('reads a short string in its slot and a long one whole over its data slots', async () => {
    expect(byVariable(await decoded('setName', ['Token']))).toEqual({ name: ['', await get('name')] })
    const long = 'A name long enough to need several data slots: '.repeat(3)
    const changes = await decoded('setName', [long])
    expect(changes).toHaveLength(1)
    expect(changes[0]).toMatchObject({ variable: 'name', type: 'string', before: 'Token', after: long })
    expect(changes[0].slots.length).toBe(1 + Math.ceil(long.length / 32))
    const blob = toHex(new Uint8Array(70).map((_, i) => i))
    expect(byVariable(await decoded('setBlob', [blob]))).toEqual({ blob: ['0x', await get('blob')] })
  })

  it('names mapping keys found in the run’s keccak preimages, nested and string-keyed', async () => {
    expect(byVariable(await decoded('credit', [ALICE, 1000n]))).toEqual({ [`balances[${ALICE}]`]: ['0', '1000'] })
    expect(byVariable(await decoded('approve', [BOB, ALICE, 5n]))).toEqual({
      [`allowances[${BOB}][${ALICE}]`]: ['0', String(await get('allowances', [BOB, ALICE]))],
    })
    expect(byVariable(await decoded('setByName', ['gold', 9n]))).toEqual({ 'byName["gold"]': ['0', String(await get('byName', ['gold']))] })
  })

  it('names structs in mappings and arrays, dynamic arrays’ lengths and elements, packed static arrays', async () => {
    expect(byVariable(await decoded('open', [7n, 500n, ALICE, 42n]))).toEqual({
      'positions[7].liquidity': ['0', '500'],
      'positions[7].owner': ['0x0000000000000000000000000000000000000000', ALICE],
      'positions[7].active': [false, true],
      'positions[7].ticks.length': ['0', '1'],
      'positions[7].ticks[0]': ['0', String(await get('positionTick', [7n, 0n]))],
    })
    await decoded('enqueue', [1n, BOB])
    expect(byVariable(await decoded('enqueue', [3n, ALICE]))).toEqual({
      'queue.length': ['1', String(await get('queueLength'))],
      'queue[1].liquidity': ['0', '3'],
      'queue[1].owner': ['0x0000000000000000000000000000000000000000', ALICE],
    })
    expect(byVariable(await decoded('setPacked', [3n, 77n]))).toEqual({ 'packedArr[3]': ['0', String(await get('packedArr', [3n]))] })
    await decoded('pushNumber', [1n])
    expect(byVariable(await decoded('pushNumber', [2n]))).toEqual({ 'numbers.length': ['1', '2'], 'numbers[1]': ['0', String(await get('numbers', [1n]))] })
  })

  it('names an ERC-7201 namespace’s members after its struct, at the slot the namespace id gives', async () => {
    const at = (await chain.create(sources.Namespaced.creation.object as Hex)).address
    const changes = await decoded('bump', [ALICE, 3n], 'Namespaced', at)
    const root = BigInt(keccak256(encodeAbiParameters([{ type: 'uint256' }], [BigInt(keccak256(toHex('example.main'))) - 1n]))) & ~0xffn
    expect(byVariable(changes)).toEqual({
      'MainStorage.counter': ['0', String(await get('counter', [], 'Namespaced', at))],
      [`MainStorage.credits[${ALICE}]`]: ['0', String(await get('credits', [ALICE], 'Namespaced', at))],
    })
    expect(changes[0]).toMatchObject({ type: 'uint256', slots: [`0x${root.toString(16).padStart(64, '0')}`] })
    // packed members of the namespace, and its dynamic array
    expect(byVariable(await decoded('configure', [9n, true, BOB, 5n], 'Namespaced', at))).toEqual({
      'MainStorage.epoch': ['0', String(await get('epoch', [], 'Namespaced', at))],
      'MainStorage.open': [false, await get('open', [], 'Namespaced', at)],
      'MainStorage.admin': ['0x0000000000000000000000000000000000000000', await get('admin', [], 'Namespaced', at)],
      'MainStorage.list.length': ['0', '1'],
      'MainStorage.list[0]': ['0', String(await get('listAt', [0n], 'Namespaced', at))],
    })
  })

  it('leaves a slot the layout does not explain unnamed, with its raw words', async () => {
    const at = (await chain.create(sources.Namespaced.creation.object as Hex)).address
    const changes = await decoded('poke', [12345n, 1n], 'Namespaced', at)
    expect(changes).toEqual([
      { variable: null, type: null, slots: [toHex(12345n, { size: 32 })], before: `0x${'0'.repeat(64)}`, after: `0x${'0'.repeat(63)}1` },
    ])
  })

  it('names the EIP-1967 slots wherever they change, and decodes a proxy’s storage with its implementation’s layout', async () => {
    const impl = (await chain.create(sources.Implementation.creation.object as Hex)).address
    const ctorArg = encodeAbiParameters([{ type: 'address' }], [impl]).slice(2)
    const proxy = (await chain.create(`${sources.Proxy.creation.object}${ctorArg}` as Hex)).address
    const implementationSlot = BigInt(Object.keys(EIP1967_SLOTS)[0])
    const stored = async () =>
      BigInt(toHex(await chain.evm.stateManager.getStorage(createAddressFromString(proxy), hexToBytes(toHex(implementationSlot, { size: 32 })))))
    const afterDeploy = await decodeChanges(undefined, [implementationSlot], new Preimages([]), async (_s, when) => (when === 'before' ? 0n : stored()))
    expect(afterDeploy).toEqual([
      {
        variable: 'eip1967.implementation',
        type: 'address',
        slots: [toHex(implementationSlot, { size: 32 })],
        before: '0x0000000000000000000000000000000000000000',
        after: getAddress(impl),
      },
    ])
    const changes = await decoded('set', [99n], 'Implementation', proxy)
    expect(byVariable(changes)).toEqual({
      owner: ['0x0000000000000000000000000000000000000000', getAddress('0x00000000000000000000000000000000000000c0')],
      value: ['0', String(await get('value', [], 'Implementation', proxy))],
    })
  })
})
