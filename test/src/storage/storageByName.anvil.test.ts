/**
 * Storage by name on a real Anvil, over HTTP: the storage corpus (every layout shape, compiled by
 * npm solc with storageLayout selected) deployed and driven by transactions; each transaction's
 * prestateTracer diff from POST /v1/trace/tx carries `decoded`, and every decoded change is checked
 * against what the chain says independently: the contract's public getters by eth_call at the
 * block before and at the transaction's block, and `cast storage` where no getter exists. Every
 * changed slot is named (unexplained slots counted: zero). Overrides by name on /simulate give
 * what the same slots written by hand give, a bad name is a 400 naming it, and the layout comes
 * from a Sourcify-compatible service alike.
 */
import { type Abi, type Address, type Hex, createPublicClient, encodeAbiParameters, encodeFunctionData, getAddress, http, keccak256, toHex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../../engine/index.js'
import { ON_CHAIN, type Engine } from '../../../engine/types.js'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { type AnvilInstance, requireAnvil, startAnvil } from '../../support/anvil.js'
import { cast, requireCast } from '../../support/cast.js'
import { compileStandard, type StandardJsonPair } from '../../support/solcStandard.js'
import { apiV2Document, type SourcifyServer, startSourcifyServer } from '../../support/sourcifyServer.js'
import { STORAGE_CORPUS } from '../../engine/sources/storageLayout/corpus.js'
import { post, startTestApp, type TestApp } from '../support/startTestApp.js'

const ready = requireAnvil() && requireCast()
const FROM = getAddress('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266')
const ALICE = getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8')
const BOB = getAddress('0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc')
const LONG = 'a name long enough to spread over three storage slots of thirty-two bytes each'
const PHASES = ['Idle', 'Open', 'Closed']

let anvil: AnvilInstance
let engine: Engine
let app: TestApp
let pair: StandardJsonPair
let client: ReturnType<typeof createPublicClient>
const at: Record<string, Address> = {}
const compiled = (name: string) => pair.output.contracts['Corpus.sol']![name]
const abiOf = (name: string) => compiled(name).abi as Abi

interface Decoded {
  variable: string | null
  type: string | null
  slots: Hex[]
  before: string | boolean | null
  after: string | boolean | null
}

async function send(to: Address | undefined, data: Hex): Promise<{ hash: Hex; block: bigint; created?: Address }> {
  const hash = await anvil.rpc<Hex>('eth_sendTransaction', [{ from: FROM, ...(to && { to }), data, gas: '0x989680' }])
  type Receipt = { blockNumber: Hex; contractAddress: Address | null; status: Hex }
  // Anvil mines at once, its receipt a moment later
  let receipt: Receipt | null = null
  for (let i = 0; i < 100 && !receipt; i++) {
    receipt = await anvil.rpc<Receipt | null>('eth_getTransactionReceipt', [hash])
    if (!receipt) await new Promise((r) => setTimeout(r, 20))
  }
  if (!receipt) throw new Error(`no receipt for ${hash}`)
  expect(receipt.status).toBe('0x1')
  return { hash, block: BigInt(receipt.blockNumber), ...(receipt.contractAddress && { created: getAddress(receipt.contractAddress) }) }
}
const deploy = async (name: string, args = '') => (await send(undefined, `0x${compiled(name).evm.bytecode.object}${args}` as Hex)).created!
const callData = (contract: string, fn: string, args: unknown[]) => encodeFunctionData({ abi: abiOf(contract), functionName: fn, args })

beforeAll(async () => {
  if (!ready) return
  anvil = await startAnvil()
  pair = compileStandard({ 'Corpus.sol': STORAGE_CORPUS })
  client = createPublicClient({ transport: http(anvil.url) })
  const cache = createMemoryCacheStore()
  engine = await createEngine({
    rpcUrl: anvil.url,
    cache,
    gasCap: 50_000_000n,
    rpcTimeoutMs: 10_000,
    maxStructLogSteps: 100_000,
    simulationTtlSeconds: 60,
    sources: { maxBytes: 2 ** 24 },
  })
  app = await startTestApp({ engine, cache })
  expect((await app.fetch('/v1/sources', post({ buildInfo: pair }))).status).toBe(201)
  at.Shapes = await deploy('Shapes')
  at.Namespaced = await deploy('Namespaced')
  at.Implementation = await deploy('Implementation')
}, 60_000)
afterAll(async () => {
  await app?.close()
  await engine?.close()
  await anvil?.stop()
})

type Check = (address: Address, block: bigint) => Promise<unknown>
/** a getter's answer at a block, as `decoded` writes values */
const getter =
  (contract: string, fn: string, args: unknown[] = [], pick?: number, show: (v: unknown) => unknown = String) =>
  async (address: Address, block: bigint) => {
    const v = await client.readContract({ address, abi: abiOf(contract), functionName: fn, args, blockNumber: block })
    return show(pick === undefined ? v : (v as unknown[])[pick])
  }
/** an array element's getter: before the element was pushed it reverts (out of bounds), and its storage is zero */
const element =
  (read: Check, zero: unknown = '0'): Check =>
  async (address, block) => {
    try {
      return await read(address, block)
    } catch (e) {
      if (!/reverted/.test(String(e))) throw e
      return zero
    }
  }
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000'
const same = (v: unknown) => v
/** a length with no getter: the raw word `cast storage` reads */
const stored = (slotOf: (address: Address) => bigint) => async (address: Address, block: bigint) =>
  String(BigInt(await cast(['storage', address, toHex(slotOf(address), { size: 32 }), '--block', String(block), '--rpc-url', anvil.url])))

const slotOfLabel = (label: string) =>
  BigInt((compiled('Shapes').storageLayout.storage as { label: string; slot: string }[]).find((e) => e.label === label)!.slot)
const mapped = (key: bigint, slot: bigint) => BigInt(keccak256(encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [key, slot])))
const namespaceRoot = BigInt(keccak256(encodeAbiParameters([{ type: 'uint256' }], [BigInt(keccak256(toHex('example.main'))) - 1n]))) & ~0xffn

