/**
 * The fork chain's upstream behaviour against a real Anvil: round trips of a cold and a warm
 * simulation (the rpc client's request counter), and upstream trouble — a node that stalls,
 * answers garbage or is gone — ending as STATE_ACCESS_ERROR / BLOCK_NOT_FOUND within bounded time
 * and never naming the RPC URL (it may carry an API key).
 */
import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeDeployData, encodeFunctionData, type Address, type Hex } from 'viem'
import { createMemoryCacheStore } from '../../../../host/cache/memoryCacheStore.js'
import { createRpcChain, type RpcChain } from '../../../../engine/chains/remote/rpcChain.js'
import { EngineError } from '../../../../engine/platform/errors.js'
import { createEngine } from '../../../../engine/index.js'
import { simulate, type SimulationDeps } from '../../../../engine/operations/simulation/simulate.js'
import { createRpcClient } from '../../../../engine/upstream/rpcClient.js'
import type { SimulateParams } from '../../../../engine/types.js'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../../../support/anvil.js'
import { engineContracts } from '../../contracts.js'
import { ON_CHAIN } from '../../../../engine/types.js'

const [A, B] = DEV_ACCOUNTS as unknown as [Address, Address]
const z = engineContracts()
const SECRET = 'sk_live_do_not_leak'

type Mode = 'pass' | 'stall' | 'garbage' | 'down' | 'state-down'
let anvil: AnvilInstance | undefined
let proxy: Server | undefined
let proxyUrl = ''
let mode: Mode = 'pass'
let token: Address
let probe: Address

