/**
 * A call's trace (/v1/trace/call, call-many, debug_traceCall) with sources from a
 * Sourcify-compatible service (a test server serving an APIv2 document of the devnet's DemoToken,
 * made from its real solc output): the first trace asks the service once and names the token's
 * frame, a failing one with the line it stopped at and the backtrace (the call runs once more with
 * the sources found); a second asks nothing; a run of calls asks once for a contract
 * they share; the service failing, the trace answers without the name and says why in `warnings`.
 * A simulation's `traceCalls` asks the same way, after its calls have run.
 */
import { readFileSync } from 'node:fs'
import { encodeFunctionData, parseAbi, type Hex } from 'viem'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../../../engine/index.js'
import { ON_CHAIN, type DecodedCallFrame, type Engine, type TracerConfig } from '../../../../engine/types.js'
import { DEMO_TOKEN_ADDRESS } from '../../../../engine/chains/devnet/demoTransactions.js'
import { createMemoryCacheStore } from '../../../../host/cache/memoryCacheStore.js'
import type { StandardJsonPair } from '../../../support/solcStandard.js'
import { apiV2Document, type SourcifyServer, startSourcifyServer } from '../../../support/sourcifyServer.js'

const build = JSON.parse(readFileSync(new URL('../../../../scripts/demo-contracts/build-info.json', import.meta.url), 'utf8')) as StandardJsonPair
const ACCOUNT0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const ACCOUNT1 = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const transfer = (value: bigint) => ({
  from: ACCOUNT0 as Hex,
  to: DEMO_TOKEN_ADDRESS as Hex,
  data: encodeFunctionData({ abi: parseAbi(['function transfer(address,uint256) returns (bool)']), args: [ACCOUNT1, value] }),
})
let server: SourcifyServer

const engineFor = (budgetMs = 2_000): Promise<Engine> =>
  createEngine({
    cache: createMemoryCacheStore(),
    gasCap: 50_000_000n,
    rpcTimeoutMs: budgetMs,
    maxStructLogSteps: 100_000,
    simulationTtlSeconds: 3600,
    sources: { sourcifyUrl: server.url, maxBytes: 2 ** 24 },
  })

const INTERNAL: TracerConfig = { callTree: { internal: true } }
const callTree = async (engine: Engine, value: bigint, tracerConfig = INTERNAL) =>
  (await engine.traceCall(ON_CHAIN, { call: transfer(value), block: { tag: 'latest' }, tracerConfig })).callTree as DecodedCallFrame | undefined

beforeAll(async () => {
  const probe = await createEngine({
    cache: createMemoryCacheStore(),
    gasCap: 50_000_000n,
    rpcTimeoutMs: 2_000,
    maxStructLogSteps: 1_000,
    simulationTtlSeconds: 60,
  })
  const chainId = Number(await probe.readChain(ON_CHAIN, 'eth_chainId', []))
  const code = (await probe.readChain(ON_CHAIN, 'eth_getCode', [DEMO_TOKEN_ADDRESS, 'latest'])) as Hex
  await probe.close()
  const file = Object.keys(build.output.contracts).find((f) => build.output.contracts[f]!.DemoToken)!
  server = await startSourcifyServer({
    [`${chainId}:${DEMO_TOKEN_ADDRESS}`]: apiV2Document(build, file, 'DemoToken', chainId, DEMO_TOKEN_ADDRESS, { runtime: code }),
  })
}, 60_000)
afterAll(() => server?.close())
afterEach(() => {
  server.mode = 'serve'
  server.requests.length = 0
})

