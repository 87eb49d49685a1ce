/**
 * State overrides by variable name on the in-process devnet: each variable read back through the
 * contract's own getters, the same overrides written as slots by hand (slots computed here with
 * keccak-256, from solc's layout) giving the same answers, and bad names and values refused with
 * VALIDATION_ERROR naming them. /simulate's step trace tells its storage changes by variable.
 */
import { type Abi, type Hex, decodeFunctionResult, encodeAbiParameters, encodeFunctionData, getAddress, keccak256, toHex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDevnet, type Devnet } from '../../../engine/chains/devnet/devnetChain.js'
import { simulateSteps } from '../../../engine/operations/simulation/simulateSteps.js'
import { createTraceService } from '../../../engine/operations/trace/traceService.js'
import { createSourceRegistry, type SourceRegistry } from '../../../engine/sources/registry.js'
import type { StateOverrides } from '../../../engine/vocabulary.js'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { compileStandard, type StandardJsonPair } from '../../support/solcStandard.js'
import { STORAGE_CORPUS } from '../sources/storageLayout/corpus.js'

const SHAPES: Hex = '0x00000000000000000000000000000000000a11ce'
const FROM: Hex = '0x0000000000000000000000000000000000000001'
const ALICE = getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8')
const BOB = getAddress('0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc')
const LONG = 'a name long enough to spread over three storage slots of thirty-two bytes each'

let devnet: Devnet
let pair: StandardJsonPair
let sources: SourceRegistry
const shapes = () => pair.output.contracts['Corpus.sol']!.Shapes
const abi = () => shapes().abi as Abi
const code = () => `0x${shapes().evm.deployedBytecode.object}` as Hex
/** solc's own layout: the variable's slot and offset, for the slots written by hand */
const entry = (label: string) => (shapes().storageLayout.storage as { label: string; slot: string; offset: number }[]).find((e) => e.label === label)!

beforeAll(async () => {
  devnet = await createDevnet()
  pair = compileStandard({ 'Corpus.sol': STORAGE_CORPUS })
  sources = createSourceRegistry({ cache: createMemoryCacheStore(), maxBytes: 2 ** 24 })
  await sources.register(pair)
})
afterAll(() => devnet?.close())

const service = (withSources = true) => createTraceService(devnet, { gasCap: 50_000_000n, maxStructLogSteps: 100_000, ...(withSources && { sources }) })

/** the getter's answer on the overridden state */
async function get(overrides: StateOverrides, functionName: string, args: unknown[] = [], withSources = true): Promise<unknown> {
  const data = encodeFunctionData({ abi: abi(), functionName, args })
  const result = (await service(withSources).traceCall({
    call: { from: FROM, to: SHAPES, data },
    block: { tag: 'latest' },
    tracerConfig: { callTracer: {} },
    stateOverrides: overrides,
  })) as unknown as {
    callTracer: { output: Hex }
  }
  return decodeFunctionResult({ abi: abi(), functionName, data: result.callTracer.output })
}

const named = (variables: Record<string, unknown>): StateOverrides => ({ [SHAPES]: { code: code(), variables } })
const word = (n: bigint) => toHex(n, { size: 32 })
const mappingSlot = (key: Hex, slot: bigint) => keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [key, slot]))

