/**
 * prestateTracer's diff with registered sources: `decoded` beside geth's `pre`/`post` names the
 * changed slots by variable (mapping keys from the run's own hashes, a long string whole, a
 * proxy's storage with its implementation's layout); without sources the answer has no `decoded`
 * and is the same JSON.
 */
import { type Abi, type Hex, encodeFunctionData, getAddress, toHex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDevnet, type Devnet } from '../../../../engine/chains/devnet/devnetChain.js'
import { createTraceService } from '../../../../engine/operations/trace/traceService.js'
import { createSourceRegistry } from '../../../../engine/sources/registry.js'
import { createMemoryCacheStore } from '../../../../host/cache/memoryCacheStore.js'
import { compileStandard, type StandardJsonPair } from '../../../support/solcStandard.js'
import { STORAGE_CORPUS } from '../../sources/storageLayout/corpus.js'

const SHAPES: Hex = '0x00000000000000000000000000000000000a11ce'
const PROXY: Hex = '0x0000000000000000000000000000000000000b0b'
const IMPL: Hex = '0x0000000000000000000000000000000000000111'
const FROM: Hex = '0x0000000000000000000000000000000000000001'
const ALICE = getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8')
const IMPLEMENTATION_SLOT: Hex = '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc'

const slotsOf = (change: unknown): string[] => (change as { slots: string[] }).slots

let devnet: Devnet
let pair: StandardJsonPair
const contract = (name: string) => pair.output.contracts['Corpus.sol']![name]
const runtime = (name: string) => `0x${contract(name).evm.deployedBytecode.object}` as Hex

beforeAll(async () => {
  devnet = await createDevnet()
  pair = compileStandard({ 'Corpus.sol': STORAGE_CORPUS })
})
afterAll(() => devnet?.close())

async function traced(withSources: boolean, to: Hex, abiOf: string, functionName: string, args: unknown[]) {
  const sources = createSourceRegistry({ cache: createMemoryCacheStore(), maxBytes: 2 ** 24 })
  if (withSources) await sources.register(pair)
  const service = createTraceService(devnet, { gasCap: 50_000_000n, maxStructLogSteps: 100_000, sources })
  const data = encodeFunctionData({ abi: contract(abiOf).abi as Abi, functionName, args })
  const result = await service.traceCall({
    call: { from: FROM, to, data },
    block: { tag: 'latest' },
    tracerConfig: { prestateTracer: { diffMode: true } },
    stateOverrides: {
      [SHAPES]: { code: runtime('Shapes') },
      [IMPL]: { code: runtime('Implementation') },
      [PROXY]: { code: runtime('Proxy'), stateDiff: { [IMPLEMENTATION_SLOT]: toHex(BigInt(IMPL), { size: 32 }) } },
    },
  })
  return result as unknown as { prestateTracer: { pre: object; post: object; decoded?: Record<string, unknown[]> } }
}

describe('prestateTracer diffMode with sources', () => {
  it('names a mapping entry by the key the run hashed, and stays geth’s JSON without sources', async () => {
    const withSources = await traced(true, SHAPES, 'Shapes', 'credit', [ALICE, 1000n])
    const without = await traced(false, SHAPES, 'Shapes', 'credit', [ALICE, 1000n])
    expect(without.prestateTracer).not.toHaveProperty('decoded')
    const { decoded, ...geth } = withSources.prestateTracer
    expect(JSON.stringify(geth)).toBe(JSON.stringify(without.prestateTracer))
    expect(decoded?.[SHAPES]).toEqual([{ variable: `balances[${ALICE}]`, type: 'uint256', slots: [expect.any(String)], before: '0', after: '1000' }])
    // the slot named is the one geth's diff reports
    const post = (without.prestateTracer.post as Record<string, { storage: Record<string, string> }>)[SHAPES]!.storage
    expect(Object.keys(post)).toEqual(slotsOf(decoded?.[SHAPES]?.[0]))
  })

  it('tells a long string whole, one change over its slots', async () => {
    const long = 'a string over several storage slots, told whole. '.repeat(2)
    const { decoded } = (await traced(true, SHAPES, 'Shapes', 'setName', [long])).prestateTracer
    expect(decoded?.[SHAPES]).toEqual([{ variable: 'name', type: 'string', slots: expect.any(Array), before: '', after: long }])
    expect(slotsOf(decoded?.[SHAPES]?.[0])).toHaveLength(1 + Math.ceil(long.length / 32))
  })

  it('decodes a proxy’s storage with the layout of the implementation its EIP-1967 slot names', async () => {
    const { decoded } = (await traced(true, PROXY, 'Implementation', 'set', [99n])).prestateTracer
    expect(decoded?.[PROXY]).toEqual([
      { variable: 'owner', type: 'address', slots: [toHex(0n, { size: 32 })], before: '0x0000000000000000000000000000000000000000', after: getAddress(FROM) },
      { variable: 'value', type: 'uint256', slots: [toHex(1n, { size: 32 })], before: '0', after: '99' },
    ])
  })
})