describe('a traced call with verified sources', () => {
  it('the first trace asks once and names the contract; a second asks nothing', async () => {
    const engine = await engineFor()
    const tree = (await callTree(engine, 5n))!
    expect(tree.contract).toEqual({ name: 'DemoToken', file: expect.stringContaining('DemoToken.sol') })
    expect(tree.warnings).toBeUndefined()
    expect(server.requests.length).toBe(1)
    expect(await callTree(engine, 5n)).toEqual(tree)
    expect(server.requests.length).toBe(1)
    await engine.close()
  })

  it('a call that reverts gets the line it stopped at and the backtrace from the sources fetched for it', async () => {
    const engine = await engineFor()
    const tree = (await callTree(engine, 10n ** 40n))!
    expect(tree.revert?.name).toBe('InsufficientBalance')
    const source = readFileSync(new URL('../../../../scripts/demo-contracts/DemoToken.sol', import.meta.url), 'utf8').split('\n')
    expect(tree.source).toMatchObject({ file: expect.stringContaining('DemoToken.sol'), line: expect.any(Number), column: expect.any(Number) })
    expect(tree.source!.text).toBe(source[tree.source!.line - 1])
    expect(tree.backtrace).toEqual([
      { contract: 'DemoToken', function: 'transfer', file: tree.source!.file, line: tree.source!.line, column: tree.source!.column },
    ])
    expect(server.requests.length).toBe(1)
    await engine.close()
  })

  it('a run of calls asks once for the contract they share, and every call of the run is named', async () => {
    const engine = await engineFor()
    const [bundle] = await engine.traceCallMany(ON_CHAIN, {
      block: { tag: 'latest' },
      bundles: [{ transactions: [transfer(1n), transfer(2n)] }],
      tracerConfig: INTERNAL,
    })
    const trees = bundle!.map((r) => r.callTree as DecodedCallFrame)
    expect(trees.map((t) => t.contract?.name)).toEqual(['DemoToken', 'DemoToken'])
    expect(trees.map((t) => t.function?.args)).toEqual([
      { to: ACCOUNT1, value: '1' },
      { to: ACCOUNT1, value: '2' },
    ])
    expect(server.requests.length).toBe(1)
    await engine.close()
  })

  it('the service failing: the trace answers without the name, with a warning; a trace without a call tree asks nothing', async () => {
    server.mode = 'fail'
    const engine = await engineFor(1_000)
    const tree = (await callTree(engine, 5n))!
    expect(tree.contract).toBeUndefined()
    expect(tree.calls).toBeUndefined()
    expect(tree.function?.name).toBe('transfer')
    expect(tree.warnings?.length).toBe(1)
    const asked = server.requests.length
    expect(asked).toBeGreaterThan(0)
    const plain = await engine.traceCall(ON_CHAIN, { call: transfer(5n), block: { tag: 'latest' }, tracerConfig: { callTracer: {} } })
    expect(plain.callTracer).toBeDefined()
    expect(server.requests.length).toBe(asked)
    await engine.close()
  })
})

describe("a simulation's traceCalls with verified sources", () => {
  const simulate = (engine: Engine, values: bigint[], traceCalls = true) =>
    engine.simulate(ON_CHAIN, {
      calls: values.map(transfer),
      block: { tag: 'latest' },
      validation: false,
      traceAssetChanges: false,
      traceTransfers: false,
      traceCalls,
      callTree: { internal: true },
    })

  it('the first simulation asks once and names every call, a reverted one with its line and backtrace; a second asks nothing', async () => {
    const engine = await engineFor()
    const first = await simulate(engine, [5n, 10n ** 40n])
    const [ok, reverted] = first.calls.map((c) => c.callTree!)
    expect([ok!.contract?.name, reverted!.contract?.name]).toEqual(['DemoToken', 'DemoToken'])
    expect(reverted!.revert?.name).toBe('InsufficientBalance')
    expect(reverted!.backtrace).toEqual([
      { contract: 'DemoToken', function: 'transfer', file: reverted!.source!.file, line: reverted!.source!.line, column: reverted!.source!.column },
    ])
    expect(ok!.warnings).toBeUndefined()
    expect(server.requests.length).toBe(1)
    const second = await simulate(engine, [5n, 10n ** 40n])
    expect(second.calls.map((c) => c.callTree)).toEqual(first.calls.map((c) => c.callTree))
    expect(server.requests.length).toBe(1)
    await engine.close()
  })

  it('the service failing: the calls answer without the name, with a warning; a simulation without traceCalls asks nothing', async () => {
    server.mode = 'fail'
    const engine = await engineFor(1_000)
    const tree = (await simulate(engine, [5n])).calls[0]!.callTree!
    expect(tree.contract).toBeUndefined()
    expect(tree.function?.name).toBe('transfer')
    expect(tree.warnings?.length).toBe(1)
    const asked = server.requests.length
    expect(asked).toBeGreaterThan(0)
    const plain = await simulate(engine, [5n], false)
    expect(plain.calls[0]!.callTree).toBeUndefined()
    expect(server.requests.length).toBe(asked)
    await engine.close()
  })
})