describe('variables by name', () => {
  it('sets value types, packed neighbours, mappings, structs, arrays and a long string, read back by the getters', async () => {
    const variables = {
      [`balances[${ALICE}]`]: '1000000',
      [`allowances[${ALICE}][${BOB}]`]: '0x2a',
      owner: BOB,
      paused: true,
      small: 7,
      phase: 'Closed',
      selector: '0x12345678',
      delta: '-5',
      name: LONG,
      'positions[7].liquidity': '9',
      'packedArr[3]': '77',
    }
    const o = named(variables)
    expect(await get(o, 'balances', [ALICE])).toBe(1000000n)
    expect(await get(o, 'allowances', [ALICE, BOB])).toBe(42n)
    expect([await get(o, 'owner'), await get(o, 'paused'), await get(o, 'small'), await get(o, 'phase')]).toEqual([BOB, true, 7, 2])
    expect([await get(o, 'selector'), await get(o, 'delta'), await get(o, 'name')]).toEqual(['0x12345678', -5, LONG])
    expect(((await get(o, 'positions', [7n])) as unknown[])[0]).toBe(9n)
    expect([await get(o, 'packedArr', [3n]), await get(o, 'packedArr', [2n])]).toEqual([77n, 0n])
  })

  it('gives what the same overrides written as slots by hand give', async () => {
    const packed = BigInt(entry('paused').slot)
    expect(entry('owner').slot).toBe(entry('paused').slot)
    const byHand = (1n << BigInt(entry('paused').offset * 8)) | (BigInt(BOB) << BigInt(entry('owner').offset * 8))
    const nameSlot = BigInt(entry('name').slot)
    const data = Buffer.from(LONG.padEnd(96, '\0'))
    const start = BigInt(keccak256(word(nameSlot)))
    const stateDiff: Record<Hex, Hex> = {
      [mappingSlot(ALICE, BigInt(entry('balances').slot))]: word(1000000n),
      [word(packed)]: word(byHand),
      [word(nameSlot)]: word(BigInt(LONG.length * 2 + 1)),
    }
    for (let i = 0; i < 3; i++) stateDiff[word(start + BigInt(i))] = `0x${data.subarray(i * 32, i * 32 + 32).toString('hex')}`
    const bySlots: StateOverrides = { [SHAPES]: { code: code(), stateDiff } }
    const byName = named({ [`balances[${ALICE}]`]: '1000000', paused: true, owner: BOB, name: LONG })
    for (const [fn, args] of [
      ['balances', [ALICE]],
      ['paused', []],
      ['owner', []],
      ['small', []],
      ['name', []],
    ] as const) {
      expect(await get(byName, fn, [...args]), fn).toEqual(await get(bySlots, fn, [...args]))
    }
  })

  it('merges a packed variable with the slot as the slot overrides left it', async () => {
    const slot = word(BigInt(entry('small').slot))
    const o: StateOverrides = { [SHAPES]: { code: code(), stateDiff: { [slot]: word(5n) }, variables: { paused: true } } }
    expect([await get(o, 'small'), await get(o, 'paused')]).toEqual([5, true])
  })

  it.each([
    [{ balancez: '1' }, /"balancez".*no variable "balancez"/],
    [{ small: '256' }, /"small".*out of range for uint8/],
    [{ delta: 40000 }, /"delta".*out of range for int16/],
    [{ 'owner[1]': BOB }, /"owner\[1\]".*takes no key or index/],
    [{ 'balances[0x1234]': '1' }, /not an address/],
    [{ 'numbers[0]': '1' }, /past the array's length \(0\)/],
    [{ 'packedArr[5]': '1' }, /past the array's size \(5\)/],
    [{ 'positions[7]': '1' }, /not written whole/],
    [{ phase: 'Shut' }, /not a member of enum Shapes.Phase \(Idle, Open, Closed\)/],
    [{ paused: 'yes' }, /not a bool/],
    [{ selector: '0x1234' }, /exactly 4 bytes/],
  ])('refuses %j with VALIDATION_ERROR naming it', async (variables, message) => {
    await expect(get(named(variables), 'small')).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(message) })
  })

  it('refuses a path past 4096 characters and more than 1024 variables on one account', async () => {
    const long = named({ [`balances[${ALICE}]${'.x'.repeat(3000)}`]: '1' })
    await expect(get(long, 'small')).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/at most 4096 characters/) })
    const many = named(Object.fromEntries(Array.from({ length: 1025 }, (_, i) => [`v${i}`, '1'])))
    await expect(get(many, 'small')).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/at most 1024 variables/) })
  })

  it('refuses variables where no layout is known', async () => {
    await expect(get(named({ paused: true }), 'paused', [], false)).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringMatching(/no storage layout is known/),
    })
  })
})

describe("/simulate's step trace", () => {
  const steps = (withSources: boolean) =>
    simulateSteps(
      { chain: devnet, gasCap: 50_000_000n, maxStructLogSteps: 100_000, ...(withSources && { sources }) },
      {
        call: { from: FROM, to: SHAPES, data: encodeFunctionData({ abi: abi(), functionName: 'credit', args: [ALICE, 5n] }) },
        block: { tag: 'latest' },
        traceConfig: {},
        stateOverrides: named({ [`balances[${ALICE}]`]: '10' }),
      },
    )

  it('tells the storage changes by variable beside the slots', async () => {
    const { trace } = await steps(true)
    const slot = mappingSlot(ALICE, BigInt(entry('balances').slot))
    expect(trace.storageChanges[SHAPES]).toEqual({ [slot]: { before: word(10n), after: word(15n) } })
    expect(trace.decoded?.[SHAPES]).toEqual([{ variable: `balances[${ALICE}]`, type: 'uint256', slots: [slot], before: '10', after: '15' }])
  })

  it('has no decoded without sources', async () => {
    const withSources = await steps(true)
    const plain = await simulateSteps(
      { chain: devnet, gasCap: 50_000_000n, maxStructLogSteps: 100_000 },
      {
        call: { from: FROM, to: SHAPES, data: encodeFunctionData({ abi: abi(), functionName: 'credit', args: [ALICE, 5n] }) },
        block: { tag: 'latest' },
        traceConfig: {},
        stateOverrides: { [SHAPES]: { code: code(), stateDiff: { [mappingSlot(ALICE, BigInt(entry('balances').slot))]: word(10n) } } },
      },
    )
    expect(plain.trace).not.toHaveProperty('decoded')
    const { decoded: _, ...rest } = withSources.trace
    expect(JSON.stringify(rest)).toBe(JSON.stringify(plain.trace))
  })
})