/** each transaction of the corpus, and how each variable it changes is read back */
const CORPUS: { name: string; contract: string; target: () => Address; fn: string; args: unknown[]; checks: Record<string, Check> }[] = [
  {
    name: 'value types packed in one slot',
    contract: 'Shapes',
    target: () => at.Shapes!,
    fn: 'setValues',
    args: [7, true, 2, '0xdeadbeef', -5, ALICE, 10n ** 24n],
    checks: {
      small: getter('Shapes', 'small'),
      paused: getter('Shapes', 'paused', [], undefined, same),
      phase: getter('Shapes', 'phase', [], undefined, (v) => PHASES[Number(v)]),
      selector: getter('Shapes', 'selector', [], undefined, same),
      delta: getter('Shapes', 'delta'),
      owner: getter('Shapes', 'owner', [], undefined, same),
      totalSupply: getter('Shapes', 'totalSupply'),
    },
  },
  {
    name: 'a long string',
    contract: 'Shapes',
    target: () => at.Shapes!,
    fn: 'setName',
    args: [LONG],
    checks: { name: getter('Shapes', 'name', [], undefined, same) },
  },
  {
    name: 'bytes',
    contract: 'Shapes',
    target: () => at.Shapes!,
    fn: 'setBlob',
    args: [toHex(new Uint8Array(70).map((_, i) => i))],
    checks: { blob: getter('Shapes', 'blob', [], undefined, same) },
  },
  {
    name: 'a mapping',
    contract: 'Shapes',
    target: () => at.Shapes!,
    fn: 'credit',
    args: [ALICE, 1000n],
    checks: { [`balances[${ALICE}]`]: getter('Shapes', 'balances', [ALICE]) },
  },
  {
    name: 'a nested mapping',
    contract: 'Shapes',
    target: () => at.Shapes!,
    fn: 'approve',
    args: [ALICE, BOB, 5n],
    checks: { [`allowances[${ALICE}][${BOB}]`]: getter('Shapes', 'allowances', [ALICE, BOB]) },
  },
  {
    name: 'a struct in a mapping, with a dynamic array in it',
    contract: 'Shapes',
    target: () => at.Shapes!,
    fn: 'open',
    args: [7n, 3n, BOB, 99n],
    checks: {
      'positions[7].liquidity': getter('Shapes', 'positions', [7n], 0),
      'positions[7].owner': getter('Shapes', 'positions', [7n], 1, same),
      'positions[7].active': getter('Shapes', 'positions', [7n], 2, same),
      // Position: liquidity in slot 0, owner and active packed in slot 1, ticks' length in slot 2
      'positions[7].ticks.length': stored(() => mapped(7n, slotOfLabel('positions')) + 2n),
      'positions[7].ticks[0]': element(getter('Shapes', 'positionTick', [7n, 0n])),
    },
  },
  {
    name: 'a struct in a dynamic array',
    contract: 'Shapes',
    target: () => at.Shapes!,
    fn: 'enqueue',
    args: [4n, ALICE],
    checks: {
      'queue.length': getter('Shapes', 'queueLength'),
      'queue[0].liquidity': element(getter('Shapes', 'queue', [0n], 0)),
      'queue[0].owner': element(getter('Shapes', 'queue', [0n], 1, same), ZERO_ADDRESS),
    },
  },
  {
    name: 'a packed static array',
    contract: 'Shapes',
    target: () => at.Shapes!,
    fn: 'setPacked',
    args: [3n, 77n],
    checks: { 'packedArr[3]': getter('Shapes', 'packedArr', [3n]) },
  },
  {
    name: 'a dynamic array',
    contract: 'Shapes',
    target: () => at.Shapes!,
    fn: 'pushNumber',
    args: [5n],
    checks: { 'numbers.length': stored(() => slotOfLabel('numbers')), 'numbers[0]': element(getter('Shapes', 'numbers', [0n])) },
  },
  {
    name: 'a string key',
    contract: 'Shapes',
    target: () => at.Shapes!,
    fn: 'setByName',
    args: ['alice', 9n],
    checks: { 'byName["alice"]': getter('Shapes', 'byName', ['alice']) },
  },
  {
    name: 'an ERC-7201 namespace',
    contract: 'Namespaced',
    target: () => at.Namespaced!,
    fn: 'bump',
    args: [ALICE, 3n],
    checks: { 'MainStorage.counter': getter('Namespaced', 'counter'), [`MainStorage.credits[${ALICE}]`]: getter('Namespaced', 'credits', [ALICE]) },
  },
  {
    name: 'packed members of an ERC-7201 namespace',
    contract: 'Namespaced',
    target: () => at.Namespaced!,
    fn: 'configure',
    args: [9n, true, BOB, 5n],
    checks: {
      'MainStorage.epoch': getter('Namespaced', 'epoch'),
      'MainStorage.open': getter('Namespaced', 'open', [], undefined, same),
      'MainStorage.admin': getter('Namespaced', 'admin', [], undefined, same),
      // MainStorage: counter, credits, then epoch, open and admin packed in one slot, list's length next
      'MainStorage.list.length': stored(() => namespaceRoot + 3n),
      'MainStorage.list[0]': element(getter('Namespaced', 'listAt', [0n])),
    },
  },
  {
    name: 'an EIP-1967 proxy over its implementation',
    contract: 'Implementation',
    target: () => at.Proxy!,
    fn: 'set',
    args: [99n],
    checks: { owner: getter('Implementation', 'owner', [], undefined, same), value: getter('Implementation', 'value') },
  },
]

