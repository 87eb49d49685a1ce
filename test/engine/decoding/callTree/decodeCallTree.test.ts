/**
 * The decoded call tree against real contracts on a real Anvil (the engine forks it): bundled
 * ABIs, a caller-supplied ABI, the signature database for an unknown contract, a selector
 * collision, a proxy and custom errors. Contracts are deployed by real transactions; the traced
 * calls never touch Anvil's chain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeFunctionData, parseAbi, parseEther, type Abi, type Address, type Hex } from 'viem'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../../../support/anvil.js'
import { createMemoryCacheStore } from '../../../../host/cache/memoryCacheStore.js'
import { createEngine } from '../../../../engine/index.js'
import type { Engine, TracerConfig } from '../../../../engine/types.js'
import type { DecodedCallFrame } from '../../../../engine/decoding/callTree/index.js'
import { contracts } from '../contracts.js'
import { chain } from '../anvilChain.js'
import { callTreeContracts } from './contracts.js'
import { ON_CHAIN } from '../../../../engine/types.js'

const [A, B] = DEV_ACCOUNTS as unknown as Address[]
const zoo = contracts()
const c = callTreeContracts()

let anvil: AnvilInstance | undefined
let engine: Engine | undefined
const addr: Record<string, Address> = {}

beforeAll(async () => {
  if (!requireAnvil()) return
  anvil = await startAnvil()
  const ch = chain(anvil)
  addr.token = await ch.deploy(A!, zoo.Token!, ['DEMO', 18, parseEther('1000000')])
  addr.vault = await ch.deploy(A!, c.Vault!)
  addr.impl = await ch.deploy(A!, c.Vault!)
  addr.proxy = await ch.deploy(A!, c.Proxy!, [addr.impl])
  addr.caller = await ch.deploy(A!, c.Caller!)
  engine = await createEngine({
    rpcUrl: anvil.url,
    cache: createMemoryCacheStore(),
    gasCap: 30_000_000n,
    rpcTimeoutMs: 10_000,
    maxStructLogSteps: 100_000,
    simulationTtlSeconds: 60,
  })
})
afterAll(async () => {
  await engine?.close()
  await anvil?.stop()
})

const data = (abi: Abi, functionName: string, args: unknown[] = []) => encodeFunctionData({ abi, functionName, args } as never)

async function trace(to: Address, input: Hex, tracerConfig: TracerConfig): Promise<DecodedCallFrame> {
  const result = await engine!.traceCall(ON_CHAIN, { call: { from: A!, to, data: input, gas: 1_000_000n }, block: { tag: 'latest' }, tracerConfig })
  return result.callTree as DecodedCallFrame
}

describe('decoded call tree (tracer callTree) on Anvil', () => {
  it('has a real Anvil and an engine', () => {
    expect(anvil, 'Anvil missing').toBeDefined()
    expect(engine).toBeDefined()
  })

  it('bundled ABIs: an ERC-20 transfer, its return value, its Transfer event and the token symbol as label', async () => {
    const tree = await trace(addr.token!, data(zoo.Token!.abi, 'transfer', [B, parseEther('1.5')]), { callTree: {} })
    expect(tree.function).toEqual({
      name: 'transfer',
      signature: 'transfer(address,uint256)',
      args: { to: B, value: parseEther('1.5').toString() },
      source: 'bundled',
    })
    expect(tree.result).toEqual({ 0: true })
    expect(tree.labels).toEqual({ to: 'DEMO' })
    expect(tree.logs![0]!.decoded).toEqual({
      name: 'Transfer',
      signature: 'Transfer(address,address,uint256)',
      args: { from: A, to: B, value: parseEther('1.5').toString() },
      source: 'bundled',
      summary: 'Transfer 1.5 DEMO from 0xf39f…2266 to 0x7099…79c8',
    })
  })

  it('keeps the geth frame as it is: callTracer beside callTree is unchanged, callTree alone runs no geth tracer', async () => {
    const input = data(zoo.Token!.abi, 'transfer', [B, 1n])
    const call = { from: A!, to: addr.token!, data: input, gas: 1_000_000n }
    const plain = await engine!.traceCall(ON_CHAIN, { call, block: { tag: 'latest' }, tracerConfig: { callTracer: { withLog: true } } })
    const both = await engine!.traceCall(ON_CHAIN, { call, block: { tag: 'latest' }, tracerConfig: { callTracer: { withLog: true }, callTree: {} } })
    expect(JSON.stringify(both.callTracer)).toBe(JSON.stringify(plain.callTracer))
    const alone = await engine!.traceCall(ON_CHAIN, { call, block: { tag: 'latest' }, tracerConfig: { callTree: {} } })
    expect(Object.keys(alone)).toEqual(['callTree'])
    // every geth key of the frame, in geth's order, before the decoded ones
    const gethKeys = Object.keys(plain.callTracer as object)
    expect(Object.keys(alone.callTree as object).slice(0, gethKeys.length)).toEqual(gethKeys)
  })

  it('a caller-supplied ABI: function, named return value, event with a string and a caller label', async () => {
    const input = data(c.Vault!.abi, 'stash', [5n, 'rent'])
    const tree = await trace(addr.vault!, input, { callTree: { abis: { [addr.vault!]: c.Vault!.abi }, labels: { [addr.vault!]: 'vault' } } })
    expect(tree.function).toEqual({ name: 'stash', signature: 'stash(uint256,string)', args: { amount: '5', memo: 'rent' }, source: 'abi' })
    expect(tree.result).toEqual({ total: '5' })
    expect(tree.labels).toEqual({ to: 'vault' })
    expect(tree.logs![0]!.decoded).toEqual({
      name: 'Stashed',
      signature: 'Stashed(address,uint256,string)',
      args: { who: A, amount: '5', memo: 'rent' },
      source: 'abi',
    })

    // without the ABI nothing knows stash(uint256,string) nor Stashed: no guess
    const bare = await trace(addr.vault!, input, { callTree: {} })
    expect(bare.function).toBeUndefined()
    expect(bare.result).toBeUndefined()
    expect(bare.logs![0]!.decoded).toBeUndefined()
  })

  it('the signature database names an unknown contract’s function and event (positional args)', async () => {
    const tree = await trace(addr.vault!, data(c.Vault!.abi, 'setTransferPrice', [7n]), { callTree: {} })
    expect(tree.function).toEqual({ name: 'setTransferPrice', signature: 'setTransferPrice(uint256)', args: { 0: '7' }, source: 'signatureDb' })
    expect(tree.logs![0]!.decoded).toEqual({
      name: 'PriceChanged',
      signature: 'PriceChanged(uint256,uint256)',
      args: { 0: '0', 1: '7' },
      source: 'signatureDb',
    })
  })

  it('a selector collision: the candidate whose arguments decode cleanly wins, the other is reported', async () => {
    const abis = { [addr.vault!]: parseAbi(['function collate_propagate_storage(bytes16 data)']) }
    // burn(1000): the word's low 16 bytes are not zero, so it is no clean bytes16
    const burn = await trace(addr.vault!, data(c.Vault!.abi, 'burn', [1000n]), { callTree: { abis } })
    expect(burn.function).toEqual({
      name: 'burn',
      signature: 'burn(uint256)',
      args: { 0: '1000' },
      source: 'signatureDb',
      alternatives: ['collate_propagate_storage(bytes16)'],
    })
    // a word that is a clean bytes16 (and a clean uint256): the caller's ABI comes first
    const word = `0x1234${'0'.repeat(60)}` as Hex
    const bytes16 = await trace(addr.vault!, `0x42966c68${word.slice(2)}`, { callTree: { abis } })
    expect(bytes16.function?.name).toBe('collate_propagate_storage')
    expect(bytes16.function?.args).toEqual({ data: `0x1234${'0'.repeat(28)}` })
    expect(bytes16.function?.source).toBe('abi')
  })

  it('a proxy: the CALL to the proxy and its DELEGATECALL are decoded with the implementation’s ABI', async () => {
    const tree = await trace(addr.proxy!, data(c.Vault!.abi, 'stash', [3n, 'via proxy']), { callTree: { abis: { [addr.impl!]: c.Vault!.abi } } })
    expect(tree.type).toBe('CALL')
    expect(tree.implementation).toBe(addr.impl)
    expect(tree.function).toMatchObject({ name: 'stash', args: { amount: '3', memo: 'via proxy' }, source: 'abi' })
    expect(tree.result).toEqual({ total: '3' })
    const inner = tree.calls![0]!
    expect(inner.type).toBe('DELEGATECALL')
    expect(inner.to).toBe(addr.impl)
    expect(inner.function).toMatchObject({ name: 'stash', source: 'abi' })
    // the event is emitted by the proxy's address with the implementation's code
    const log = inner.logs![0]!
    expect(log.address).toBe(addr.proxy)
    expect(log.decoded).toMatchObject({ name: 'Stashed', args: { who: A, amount: '3', memo: 'via proxy' }, source: 'abi' })
  })

  it('custom errors: decoded on the failing frame and on the frame it bubbles up through; Error(string) built in', async () => {
    const abis = { [addr.vault!]: c.Vault!.abi }
    const direct = await trace(addr.vault!, data(c.Vault!.abi, 'take', [10n]), { callTree: { abis } })
    expect(direct.error).toBe('execution reverted')
    expect(direct.revert).toEqual({
      name: 'Overdrawn',
      signature: 'Overdrawn(uint256,uint256)',
      args: { available: '0', wanted: '10' },
      source: 'abi',
      reason: 'Overdrawn(0, 10)',
    })

    const nested = await trace(addr.caller!, data(c.Caller!.abi, 'takeFrom', [addr.vault, 10n]), { callTree: { abis } })
    expect(nested.revert?.reason).toBe('Overdrawn(0, 10)') // Caller's own ABI was not given
    const inner = nested.calls![0] as DecodedCallFrame
    expect(inner.revert?.name).toBe('Overdrawn')
    expect(inner.function?.name).toBe('take')

    const plain = await trace(addr.caller!, data(c.Caller!.abi, 'fail'), { callTree: {} })
    expect(plain.revertReason).toBe('caller says no')
    expect(plain.revert).toEqual({
      name: 'Error',
      signature: 'Error(string)',
      args: { message: 'caller says no' },
      source: 'builtin',
      reason: 'caller says no',
    })
  })
})
