/**
 * A mined transaction's trace with sources from a Sourcify-compatible service (a test server
 * serving an APIv2 document of the devnet's DemoToken, made from its real solc output): the first
 * trace asks the service once and names the token's frame; a second trace asks nothing; the
 * service failing or hanging, the trace answers without the name and says why in `warnings`.
 * A block's trace asks the same way, for every transaction of the block at once.
 */
import { readFileSync } from 'node:fs'
import { bytesToHex, type Hex } from 'viem'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../../../engine/index.js'
import { ON_CHAIN, type DecodedCallFrame, type Engine } from '../../../../engine/types.js'
import { DEMO_TOKEN_ADDRESS } from '../../../../engine/chains/devnet/demoTransactions.js'
import { createMemoryCacheStore } from '../../../../host/cache/memoryCacheStore.js'
import type { StandardJsonPair } from '../../../support/solcStandard.js'
import { apiV2Document, type SourcifyServer, startSourcifyServer } from '../../../support/sourcifyServer.js'

const build = JSON.parse(readFileSync(new URL('../../../../scripts/demo-contracts/build-info.json', import.meta.url), 'utf8')) as StandardJsonPair
let server: SourcifyServer
let transfer: Hex
let chainId: number

const engineFor = (budgetMs = 2_000): Promise<Engine> =>
  createEngine({
    cache: createMemoryCacheStore(),
    gasCap: 50_000_000n,
    rpcTimeoutMs: budgetMs,
    maxStructLogSteps: 100_000,
    simulationTtlSeconds: 3600,
    sources: { sourcifyUrl: server.url, maxBytes: 2 ** 24 },
  })

const treeOf = async (engine: Engine): Promise<DecodedCallFrame> =>
  (await engine.traceTransaction(ON_CHAIN, transfer, { callTree: {} })).callTree as DecodedCallFrame

beforeAll(async () => {
  const probe = await createEngine({
    cache: createMemoryCacheStore(),
    gasCap: 50_000_000n,
    rpcTimeoutMs: 2_000,
    maxStructLogSteps: 1_000,
    simulationTtlSeconds: 60,
  })
  chainId = Number(await probe.readChain(ON_CHAIN, 'eth_chainId', []))
  // block 4: account 0 sends 1000 DEMO to account 1 (engine/chains/devnet/demoTransactions.ts)
  const block = (await probe.readChain(ON_CHAIN, 'eth_getBlockByNumber', ['0x4', false])) as { transactions: Hex[] }
  transfer = block.transactions[0]!
  const code = (await probe.readChain(ON_CHAIN, 'eth_getCode', [DEMO_TOKEN_ADDRESS, 'latest'])) as Hex
  await probe.close()
  const file = Object.keys(build.output.contracts).find((f) => build.output.contracts[f]!.DemoToken)!
  server = await startSourcifyServer({
    [`${chainId}:${DEMO_TOKEN_ADDRESS}`]: apiV2Document(build, file, 'DemoToken', chainId, DEMO_TOKEN_ADDRESS, { runtime: bytesToHex(hexBytes(code)) }),
  })
}, 60_000)
afterAll(() => server?.close())
afterEach(() => {
  server.mode = 'serve'
  server.requests.length = 0
})

const hexBytes = (h: Hex) => Uint8Array.from(Buffer.from(h.slice(2), 'hex'))

describe('a traced transaction with verified sources', () => {
  it('the first trace asks once and names the contract; a second asks nothing', async () => {
    const engine = await engineFor()
    const tree = await treeOf(engine)
    expect(tree.to).toBe(DEMO_TOKEN_ADDRESS)
    expect(tree.contract).toEqual({ name: 'DemoToken', file: expect.stringContaining('DemoToken.sol') })
    expect(tree.warnings).toBeUndefined()
    expect(server.requests.length).toBe(1)
    const again = await treeOf(engine)
    expect(again).toEqual(tree)
    expect(server.requests.length).toBe(1)
  })

  it('the service failing or hanging: the trace answers without the name, with a warning', async () => {
    for (const mode of ['fail', 'hang'] as const) {
      server.mode = mode
      const tree = await treeOf(await engineFor(1_000))
      expect(tree.to).toBe(DEMO_TOKEN_ADDRESS)
      expect(tree.contract).toBeUndefined()
      expect(tree.warnings?.length, mode).toBe(1)
      expect(tree.function?.name).toBe('transfer')
    }
  })

  it('a gas profile alone asks too: the contract by name, or by address with a warning when the service fails', async () => {
    const profileOf = async (engine: Engine) =>
      (await engine.traceTransaction(ON_CHAIN, transfer, { gasProfile: true })).gasProfile as { functions: { contract: string }[]; warnings?: string[] }
    const named = await profileOf(await engineFor())
    expect(named.functions[0]!.contract).toBe('DemoToken')
    expect(named.warnings).toBeUndefined()
    expect(server.requests.length).toBe(1)
    server.mode = 'fail'
    const unnamed = await profileOf(await engineFor(1_000))
    expect(unnamed.functions[0]!.contract).toBe(DEMO_TOKEN_ADDRESS)
    expect(unnamed.warnings?.length).toBe(1)
  })

  it("a block's trace asks once for the block's contracts and names the transaction; the service failing: a warning on each", async () => {
    const traceBlock = async (engine: Engine) =>
      (await engine.traceBlock(ON_CHAIN, { block: { number: 4n }, tracerConfig: { callTree: {} } })).map((e) =>
        'result' in e ? (e.result.callTree as DecodedCallFrame) : undefined,
      )
    const engine = await engineFor()
    const trees = await traceBlock(engine)
    expect(trees[0]?.contract).toEqual({ name: 'DemoToken', file: expect.stringContaining('DemoToken.sol') })
    expect(trees[0]?.warnings).toBeUndefined()
    expect(server.requests.length).toBe(1)
    expect(await traceBlock(engine)).toEqual(trees)
    expect(server.requests.length).toBe(1)
    server.mode = 'fail'
    const failed = await traceBlock(await engineFor(1_000))
    expect(failed[0]?.contract).toBeUndefined()
    expect(failed[0]?.warnings?.length).toBe(1)
  })
})