const traced = async (hash: Hex) => {
  const res = await app.fetch('/v1/trace/tx', post({ transactionHash: hash, tracerConfig: { prestateTracer: { diffMode: true } } }))
  expect(res.status).toBe(200)
  return (await res.json()).data.prestateTracer as {
    pre: Record<Address, { storage?: object }>
    post: Record<Address, { storage?: object }>
    decoded?: Record<Address, Decoded[]>
  }
}

describe.skipIf(!ready)('storage by name on Anvil', () => {
  it('names and decodes every change of the corpus, each value as the chain reads it back', async () => {
    const deployment = await send(
      undefined,
      `0x${compiled('Proxy').evm.bytecode.object}${encodeAbiParameters([{ type: 'address' }], [at.Implementation!]).slice(2)}` as Hex,
    )
    at.Proxy = deployment.created!
    const proxyDiff = await traced(deployment.hash)
    expect(proxyDiff.decoded?.[at.Proxy!.toLowerCase() as Address] ?? proxyDiff.decoded?.[at.Proxy!]).toEqual([
      expect.objectContaining({ variable: 'eip1967.implementation', before: '0x0000000000000000000000000000000000000000', after: at.Implementation }),
    ])
    let unexplained = 0
    for (const tx of CORPUS) {
      const target = tx.target()
      const { hash, block } = await send(target, callData(tx.contract, tx.fn, tx.args))
      const diff = await traced(hash)
      const key = Object.keys(diff.decoded ?? {}).find((a) => a.toLowerCase() === target.toLowerCase()) as Address
      const changes = diff.decoded?.[key] ?? []
      unexplained += changes.filter((c) => c.variable === null).length
      expect(changes.map((c) => c.variable).sort(), tx.name).toEqual(Object.keys(tx.checks).sort())
      // every slot geth's diff reports is one a change names
      const slots = new Set([...Object.keys(diff.pre[key]?.storage ?? {}), ...Object.keys(diff.post[key]?.storage ?? {})])
      expect(new Set(changes.flatMap((c) => c.slots)), tx.name).toEqual(slots)
      for (const c of changes) {
        const check = tx.checks[c.variable!]!
        expect([c.before, c.after], `${tx.name}: ${c.variable}`).toEqual([await check(target, block - 1n), await check(target, block)])
      }
    }
    expect(unexplained).toBe(0)
  }, 60_000)
})