/** a switchable JSON-RPC proxy in front of Anvil: its URL carries a "key" like a provider's */
async function startProxy(upstream: string): Promise<void> {
  proxy = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    if (mode === 'stall') return // never answers
    // blocks answer, state reads (and the prefetch's eth_createAccessList) do not
    if (mode === 'state-down' && !/eth_getBlockByNumber|eth_chainId|eth_blockNumber/.test(Buffer.concat(chunks).toString())) return req.socket.destroy()
    if (mode === 'down') return req.socket.destroy()
    if (mode === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/json' })
      return res.end('{"jsonrpc":"2.0","id":1,"result":')
    }
    const up = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) })
    res.writeHead(up.status, { 'content-type': 'application/json' })
    res.end(Buffer.from(await up.arrayBuffer()))
  })
  await new Promise<void>((resolve) => proxy!.listen(0, '127.0.0.1', resolve))
  proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}/v2/${SECRET}`
}

beforeAll(async () => {
  if (!requireAnvil()) return
  anvil = await startAnvil()
  const hash = await anvil.rpc<Hex>('eth_sendTransaction', [
    { from: A, data: encodeDeployData({ abi: z.Token!.abi, bytecode: z.Token!.bytecode, args: [10n ** 24n] }), gas: '0x2dc6c0' },
  ])
  for (let i = 0; i < 200 && !token; i++) {
    const r = await anvil.rpc<{ contractAddress: Address } | null>('eth_getTransactionReceipt', [hash])
    if (r) token = r.contractAddress.toLowerCase() as Address
    else await new Promise((res) => setTimeout(res, 10))
  }
  // a second contract that moves tokens it holds: a cold run that reads two contracts
  const deployed = await anvil.rpc<Hex>('eth_sendTransaction', [{ from: A, data: z.Probe!.bytecode, gas: '0x2dc6c0' }])
  for (let i = 0; i < 200 && !probe; i++) {
    const r = await anvil.rpc<{ contractAddress: Address } | null>('eth_getTransactionReceipt', [deployed])
    if (r) probe = r.contractAddress.toLowerCase() as Address
    else await new Promise((res) => setTimeout(res, 10))
  }
  await anvil.rpc('eth_sendTransaction', [
    { from: A, to: token, data: encodeFunctionData({ abi: z.Token!.abi, functionName: 'transfer', args: [probe, 10n ** 20n] }) },
  ])
  await startProxy(anvil.url)
}, 60_000)
afterAll(async () => {
  await new Promise((r) => (proxy ? proxy.close(r) : r(undefined)))
  await anvil?.stop()
})

const transferCall = (amount: bigint) => ({
  from: A,
  to: token,
  data: encodeFunctionData({ abi: z.Token!.abi, functionName: 'transfer', args: [B, amount] }),
})
const params = (block: SimulateParams['block'], amount = 1n): SimulateParams => ({
  calls: [transferCall(amount)],
  block,
  validation: false,
  traceTransfers: false,
  traceAssetChanges: false,
})

function expectNoSecret(e: unknown) {
  const text = JSON.stringify({ message: (e as Error).message, details: (e as EngineError).details, suggestion: (e as EngineError).suggestion })
  expect(text).not.toContain(SECRET)
  expect(text).not.toContain(proxyUrl)
  expect(text).not.toContain('127.0.0.1')
}

describe('fork upstream', () => {
  it('has a real Anvil', () => expect(anvil, 'Anvil missing').toBeDefined())

  it('a cold token transfer costs at most 2 upstream round trips with prefetch, the same again 0', async () => {
    mode = 'pass'
    const rpc = createRpcClient({ url: anvil!.url, timeoutMs: 5_000 })
    const chain: RpcChain = await createRpcChain({ url: anvil!.url, timeoutMs: 5_000, cache: createMemoryCacheStore(), rpc })
    const deps: SimulationDeps = { chain, cache: createMemoryCacheStore(), gasCap: 30_000_000n, simulationTtlSeconds: 60 }
    const head = await chain.resolveBlock({ tag: 'latest' })
    const before = rpc.stats.httpRequests
    const cold = await simulate(deps, params({ number: head.number }))
    const coldTrips = rpc.stats.httpRequests - before
    expect(cold.status).toBe('success')
    expect(cold.calls[0]!.logs[0]!.decoded?.name).toBe('Transfer')
    expect(coldTrips).toBeLessThanOrEqual(2)
    expect(coldTrips).toBeGreaterThan(0)
    const warmStart = rpc.stats.httpRequests
    const warm = await simulate(deps, params({ number: head.number }))
    expect(rpc.stats.httpRequests - warmStart).toBe(0)
    expect({ ...warm, simulationId: '' }).toEqual({ ...cold, simulationId: '' })
    await chain.close()
  })

  it('at latest on a fresh fork, the block and the access-list hints share one batch: 2 round trips cold, 1 again (the tag)', async () => {
    mode = 'pass'
    const rpc = createRpcClient({ url: anvil!.url, timeoutMs: 5_000 })
    const chain: RpcChain = await createRpcChain({ url: anvil!.url, timeoutMs: 5_000, cache: createMemoryCacheStore(), rpc, headMaxAgeMs: 0 })
    const deps: SimulationDeps = { chain, cache: createMemoryCacheStore(), gasCap: 30_000_000n, simulationTtlSeconds: 60 }
    const twoContracts: SimulateParams = {
      ...params({ tag: 'latest' }),
      calls: [{ from: A, to: probe, data: encodeFunctionData({ abi: z.Probe!.abi, functionName: 'nested', args: [token, B, 5n] }) }],
    }
    // a transfer of more than the sender holds, on state the first call warmed: one round trip
    // (block and hint); were an unanswered hint asked again before the state batch, it would be 2
    const reverting = params({ tag: 'latest' }, 10n ** 30n)
    for (const p of [params({ tag: 'latest' }), twoContracts, reverting]) {
      const before = rpc.stats.httpRequests
      const cold = await simulate(deps, p)
      expect(cold.status).toBe(p === reverting ? 'reverted' : 'success')
      expect(rpc.stats.httpRequests - before).toBe(p === reverting ? 1 : 2)
      const again = rpc.stats.httpRequests
      const warm = await simulate(deps, p)
      // the block tag; for the reverting call, its hint again in the same batch (not cached empty)
      expect(rpc.stats.httpRequests - again).toBe(1)
      expect({ ...warm, simulationId: '' }).toEqual({ ...cold, simulationId: '' })
    }
    await chain.close()
  })

  it('concurrent requests for latest share one upstream call; a later one asks again', async () => {
    mode = 'pass'
    const rpc = createRpcClient({ url: anvil!.url, timeoutMs: 5_000 })
    const chain = await createRpcChain({ url: anvil!.url, timeoutMs: 5_000, cache: createMemoryCacheStore(), rpc, headMaxAgeMs: 0 })
    const before = rpc.stats.calls
    const heads = await Promise.all(Array.from({ length: 10 }, () => chain.resolveBlock({ tag: 'latest' })))
    expect(rpc.stats.calls - before).toBe(1)
    expect(new Set(heads.map((h) => h.hash)).size).toBe(1)
    await chain.resolveBlock({ tag: 'pending' })
    expect(rpc.stats.calls - before).toBe(2)
    await chain.close()
  })

  it('BLOCK_NOT_FOUND past the head', async () => {
    mode = 'pass'
    const engine = await createEngine({
      rpcUrl: proxyUrl,
      cache: createMemoryCacheStore(),
      gasCap: 30_000_000n,
      rpcTimeoutMs: 2_000,
      maxStructLogSteps: 1_000,
      simulationTtlSeconds: 60,
    })
    const head = BigInt(await anvil!.rpc<Hex>('eth_blockNumber'))
    const err = await engine.simulate(ON_CHAIN, params({ number: head + 1000n })).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(EngineError)
    expect((err as EngineError).code).toBe('BLOCK_NOT_FOUND')
    expectNoSecret(err)
    await engine.close()
  })

  it.each(['stall', 'garbage', 'down', 'state-down'] as const)(
    'an upstream that %s mid-request gives STATE_ACCESS_ERROR in bounded time, URL-free',
    async (trouble) => {
      mode = 'pass'
      const engine = await createEngine({
        rpcUrl: proxyUrl,
        cache: createMemoryCacheStore(),
        gasCap: 30_000_000n,
        rpcTimeoutMs: 300,
        maxStructLogSteps: 1_000,
        simulationTtlSeconds: 60,
      })
      mode = trouble
      const started = Date.now()
      const err = await engine.simulate(ON_CHAIN, params({ tag: 'latest' }, 3n)).catch((e: unknown) => e)
      expect(Date.now() - started).toBeLessThan(10_000)
      expect(err).toBeInstanceOf(EngineError)
      expect((err as EngineError).code).toBe('STATE_ACCESS_ERROR')
      expectNoSecret(err)
      // health asks eth_blockNumber, which state-down still answers
      expect((await engine.health(ON_CHAIN)).upstreamOk).toBe(trouble === 'state-down')
      mode = 'pass'
      expect((await engine.health(ON_CHAIN)).upstreamOk).toBe(true)
      await engine.close()
    },
  )

  it('an engine cannot start on an unreachable upstream: STATE_ACCESS_ERROR, URL-free', async () => {
    mode = 'down'
    const err = await createEngine({
      rpcUrl: proxyUrl,
      cache: createMemoryCacheStore(),
      gasCap: 30_000_000n,
      rpcTimeoutMs: 300,
      maxStructLogSteps: 1_000,
      simulationTtlSeconds: 60,
    }).catch((e: unknown) => e)
    mode = 'pass'
    expect((err as EngineError).code).toBe('STATE_ACCESS_ERROR')
    expectNoSecret(err)
  })

  it('a malformed or non-HTTP rpc_url is a VALIDATION_ERROR that does not echo it', async () => {
    for (const rpcUrl of [`not a url ${SECRET}`, `ws://127.0.0.1:1/${SECRET}`]) {
      const err = await createEngine({
        rpcUrl,
        cache: createMemoryCacheStore(),
        gasCap: 1n,
        rpcTimeoutMs: 300,
        maxStructLogSteps: 1,
        simulationTtlSeconds: 1,
      }).catch((e: unknown) => e)
      expect(err).toMatchObject({ code: 'VALIDATION_ERROR' })
      expectNoSecret(err)
    }
  })
})
