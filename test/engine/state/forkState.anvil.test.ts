/**
 * The fork state layer against a real upstream (Anvil): a transaction run through an ethereumjs
 * VM on OverlayStateManager(ForkStateSource at block N) must leave exactly the state Anvil leaves
 * when it mines the same transaction in block N+1, in at most 2 upstream round trips cold and 0
 * warm.
 */
import { createBlock } from '@ethereumjs/block'
import { Mainnet, createCustomCommon } from '@ethereumjs/common'
import { createLegacyTx } from '@ethereumjs/tx'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { createVM, runTx } from '@ethereumjs/vm'
import { encodeDeployData, encodeFunctionData, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { CacheStore } from '../../../engine/state/store/cacheStore.js'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { createRpcClient } from '../../../engine/upstream/rpcClient.js'
import { ForkCache, OverlayStateManager } from '../../../engine/state/index.js'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../../support/anvil.js'
import { compile, type CompiledContract } from '../../support/solc.js'

const SOURCE = `
pragma solidity ^0.8.20;
contract Token {
  mapping(address => uint256) public balanceOf;
  uint256 public totalSupply;
  event Transfer(address indexed from, address indexed to, uint256 value);
  constructor(uint256 supply) { balanceOf[msg.sender] = supply; totalSupply = supply; }
  function transfer(address to, uint256 amount) external returns (bool) {
    require(balanceOf[msg.sender] >= amount, "balance");
    balanceOf[msg.sender] -= amount;
    balanceOf[to] += amount;
    emit Transfer(msg.sender, to, amount);
    return true;
  }
}
contract Doomed {
  constructor(address payable to) payable { selfdestruct(to); }
}
contract Factory {
  uint256 public made;
  function make(bytes32 salt) external payable {
    new Doomed{salt: salt, value: msg.value}(payable(msg.sender));
    made += 1;
  }
}
contract Frames {
  uint256 public a;
  uint256 public b;
  mapping(uint256 => uint256) public m;
  function inner(uint256 x) external { b = x; m[x] = x; revert("no"); }
  function middle(uint256 x) external { m[x + 2] = 5; this.inner(x); }
  function outer(uint256 x) external {
    a = x;
    try this.inner(x) {} catch {}
    try this.middle(x) {} catch {}
    m[x + 1] = 7;
    b = 0;
  }
}`

const PK0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const FROM = DEV_ACCOUNTS[0] as Hex
const GAS_PRICE = 10_000_000_000n
const common = createCustomCommon({ chainId: 31337 }, Mainnet, { hardfork: 'prague' })

const hasAnvil = requireAnvil()
let anvil: AnvilInstance
let token: Hex
let frames: Hex
let artifacts: Record<string, CompiledContract>

async function mine(to: Hex | null, data: Hex, value = 0n): Promise<{ blockNumber: bigint; gasUsed: bigint; status: string; contractAddress?: Hex }> {
  const hash = await anvil.rpc<Hex>('eth_sendTransaction', [
    { from: FROM, ...(to ? { to } : {}), data, value: `0x${value.toString(16)}`, gas: '0x200000', gasPrice: `0x${GAS_PRICE.toString(16)}` },
  ])
  type Receipt = { blockNumber: Hex; gasUsed: Hex; status: Hex; contractAddress?: Hex }
  let r: Receipt | null = null
  // automine answers before the receipt is always queryable: wait for it (not a timing assertion)
  for (let i = 0; i < 200 && !r; i++) {
    r = await anvil.rpc<Receipt | null>('eth_getTransactionReceipt', [hash])
    if (!r) await new Promise((res) => setTimeout(res, 25))
  }
  if (!r) throw new Error(`no receipt for ${hash}`)
  return { blockNumber: BigInt(r.blockNumber), gasUsed: BigInt(r.gasUsed), status: r.status, contractAddress: r.contractAddress }
}

async function deploy(name: string, args: unknown[] = []): Promise<Hex> {
  const c = artifacts[name]!
  const r = await mine(null, encodeDeployData({ abi: c.abi, bytecode: c.bytecode, args }))
  return r.contractAddress!.toLowerCase() as Hex
}

/** runs `data` to `to` from FROM in the env of block `n + 1`, on the state after block `n` */
async function simulate(fork: ForkCache, n: bigint, to: Hex, data: Hex, opts: { prefetch: boolean; value?: bigint }) {
  const h = await anvil.rpc<{ timestamp: Hex; gasLimit: Hex; baseFeePerGas: Hex; miner: Hex; mixHash: Hex }>('eth_getBlockByNumber', [
    `0x${(n + 1n).toString(16)}`,
    false,
  ])
  const coinbase = h.miner.toLowerCase() as Hex
  if (opts.prefetch) await fork.prefetch(n, [{ from: FROM, to, data, value: opts.value }], { also: [{ address: coinbase, storageKeys: [] }] })
  const state = new OverlayStateManager(fork.at(n))
  const vm = await createVM({ common: common.copy(), stateManager: state })
  const block = createBlock(
    {
      header: {
        number: n + 1n,
        timestamp: BigInt(h.timestamp),
        gasLimit: BigInt(h.gasLimit),
        baseFeePerGas: BigInt(h.baseFeePerGas),
        coinbase,
        mixHash: h.mixHash,
      },
    },
    { common: vm.common },
  )
  const nonce = (await state.getAccount((await import('@ethereumjs/util')).createAddressFromString(FROM)))?.nonce ?? 0n
  const tx = createLegacyTx({ nonce, gasPrice: GAS_PRICE, gasLimit: 0x200000n, to, data, value: opts.value ?? 0n }, { common: vm.common }).sign(hexToBytes(PK0))
  const result = await runTx(vm, { tx, block })
  return { state, result }
}

/** every account and slot the simulation wrote equals Anvil's state after block n+1 */
async function expectSameWrites(state: OverlayStateManager, n1: bigint) {
  const tag = `0x${n1.toString(16)}`
  const w = state.flatten()
  expect(w.accounts.size).toBeGreaterThan(0)
  for (const [addr, a] of w.accounts) {
    expect(a?.balance ?? 0n, `balance of ${addr}`).toBe(BigInt(await anvil.rpc<Hex>('eth_getBalance', [addr, tag])))
    expect(a?.nonce ?? 0n, `nonce of ${addr}`).toBe(BigInt(await anvil.rpc<Hex>('eth_getTransactionCount', [addr, tag])))
  }
  for (const [addr, c] of w.code) expect(bytesToHex(c), `code of ${addr}`).toBe(await anvil.rpc<Hex>('eth_getCode', [addr, tag]))
  for (const [addr, s] of w.storage) {
    for (const [slot, v] of s.slots) {
      const upstream = BigInt(await anvil.rpc<Hex>('eth_getStorageAt', [addr, slot, tag]))
      expect(v.length ? BigInt(bytesToHex(v)) : 0n, `slot ${slot} of ${addr}`).toBe(upstream)
    }
  }
}

describe.runIf(hasAnvil)('fork state over a real Anvil', () => {
  beforeAll(async () => {
    artifacts = compile({ 'State.sol': SOURCE })
    anvil = await startAnvil({ args: ['--hardfork', 'prague'] })
    token = await deploy('Token', [10n ** 24n])
    frames = await deploy('Frames')
  }, 60_000)

  afterAll(async () => {
    await anvil?.stop()
  })

  it('a cold ERC-20 transfer takes <= 2 upstream round trips, the same again 0, and matches Anvil', async () => {
    const rpc = createRpcClient({ url: anvil.url, timeoutMs: 5_000 })
    const fork = new ForkCache({ rpc, chainId: 31337, cache: createMemoryCacheStore() })
    const n = BigInt(await anvil.rpc<Hex>('eth_blockNumber'))
    const data = encodeFunctionData({ abi: artifacts.Token!.abi, functionName: 'transfer', args: [DEV_ACCOUNTS[1], 12345n] })
    const mined = await mine(token, data) // Anvil mines it in n+1: the reference

    const cold = await simulate(fork, n, token, data, { prefetch: true })
    expect(rpc.stats.httpRequests).toBeLessThanOrEqual(2)
    expect(cold.result.execResult.exceptionError).toBeUndefined()
    expect(cold.result.totalGasSpent).toBe(mined.gasUsed)
    expect(mined.status).toBe('0x1')
    await expectSameWrites(cold.state, mined.blockNumber)

    const before = rpc.stats.httpRequests
    const warm = await simulate(fork, n, token, data, { prefetch: true })
    expect(rpc.stats.httpRequests - before).toBe(0)
    expect(warm.result.totalGasSpent).toBe(mined.gasUsed)

    // a new process-level cache over the same store: nothing leaves for the upstream either
    const rpc2 = createRpcClient({ url: anvil.url, timeoutMs: 5_000 })
    const store = createMemoryCacheStore()
    await simulate(new ForkCache({ rpc: rpc2, chainId: 31337, cache: store }), n, token, data, { prefetch: true })
    const rpc3 = createRpcClient({ url: anvil.url, timeoutMs: 5_000 })
    const again = await simulate(new ForkCache({ rpc: rpc3, chainId: 31337, cache: store }), n, token, data, { prefetch: true })
    expect(rpc3.stats.httpRequests).toBe(0)
    expect(again.result.totalGasSpent).toBe(mined.gasUsed)
  })

  it('reverted frames leave no storage behind (try/catch, nested revert) exactly as Anvil', async () => {
    const rpc = createRpcClient({ url: anvil.url, timeoutMs: 5_000 })
    const fork = new ForkCache({ rpc, chainId: 31337, cache: createMemoryCacheStore() })
    const n = BigInt(await anvil.rpc<Hex>('eth_blockNumber'))
    const data = encodeFunctionData({ abi: artifacts.Frames!.abi, functionName: 'outer', args: [42n] })
    const mined = await mine(frames, data)
    // no prefetch: every read goes through the per-read path
    const { state, result } = await simulate(fork, n, frames, data, { prefetch: false })
    expect(result.totalGasSpent).toBe(mined.gasUsed)
    await expectSameWrites(state, mined.blockNumber)
    const slots = [...state.flatten().storage.get(frames)!.slots.keys()]
    // a (slot 0), b (slot 1, set then cleared: original 0 → 0), m[43]; never m[42] nor m[44]
    expect(slots).toHaveLength(3)
  })

  it('a contract created and self-destructed in one tx (EIP-6780) is deleted exactly as Anvil', async () => {
    const factory = await deploy('Factory')
    const rpc = createRpcClient({ url: anvil.url, timeoutMs: 5_000 })
    const fork = new ForkCache({ rpc, chainId: 31337, cache: createMemoryCacheStore() })
    const n = BigInt(await anvil.rpc<Hex>('eth_blockNumber'))
    const data = encodeFunctionData({ abi: artifacts.Factory!.abi, functionName: 'make', args: [`0x${'11'.repeat(32)}`] })
    const mined = await mine(factory, data, 1000n)
    const { state, result } = await simulate(fork, n, factory, data, { prefetch: true, value: 1000n })
    expect(result.execResult.exceptionError).toBeUndefined()
    expect(result.totalGasSpent).toBe(mined.gasUsed)
    expect([...state.flatten().accounts.values()]).toContain(null) // the Doomed child
    await expectSameWrites(state, mined.blockNumber)
  })

  it('duplicate in-flight reads are merged; cached reads never leave the process', async () => {
    const rpc = createRpcClient({ url: anvil.url, timeoutMs: 5_000 })
    const fork = new ForkCache({ rpc, chainId: 31337, cache: createMemoryCacheStore() })
    const n = BigInt(await anvil.rpc<Hex>('eth_blockNumber'))
    const src = fork.at(n)
    const slot0 = `0x${'0'.repeat(64)}` as Hex
    const reads = await Promise.all([
      src.getAccount(token),
      src.getAccount(token),
      fork.at(n).getAccount(token),
      src.getStorage(frames, slot0),
      src.getStorage(frames, slot0),
      src.getStorage(frames, slot0),
    ])
    expect(rpc.stats.httpRequests).toBe(1)
    expect(rpc.stats.calls).toBe(4) // balance, nonce, code of token + one slot
    expect(reads[0]).toEqual(reads[1])
    expect(bytesToHex(reads[3] as Uint8Array)).toBe('0x2a') // a = 42 from the previous test
    expect((await src.getCode(token)).length).toBeGreaterThan(0)
    await src.getMany([{ address: token, code: true }])
    await fork.at(n).getStorage(frames, slot0)
    expect(rpc.stats.httpRequests).toBe(1)
  })

  it('upstream JSON-RPC errors become STATE_ACCESS_ERROR without the URL', async () => {
    const rpc = createRpcClient({ url: anvil.url, timeoutMs: 5_000 })
    const err = (await rpc.request('no_such_method', []).catch((e: unknown) => e)) as Error
    expect(err).toMatchObject({ code: 'STATE_ACCESS_ERROR' })
    expect(err.message).not.toContain(String(anvil.port))
    expect(err.message).not.toContain('127.0.0.1')
    // a block the node does not have: the read fails, the overlay surfaces the EngineError
    const fork = new ForkCache({ rpc, chainId: 31337, cache: createMemoryCacheStore() })
    const st = new OverlayStateManager(fork.at(10_000_000n))
    const { createAddressFromString } = await import('@ethereumjs/util')
    const e2 = await st.getAccount(createAddressFromString(token)).catch((e) => e)
    expect(e2).toMatchObject({ code: 'STATE_ACCESS_ERROR' })
    expect(e2.message).not.toContain(String(anvil.port))
  })

  it('a `state` override on a fork account: unlisted slots read zero without asking the upstream', async () => {
    const rpc = createRpcClient({ url: anvil.url, timeoutMs: 5_000 })
    const fork = new ForkCache({ rpc, chainId: 31337, cache: createMemoryCacheStore() })
    const n = BigInt(await anvil.rpc<Hex>('eth_blockNumber'))
    const st = new OverlayStateManager(fork.at(n))
    const slot1 = `0x${'0'.repeat(63)}1` as Hex
    await st.applyOverrides({ [frames]: { state: { [slot1]: `0x${'0'.repeat(62)}99` as Hex } } })
    const { createAddressFromString } = await import('@ethereumjs/util')
    const addr = createAddressFromString(frames)
    const before = rpc.stats.calls
    expect(bytesToHex(await st.getStorage(addr, hexToBytes(`0x${'0'.repeat(64)}`)))).toBe('0x') // a = 42 upstream, hidden
    expect(bytesToHex(await st.getStorage(addr, hexToBytes(slot1)))).toBe('0x99')
    expect(rpc.stats.calls - before).toBe(0)
    // the source value stays readable as "before the request"
    expect(bytesToHex(await st.sourceStorage(frames, `0x${'0'.repeat(64)}`))).toBe('0x2a')
  })

  it('a node without eth_createAccessList still works, and is not asked again', async () => {
    const proxy = await startProxy(anvil.url, 'eth_createAccessList')
    try {
      const rpc = createRpcClient({ url: proxy.url, timeoutMs: 5_000 })
      const fork = new ForkCache({ rpc, chainId: 31337, cache: createMemoryCacheStore() })
      const n = BigInt(await anvil.rpc<Hex>('eth_blockNumber'))
      const data = encodeFunctionData({ abi: artifacts.Token!.abi, functionName: 'transfer', args: [DEV_ACCOUNTS[2], 777n] })
      const mined = await mine(token, data)
      const { state, result } = await simulate(fork, n, token, data, { prefetch: true })
      expect(result.totalGasSpent).toBe(mined.gasUsed)
      await expectSameWrites(state, mined.blockNumber)
      expect(proxy.seen.filter((m) => m === 'eth_createAccessList')).toHaveLength(1)
      const other = encodeFunctionData({ abi: artifacts.Token!.abi, functionName: 'transfer', args: [DEV_ACCOUNTS[3], 1n] })
      await fork.prefetch(n, [{ from: FROM, to: token, data: other }])
      expect(proxy.seen.filter((m) => m === 'eth_createAccessList')).toHaveLength(1)
    } finally {
      await proxy.close()
    }
  })

  it('a failing cache store degrades to upstream reads; TTLs reach the store for state, not for code', async () => {
    const rpc = createRpcClient({ url: anvil.url, timeoutMs: 5_000 })
    const broken: CacheStore = {
      ...createMemoryCacheStore(),
      getMany: () => Promise.reject(new Error('store down')),
      setMany: () => Promise.reject(new Error('store down')),
    }
    const n = BigInt(await anvil.rpc<Hex>('eth_blockNumber'))
    const data = encodeFunctionData({ abi: artifacts.Token!.abi, functionName: 'transfer', args: [DEV_ACCOUNTS[4], 5n] })
    const mined = await mine(token, data)
    const down = await simulate(new ForkCache({ rpc, chainId: 31337, cache: broken }), n, token, data, { prefetch: true })
    expect(down.result.totalGasSpent).toBe(mined.gasUsed)

    const writes: { key: string; ttlSeconds?: number }[] = []
    const inner = createMemoryCacheStore()
    const recording: CacheStore = {
      ...inner,
      setMany: (entries) => (writes.push(...entries), inner.setMany(entries)),
    }
    const fork = new ForkCache({ rpc, chainId: 31337, cache: recording })
    const src = fork.at(n, { ttlSeconds: 12 })
    await src.getMany([{ address: token, slots: [`0x${'0'.repeat(64)}`], code: true }])
    await new Promise((r) => setImmediate(r))
    const kinds = writes.map((w) => [w.key.split(':')[2] === 'c' ? 'code' : w.key.split(':')[3], w.ttlSeconds])
    expect(kinds).toEqual(
      expect.arrayContaining([
        ['a', 12],
        ['s', 12],
        ['code', undefined],
      ]),
    )
    // keys carry chain and block; values are compact (an account record is a few dozen bytes)
    expect(writes.every((w) => w.key.startsWith(`fs:31337:`))).toBe(true)
    const acct = await inner.get(writes.find((w) => w.key.split(':')[3] === 'a')!.key)
    expect(acct!.byteLength).toBeLessThanOrEqual(3 + 32 + 32 + 8)
  })

  it('a dead upstream becomes STATE_ACCESS_ERROR within a bounded time (runs last: stops Anvil)', async () => {
    await anvil.stop()
    const rpc = createRpcClient({ url: anvil.url, timeoutMs: 500, retries: 2, retryDelayMs: 20 })
    const fork = new ForkCache({ rpc, chainId: 31337, cache: createMemoryCacheStore() })
    const started = Date.now()
    const err = await fork
      .at(1n)
      .getAccount(token)
      .catch((e) => e)
    expect(err).toMatchObject({ code: 'STATE_ACCESS_ERROR' })
    expect(err.message).toMatch(/refused/)
    expect(err.message).not.toContain(String(anvil.port))
    expect(rpc.stats.httpRequests).toBe(3) // first try + 2 retries
    expect(Date.now() - started).toBeLessThan(10_000)
    // a batched read and a prefetch fail the same way (and leave no unobserved rejection behind)
    const slot = `0x${'0'.repeat(64)}` as Hex
    await expect(fork.at(1n).getMany([{ address: frames, slots: [slot, `0x${'0'.repeat(63)}1` as Hex] }])).rejects.toMatchObject({ code: 'STATE_ACCESS_ERROR' })
    await expect(fork.prefetch(1n, [{ from: FROM, to: token, data: '0x' }])).rejects.toMatchObject({ code: 'STATE_ACCESS_ERROR' })
  })
})

/** a real HTTP proxy in front of Anvil that answers `reject` with "method not found" */
async function startProxy(target: string, reject: string) {
  const seen: string[] = []
  const server = createServer((req, res) => {
    let raw = ''
    req.on('data', (d) => (raw += String(d)))
    req.on('end', async () => {
      const body = JSON.parse(raw) as { id: number; method: string }[] | { id: number; method: string }
      const calls = Array.isArray(body) ? body : [body]
      seen.push(...calls.map((c) => c.method))
      const answers = await Promise.all(
        calls.map(async (c) => {
          if (c.method === reject) return { jsonrpc: '2.0', id: c.id, error: { code: -32601, message: 'the method does not exist' } }
          const r = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(c) })
          return r.json()
        }),
      )
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(Array.isArray(body) ? answers : answers[0]))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  }
}