describe.skipIf(!ready)('overrides by name on /simulate', () => {
  const simulate = (stateOverrides: unknown[]) =>
    app.fetch(
      '/v1/simulate',
      post({ transaction: { from: FROM, to: at.Shapes, data: callData('Shapes', 'credit', [BOB, 1n]) }, blockNumber: 'latest', stateOverrides }),
    )

  it('gives what the same slots written by hand give, and tells the change by name', async () => {
    const slot = toHex(mapped(BigInt(BOB), slotOfLabel('balances')), { size: 32 })
    const packed = toHex(slotOfLabel('paused'), { size: 32 })
    const byName = await simulate([{ address: at.Shapes, variables: { [`balances[${BOB}]`]: '41', paused: false } }])
    expect(byName.status).toBe(200)
    const current = BigInt(await cast(['storage', at.Shapes!, packed, '--rpc-url', anvil.url]))
    // paused is byte 1 of its slot: cleared by hand, its neighbours kept
    const byHand = await simulate([{ address: at.Shapes, storage: { [slot]: '0x29', [packed]: toHex(current & ~(0xffn << 8n)) } }])
    const [named, hand] = [(await byName.json()).result.trace, (await byHand.json()).result.trace]
    expect(named.storageChanges).toEqual(hand.storageChanges)
    expect(named.decoded[at.Shapes!.toLowerCase()] ?? named.decoded[at.Shapes!]).toEqual([
      { variable: `balances[${BOB}]`, type: 'uint256', slots: [slot], before: '41', after: '42' },
    ])
    // on the chain paused is set (the corpus above): both overrides cleared it, and the call ran on that
    expect(await cast(['call', at.Shapes!, 'paused()(bool)', '--rpc-url', anvil.url])).toBe('true')
  })

  it('refuses a bad name or value with a 400 VALIDATION_ERROR naming it', async () => {
    for (const [variables, words] of [
      [{ balancez: '1' }, 'balancez'],
      [{ small: '300' }, 'out of range for uint8'],
      [{ [`balances[${BOB}].x`]: '1' }, 'has no member "x"'],
    ] as const) {
      const res = await simulate([{ address: at.Shapes, variables }])
      expect(res.status).toBe(400)
      const body = await res.json()
      expect(body.error.code).toBe('VALIDATION_ERROR')
      expect(body.error.message).toContain(words)
    }
  })

  it('finds the layout at a Sourcify-compatible service as from a registered build-info', async () => {
    const chainId = Number(await anvil.rpc<Hex>('eth_chainId'))
    const runtime = await anvil.rpc<Hex>('eth_getCode', [at.Shapes, 'latest'])
    const server: SourcifyServer = await startSourcifyServer({
      [`${chainId}:${at.Shapes!.toLowerCase()}`]: apiV2Document(pair, 'Corpus.sol', 'Shapes', chainId, at.Shapes!.toLowerCase(), { runtime }),
    })
    const verified = await createEngine({
      rpcUrl: anvil.url,
      cache: createMemoryCacheStore(),
      gasCap: 50_000_000n,
      rpcTimeoutMs: 10_000,
      maxStructLogSteps: 100_000,
      simulationTtlSeconds: 60,
      sources: { maxBytes: 2 ** 24, sourcifyUrl: server.url },
    })
    try {
      const result = await verified.simulateSteps(ON_CHAIN, {
        call: { from: FROM, to: at.Shapes!, data: callData('Shapes', 'balances', [BOB]) },
        block: { tag: 'latest' },
        traceConfig: {},
        stateOverrides: { [at.Shapes!.toLowerCase() as Address]: { variables: { [`balances[${BOB}]`]: '777' } } },
      })
      expect(BigInt(result.returnValue)).toBe(777n)
      expect(server.requests.length).toBeGreaterThan(0)
      const { hash, block } = await send(at.Shapes!, callData('Shapes', 'credit', [BOB, 3n]))
      const diff = (await verified.traceTransaction(ON_CHAIN, hash, { prestateTracer: { diffMode: true } })).prestateTracer as {
        decoded?: Record<string, Decoded[]>
      }
      const changes = Object.entries(diff.decoded ?? {}).find(([a]) => a.toLowerCase() === at.Shapes!.toLowerCase())?.[1]
      const read = getter('Shapes', 'balances', [BOB])
      expect(changes).toEqual([
        expect.objectContaining({ variable: `balances[${BOB}]`, before: await read(at.Shapes!, block - 1n), after: await read(at.Shapes!, block) }),
      ])
    } finally {
      await verified.close()
      await server.close()
    }
  })
})
