/**
 * Upstream round trips of a cold /simulate of a two-hop swap whose tokens keep their symbol in
 * storage (as OpenZeppelin's ERC-20 does), on a block nothing has read, against a real Anvil
 * behind a counting proxy: the block and the calls' hints in one batch, then the state they name
 * with the tokens' metadata for the log summaries (`symbol()`/`decimals()` of every contract whose
 * storage the hints name, engine/operations/simulation/tokenSideReads.ts) in a second — not one more round
 * trip after the run, nor one per token. Every other door into a run (traces of calls, access
 * lists, eth_call, eth_estimateGas, eth_simulateV1 with its blocks' system calls) costs the same 2.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeDeployData, encodeFunctionData, type Abi, type Address, type Hex } from 'viem'
import { createMemoryCacheStore } from '../../../../host/cache/memoryCacheStore.js'
import { createEngine, type Engine } from '../../../../engine/index.js'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../../../support/anvil.js'
import { compile } from '../../../support/solc.js'
import { startCountingProxy, type CountingProxy } from '../../../support/countingProxy.js'
import { ON_CHAIN } from '../../../../engine/types.js'

const SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Token {
    string private _symbol; uint8 private _decimals;
    mapping(address => uint256) public balanceOf;
    event Transfer(address indexed from, address indexed to, uint256 value);
    constructor(string memory s, uint8 d, uint256 supply) { _symbol = s; _decimals = d; balanceOf[msg.sender] = supply; }
    function symbol() external view returns (string memory) { return _symbol; }
    function decimals() external view returns (uint8) { return _decimals; }
    function transfer(address to, uint256 v) external returns (bool) {
        balanceOf[msg.sender] -= v; balanceOf[to] += v; emit Transfer(msg.sender, to, v); return true;
    }
}
contract Pool {
    Token public b; uint256 public reserve;
    constructor(Token b_) { b = b_; }
    function swap(address to, uint256 v) external returns (uint256 out) { reserve += v; out = v * 997 / 1000; b.transfer(to, out); }
}
contract Router {
    function route(Pool p1, Pool p2, address to, uint256 v) external returns (uint256) {
        uint256 mid = p1.swap(address(p2), v);
        return p2.swap(to, mid);
    }
}`

const [A, B] = DEV_ACCOUNTS as unknown as [Address, Address]

describe.runIf(requireAnvil())('cold two-hop swap', () => {
  let anvil: AnvilInstance
  let proxy: CountingProxy
  let engine: Engine
  let router: Address
  let pools: Address[] = []
  let routeAbi: Abi

  const deploy = async (abi: Abi, bytecode: Hex, args: unknown[]): Promise<Address> => {
    const hash = await anvil.rpc<Hex>('eth_sendTransaction', [{ from: A, data: encodeDeployData({ abi, bytecode, args }), gas: '0x2dc6c0' }])
    for (let i = 0; i < 200; i++) {
      const r = await anvil.rpc<{ contractAddress: Address } | null>('eth_getTransactionReceipt', [hash])
      if (r) return r.contractAddress.toLowerCase() as Address
      await new Promise((res) => setTimeout(res, 25))
    }
    throw new Error('no receipt')
  }

  beforeAll(async () => {
    anvil = await startAnvil()
    const c = compile({ 'Swap.sol': SOURCE })
    const tokens = [
      await deploy(c.Token!.abi, c.Token!.bytecode, ['MID', 6, 10n ** 30n]),
      await deploy(c.Token!.abi, c.Token!.bytecode, ['OUT', 18, 10n ** 30n]),
    ]
    pools = [await deploy(c.Pool!.abi, c.Pool!.bytecode, [tokens[0]]), await deploy(c.Pool!.abi, c.Pool!.bytecode, [tokens[1]])]
    // fund the pools with the token each pays out
    for (const [i, pool] of pools.entries()) {
      await anvil.rpc('eth_sendTransaction', [
        { from: A, to: tokens[i], data: encodeFunctionData({ abi: c.Token!.abi, functionName: 'transfer', args: [pool, 10n ** 27n] }) },
      ])
    }
    router = await deploy(c.Router!.abi, c.Router!.bytecode, [])
    proxy = await startCountingProxy(anvil.url)
    engine = await createEngine({
      rpcUrl: proxy.url,
      cache: createMemoryCacheStore(),
      gasCap: 30_000_000n,
      rpcTimeoutMs: 5_000,
      maxStructLogSteps: 100_000,
      simulationTtlSeconds: 60,
    })
    routeAbi = c.Router!.abi
  })
  afterAll(async () => {
    await engine?.close()
    await proxy?.close()
    await anvil?.stop()
  })

  it("costs 2 round trips on a new block: block + hints, then the state with every token's metadata", async () => {
    await anvil.rpc('evm_mine')
    const block = BigInt(await anvil.rpc<Hex>('eth_blockNumber'))
    const data = encodeFunctionData({ abi: routeAbi, functionName: 'route', args: [pools[0], pools[1], B, 10n ** 18n] })
    proxy.reset()
    const r = await engine.simulate(ON_CHAIN, {
      calls: [{ from: A, to: router, data }],
      block: { number: block },
      validation: false,
      traceAssetChanges: false,
      traceTransfers: false,
    })
    expect(r.status).toBe('success')
    const summaries = r.calls[0]!.logs.map((l) => l.decoded?.summary)
    expect(summaries.join(' | ')).toMatch(/MID/)
    expect(summaries.join(' | ')).toMatch(/OUT/)
    expect(proxy.requests(), JSON.stringify(proxy.counts())).toBeLessThanOrEqual(2)
  })
  it('a route already run, at latest on a block mined since: 2 round trips (the hints of the block before name the state)', async () => {
    // per-request resolution of latest: the new head is only learned from the upstream
    const perRequest = await createEngine({
      rpcUrl: proxy.url,
      cache: createMemoryCacheStore(),
      gasCap: 30_000_000n,
      rpcTimeoutMs: 5_000,
      maxStructLogSteps: 1_000,
      simulationTtlSeconds: 60,
      headMaxAgeMs: 0,
    })
    try {
      const data = encodeFunctionData({ abi: routeAbi, functionName: 'route', args: [pools[0], pools[1], B, 3n * 10n ** 17n] })
      const run = () =>
        perRequest.simulate(ON_CHAIN, {
          calls: [{ from: A, to: router, data }],
          block: { tag: 'latest' },
          validation: false,
          traceAssetChanges: false,
          traceTransfers: false,
        })
      await run()
      await anvil.rpc('evm_mine')
      proxy.reset()
      const r = await run()
      expect(r.status).toBe('success')
      expect(BigInt(r.blockNumber)).toBe(BigInt(await anvil.rpc<Hex>('eth_blockNumber')))
      expect(r.calls[0]!.logs.map((l) => l.decoded?.summary).join(' | ')).toMatch(/OUT/)
      expect(proxy.requests(), JSON.stringify(proxy.counts())).toBeLessThanOrEqual(2)
    } finally {
      await perRequest.close()
    }
  })

  it('a new route at latest asked anew, on a block whose state and token metadata are kept: 1 round trip, no metadata asked again', async () => {
    const perRequest = await createEngine({
      rpcUrl: proxy.url,
      cache: createMemoryCacheStore(),
      gasCap: 30_000_000n,
      rpcTimeoutMs: 5_000,
      maxStructLogSteps: 1_000,
      simulationTtlSeconds: 60,
      headMaxAgeMs: 0,
    })
    try {
      const run = (amount: bigint) =>
        perRequest.simulate(ON_CHAIN, {
          calls: [{ from: A, to: router, data: encodeFunctionData({ abi: routeAbi, functionName: 'route', args: [pools[0], pools[1], B, amount] }) }],
          block: { tag: 'latest' },
          validation: false,
          traceAssetChanges: false,
          traceTransfers: false,
        })
      await anvil.rpc('evm_mine')
      await run(4n * 10n ** 17n)
      proxy.reset()
      // another amount: its hint is not cached, so `latest` and the hint leave together; the state
      // and both tokens' metadata at that block are kept, so nothing else leaves
      const r = await run(5n * 10n ** 17n)
      expect(r.status).toBe('success')
      const summaries = r.calls[0]!.logs.map((l) => l.decoded?.summary).join(' | ')
      expect(summaries).toMatch(/MID/)
      expect(summaries).toMatch(/OUT/)
      expect(proxy.counts().eth_call ?? 0, JSON.stringify(proxy.counts())).toBe(0)
      expect(proxy.requests(), JSON.stringify(proxy.counts())).toBe(1)
    } finally {
      await perRequest.close()
    }
  })

  // the other doors into a run, each on a block of its own that nothing has read: the same
  // 2 round trips (block + hints, then the state), whatever the operation does with the run
  const operations: [string, (e: Engine, call: { from: Address; to: Address; data: Hex }, block: bigint) => Promise<unknown>][] = [
    ['traceCall (callTracer)', (e, call, block) => e.traceCall(ON_CHAIN, { call, block: { number: block }, tracerConfig: { callTracer: {} } })],
    ['traceCall (prestateTracer)', (e, call, block) => e.traceCall(ON_CHAIN, { call, block: { number: block }, tracerConfig: { prestateTracer: {} } })],
    [
      'traceCall (struct logger)',
      (e, call, block) => e.traceCall(ON_CHAIN, { call, block: { number: block }, tracerConfig: { structLogger: { disableMemory: true } } }),
    ],
    [
      'traceCallMany',
      (e, call, block) => e.traceCallMany(ON_CHAIN, { bundles: [{ transactions: [call] }], block: { number: block }, tracerConfig: { callTracer: {} } }),
    ],
    ['accessList', (e, call, block) => e.accessList(ON_CHAIN, { call, block: { number: block } })],
    ['call (eth_call)', (e, call, block) => e.call(ON_CHAIN, { call, block: { number: block } })],
    ['estimateGas', (e, call, block) => e.estimateGas(ON_CHAIN, { call, block: { number: block } })],
    [
      'simulateV1',
      (e, call, block) =>
        e.simulateV1(ON_CHAIN, {
          blockStateCalls: [{ calls: [call] }],
          block: { number: block },
          traceTransfers: false,
          validation: false,
          returnFullTransactions: false,
        }),
    ],
  ]
  it.each(operations)('%s of a new route on a new block: 2 round trips', async (_name, op) => {
    await anvil.rpc('evm_mine')
    const block = BigInt(await anvil.rpc<Hex>('eth_blockNumber'))
    // an amount no run asked before, so no hint of the route is cached either
    const data = encodeFunctionData({ abi: routeAbi, functionName: 'route', args: [pools[0], pools[1], B, BigInt(Date.now())] })
    proxy.reset()
    await op(engine, { from: A, to: router, data }, block)
    expect(proxy.requests(), JSON.stringify(proxy.counts())).toBeLessThanOrEqual(2)
  })
})
