/**
 * The `stateDiff` and `vmTrace` trace types and trace_replayBlockTransactions, with the engine
 * forking a real Anvil. Anvil 1.x answers trace_replayBlockTransactions (revm-inspectors' state
 * diff and vmTrace, the code reth runs) but not trace_replayTransaction / trace_call, so: every
 * mined transaction's block replayed by both and compared whole (a transfer to a fresh address,
 * an ERC-20 transfer, deployments, one onto a pre-funded address, CREATE/CREATE2 children, a
 * child created and selfdestructed in one transaction, a Cancun selfdestruct of an old contract,
 * a caught inner out-of-gas, an outer revert, ops running out of gas in each of revm's ways, a
 * block of three transactions; a Shanghai Anvil for the pre-Cancun selfdestruct); then
 * trace_replayTransaction against the same entry, and trace_call / trace_callMany against what
 * the state reads before and after say.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeAbiParameters, encodeDeployData, encodeFunctionData, getContractAddress, keccak256, pad, toHex, type Address, type Hex } from 'viem'
import { loadConfig } from '../../../../config/loadConfig.js'
import { createMemoryCacheStore } from '../../../../host/cache/memoryCacheStore.js'
import { createEngine } from '../../../../engine/index.js'
import { type Engine, ON_CHAIN } from '../../../../engine/types.js'
import { traceMethods } from '../../../../src/rpc/methods/trace.js'
import { RpcError } from '../../../../src/rpc/rpcError.js'
import type { RpcContext } from '../../../../src/rpc/types.js'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../../../support/anvil.js'
import { compile } from '../../../support/solc.js'
import { contracts } from '../../../tracers/contracts.js'

const run = requireAnvil()
const SENDER = DEV_ACCOUNTS[1] as Address
const FRESH = '0x00000000000000000000000000000000000fe5e1' as Address
const BENEFICIARY = '0x00000000000000000000000000000000000be4ef' as Address

const TOKEN_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Token {
  mapping(address => uint256) public balanceOf;
  constructor() { balanceOf[msg.sender] = 1000; }
  function transfer(address to, uint256 n) external returns (bool) {
    balanceOf[msg.sender] -= n;
    balanceOf[to] += n;
    return true;
  }
}`

type Delta = '=' | { '+': Hex } | { '-': Hex } | { '*': { from: Hex; to: Hex } }
type AccountDiff = { balance: Delta; code: Delta; nonce: Delta; storage: Record<Hex, Delta> }
/** the first path where two JSON values differ, with both sides (a readable failure for a large vmTrace) */
function firstDifference(a: unknown, b: unknown, path = ''): string | undefined {
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null)
    return a === b ? undefined : `${path}: ${JSON.stringify(a)?.slice(0, 300)} != ${JSON.stringify(b)?.slice(0, 300)}`
  const keys = new Set([...Object.keys(a), ...Object.keys(b)])
  for (const k of keys) {
    const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`)
    if (d) return d
  }
  return undefined
}

type Results = { output: Hex; stateDiff: Record<Address, AccountDiff> | null; trace: unknown[]; vmTrace: unknown; transactionHash?: Hex }

describe.runIf(run)('stateDiff, vmTrace and trace_replayBlockTransactions against Anvil', () => {
  let anvil: AnvilInstance
  let engine: Engine
  let ctx: RpcContext
  let target: Address
  let caller: Address
  let token: Address
  let prefunded: Address
  const c = contracts()
  const { Token } = compile({ 'Token.sol': TOKEN_SOURCE })
  const mined: Record<string, { hash: Hex; blockNumber: Hex }> = {}

  const send = async (tx: Record<string, unknown>) => {
    const hash = await anvil.rpc<Hex>('eth_sendTransaction', [tx])
    for (let i = 0; ; i++) {
      const receipt = await anvil.rpc<{ status: Hex; contractAddress: Address | null; blockNumber: Hex } | null>('eth_getTransactionReceipt', [hash])
      if (receipt) return { hash, ...receipt }
      if (i === 100) throw new Error(`no receipt for ${hash}`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }
  const callData = (name: 'Target' | 'Caller', fn: string, args: unknown[] = []) => encodeFunctionData({ abi: c[name]!.abi, functionName: fn, args } as never)
  const toCaller = (fn: string, args: unknown[], value = 0n) => ({
    from: SENDER,
    to: caller,
    data: callData('Caller', fn, args),
    gas: toHex(1_000_000n),
    value: toHex(value),
  })
  const tokenTransfer = (to: Address, n: bigint) => encodeFunctionData({ abi: Token!.abi, functionName: 'transfer', args: [to, n] } as never)
  const trace = (method: string, params: unknown[]) => traceMethods[method]!(params, ctx)

  beforeAll(async () => {
    anvil = await startAnvil()
    const keep = async (name: string, tx: Record<string, unknown>) => {
      const r = await send(tx)
      mined[name] = { hash: r.hash, blockNumber: r.blockNumber }
      return r
    }
    target = (
      await keep('deploy', { from: DEV_ACCOUNTS[0], data: encodeDeployData({ abi: c.Target!.abi, bytecode: c.Target!.bytecode }), value: '0x10' })
    ).contractAddress!.toLowerCase() as Address
    caller = (await keep('deployEmpty', { from: DEV_ACCOUNTS[0], data: c.Caller!.bytecode })).contractAddress!.toLowerCase() as Address
    token = (await keep('deployToken', { from: SENDER, data: Token!.bytecode })).contractAddress!.toLowerCase() as Address
    await keep('transfer', { from: SENDER, to: FRESH, value: '0x5' })
    await keep('erc20', { from: SENDER, to: token, data: tokenTransfer(BENEFICIARY, 30n) })
    await keep('nested', toCaller('nested', [target, 7n], 5n))
    await keep('children', toCaller('makeChildren', [9n], 4n))
    await keep('kill', toCaller('makeAndKill', [BENEFICIARY], 2n))
    await keep('oogInner', toCaller('oogInner', [target]))
    await keep('failOuter', toCaller('failOuter', [target]))
    await keep('destroyOld', { from: SENDER, to: target, data: callData('Target', 'destroy', [BENEFICIARY]), gas: toHex(200_000n) })
    // ops that run out of gas on their static part or on a later part (revm charges in steps)
    const raw = async (runtime: string) => {
      const n = (runtime.length / 2).toString(16).padStart(2, '0')
      const r = await send({ from: DEV_ACCOUNTS[0], data: `0x60${n}600c60003960${n}6000f3${runtime}`, gas: toHex(200_000n) })
      return r.contractAddress!
    }
    const memoryHog = await raw('600062ffffff5200') // MSTORE at 16 MiB
    const slotReader = await raw('60005400') // a cold SLOAD
    const slotWriter = await raw('600160005500') // a cold SSTORE
    const hasher = await raw('62ffffff600020') // KECCAK256 of 16 MiB: its word cost fails before memory
    await keep('oogKeccak', { from: SENDER, to: hasher, gas: toHex(100_000n) })
    await keep('oogStatic', { from: SENDER, to: memoryHog, gas: toHex(21_000n + 5n) }) // PUSH1 fits, PUSH3 does not
    await keep('oogMemory', { from: SENDER, to: memoryHog, gas: toHex(100_000n) })
    await keep('oogSload', { from: SENDER, to: slotReader, gas: toHex(21_000n + 3n + 150n) })
    await keep('oogSstore', { from: SENDER, to: slotWriter, gas: toHex(21_000n + 6n + 2400n) })
    await keep('oogSentry', { from: SENDER, to: slotWriter, gas: toHex(21_000n + 6n + 2000n) })
    // a deployment onto an address that already holds ether: code `*` from 0x, not `+`
    const deployer = DEV_ACCOUNTS[2] as Address
    const nonce = BigInt(await anvil.rpc<Hex>('eth_getTransactionCount', [deployer, 'latest']))
    prefunded = getContractAddress({ from: deployer, nonce }).toLowerCase() as Address
    await send({ from: DEV_ACCOUNTS[0], to: prefunded, value: '0x7' })
    await keep('prefunded', { from: deployer, data: Token!.bytecode })
    // several transactions in one block: each diff starts from the state the earlier ones left
    await anvil.rpc('evm_setAutomine', [false])
    const hashes = [
      await anvil.rpc<Hex>('eth_sendTransaction', [{ from: SENDER, to: token, data: tokenTransfer(FRESH, 1n), gas: toHex(100_000n) }]),
      await anvil.rpc<Hex>('eth_sendTransaction', [{ from: SENDER, to: token, data: tokenTransfer(FRESH, 2n), gas: toHex(100_000n) }]),
      await anvil.rpc<Hex>('eth_sendTransaction', [{ from: DEV_ACCOUNTS[3], to: FRESH, value: '0x9', gas: toHex(21_000n) }]),
    ]
    await anvil.rpc('evm_mine', [])
    await anvil.rpc('evm_setAutomine', [true])
    const last = await send({ from: SENDER, to: FRESH, value: '0x1' }) // confirms the block above was mined
    mined.block = { hash: hashes[0]!, blockNumber: toHex(BigInt(last.blockNumber) - 1n) }
    engine = await createEngine({
      rpcUrl: anvil.url,
      cache: createMemoryCacheStore(),
      gasCap: 50_000_000n,
      rpcTimeoutMs: 10_000,
      maxStructLogSteps: 50_000,
      simulationTtlSeconds: 60,
    })
    ctx = { engine, config: loadConfig({ env: {} }), at: ON_CHAIN } as RpcContext
  }, 120_000)
  afterAll(async () => {
    await engine?.close()
    await anvil?.stop()
  })

  const names = [
    'deploy',
    'deployEmpty',
    'deployToken',
    'transfer',
    'erc20',
    'nested',
    'children',
    'kill',
    'oogInner',
    'failOuter',
    'destroyOld',
    'prefunded',
    'block',
    'oogMemory',
    'oogKeccak',
    'oogStatic',
    'oogSload',
    'oogSstore',
    'oogSentry',
  ]
  for (const name of names) {
    it(`trace_replayBlockTransactions [trace, stateDiff] equals Anvil's, in its field order: ${name}`, async () => {
      const block = mined[name]!.blockNumber
      const theirs = await anvil.rpc<Results[]>('trace_replayBlockTransactions', [block, ['trace', 'stateDiff']])
      const ours = (await trace('trace_replayBlockTransactions', [block, ['trace', 'stateDiff']])) as Results[]
      expect(ours).toEqual(theirs)
      expect(JSON.stringify(ours.map((r) => ({ ...r, trace: [] })))).toBe(JSON.stringify(theirs.map((r) => ({ ...r, trace: [] }))))
      expect(ours[0]!.transactionHash).toBe(mined[name]!.hash)
      if (name === 'block') expect(ours).toHaveLength(3)
    })
    it(`trace_replayBlockTransactions [vmTrace] equals Anvil's: ${name}`, async () => {
      const block = mined[name]!.blockNumber
      const theirs = await anvil.rpc<Results[]>('trace_replayBlockTransactions', [block, ['vmTrace']])
      const ours = (await trace('trace_replayBlockTransactions', [block, ['vmTrace']])) as Results[]
      const d = firstDifference(ours, theirs)
      expect(d, d).toBeUndefined()
      expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs))
    })
  }

  it('the diffs show what the cases are about', async () => {
    const diffOf = async (name: string) => ((await trace('trace_replayTransaction', [mined[name]!.hash, ['stateDiff']])) as Results).stateDiff!
    // a value sent to a fresh address: `*` from 0x0 (reth), not `+`
    expect((await diffOf('transfer'))[FRESH]).toEqual({ balance: { '*': { from: '0x0', to: '0x5' } }, code: '=', nonce: '=', storage: {} })
    // a deployment: every field of the new account born
    const deployed = (await diffOf('deployToken'))[token]!
    expect(deployed.nonce).toEqual({ '+': '0x1' })
    expect(deployed.balance).toEqual({ '+': '0x0' })
    expect((deployed.code as { '+': Hex })['+']).toBe((await anvil.rpc<Hex>('eth_getCode', [token, 'latest'])).toLowerCase())
    const onFunded = (await diffOf('prefunded'))[prefunded]!
    expect(onFunded.balance).toBe('=')
    expect(onFunded.nonce).toEqual({ '*': { from: '0x0', to: '0x1' } })
    expect(onFunded.code).toMatchObject({ '*': { from: '0x' } })
    // the ERC-20 transfer: two mapping slots changed
    const erc20 = (await diffOf('erc20'))[token]!
    const slotOf = (who: Address) => keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [who, 0n]))
    expect(erc20.storage).toEqual({
      [slotOf(SENDER)]: { '*': { from: pad(toHex(1000)), to: pad(toHex(970)) } },
      [slotOf(BENEFICIARY)]: { '*': { from: pad('0x0'), to: pad(toHex(30)) } },
    })
    expect(Object.keys(erc20.storage)).toEqual(Object.keys(erc20.storage).sort())
    // the child created and selfdestructed in one transaction is not there; its beneficiary is
    const kill = await diffOf('kill')
    expect(kill[BENEFICIARY]?.balance).toMatchObject({ '*': {} })
    expect(Object.values(kill).some((d) => d.code !== '=')).toBe(false)
    // the outer revert: only the gas payment stays (sender and coinbase), no contract touched
    const fail = await diffOf('failOuter')
    expect(Object.keys(fail)).not.toContain(caller)
    expect(Object.keys(fail)).not.toContain(target)
    expect(fail[SENDER.toLowerCase() as Address]!.nonce).toMatchObject({ '*': {} })
  })

  it('trace_replayTransaction equals its block replay entry; the trace types pick the fields', async () => {
    for (const name of ['erc20', 'children', 'nested']) {
      const { hash, blockNumber } = mined[name]!
      const [entry] = (await trace('trace_replayBlockTransactions', [blockNumber, ['trace', 'stateDiff']])) as Results[]
      const { transactionHash, ...results } = entry!
      expect(transactionHash).toBe(hash)
      const [full] = (await trace('trace_replayBlockTransactions', [blockNumber, ['trace', 'stateDiff', 'vmTrace']])) as Results[]
      const { transactionHash: _h, ...all } = full!
      expect(all).toEqual({ ...results, vmTrace: expect.objectContaining({ ops: expect.any(Array) }) })
      expect(await trace('trace_replayTransaction', [hash, ['vmTrace', 'trace', 'stateDiff']])).toEqual(all)
      expect(await trace('trace_replayTransaction', [hash, ['trace', 'stateDiff']])).toEqual(results)
      expect(await trace('trace_replayTransaction', [hash, ['stateDiff']])).toEqual({ ...results, trace: [] })
      expect(await trace('trace_replayTransaction', [hash, ['trace']])).toEqual({ ...results, stateDiff: null })
      expect(await trace('trace_replayTransaction', [hash, []])).toEqual({ ...results, stateDiff: null, trace: [] })
    }
    // Anvil agrees on the other combinations too
    const block = mined.children!.blockNumber
    for (const types of [['stateDiff'], ['trace'], [], ['trace', 'stateDiff', 'vmTrace'], ['stateDiff', 'stateDiff']]) {
      expect(await trace('trace_replayBlockTransactions', [block, types])).toEqual(await anvil.rpc('trace_replayBlockTransactions', [block, types]))
    }
  })

  it('trace_call: the sender nonce bumps, the written slot changes, nothing pays gas (state reads before and after)', async () => {
    const slot0 = pad('0x0')
    const before = await anvil.rpc<Hex>('eth_getStorageAt', [target, slot0, 'latest'])
    const nonce = await anvil.rpc<Hex>('eth_getTransactionCount', [SENDER, 'latest'])
    const balance = await anvil.rpc<Hex>('eth_getBalance', [target, 'latest'])
    const store = { from: SENDER, to: target, data: callData('Target', 'store', [41n]), value: '0x3' }
    const res = (await trace('trace_call', [store, ['stateDiff'], 'latest'])) as Results
    const senderBalance = BigInt(await anvil.rpc<Hex>('eth_getBalance', [SENDER, 'latest']))
    const mapSlot = Object.keys(res.stateDiff![target]!.storage).find((k) => k !== slot0)!
    expect(res.stateDiff).toEqual({
      [SENDER.toLowerCase()]: {
        balance: { '*': { from: toHex(senderBalance), to: toHex(senderBalance - 3n) } },
        code: '=',
        nonce: { '*': { from: nonce, to: toHex(BigInt(nonce) + 1n) } },
        storage: {},
      },
      [target]: {
        balance: { '*': { from: balance, to: toHex(BigInt(balance) + 3n) } },
        code: '=',
        nonce: '=',
        storage: { [slot0]: { '*': { from: pad(before), to: pad(toHex(41)) } }, [mapSlot]: { '*': { from: pad('0x0'), to: pad('0x3') } } },
      },
    })
    expect(res.trace).toEqual([])
    // nothing was written: the state reads are what they were
    expect(await anvil.rpc<Hex>('eth_getStorageAt', [target, slot0, 'latest'])).toBe(before)
  })

  it("trace_call's vmTrace of a mined call, on the state before it, is the one Anvil prints for the mined transaction", async () => {
    const { hash, blockNumber } = mined.erc20!
    const tx = await anvil.rpc<{ from: Address; to: Address; input: Hex; gas: Hex }>('eth_getTransactionByHash', [hash])
    const parent = toHex(BigInt(blockNumber) - 1n)
    const ours = (await trace('trace_call', [{ from: tx.from, to: tx.to, data: tx.input, gas: tx.gas }, ['vmTrace'], parent])) as Results
    const [theirs] = await anvil.rpc<Results[]>('trace_replayBlockTransactions', [blockNumber, ['vmTrace']])
    expect(ours.vmTrace).toEqual(theirs!.vmTrace)
    expect((ours.vmTrace as { code: Hex }).code).toBe((await anvil.rpc<Hex>('eth_getCode', [token, parent])).toLowerCase())
  })

  it("vmTrace is capped like the struct logger: past the operator's step cap the call is refused, not built", async () => {
    const { hash } = mined.erc20!
    const tight = await createEngine({
      rpcUrl: anvil.url,
      cache: createMemoryCacheStore(),
      gasCap: 50_000_000n,
      rpcTimeoutMs: 10_000,
      maxStructLogSteps: 20,
      simulationTtlSeconds: 60,
    })
    try {
      const tightCtx = { engine: tight, config: loadConfig({ env: {} }), at: ON_CHAIN } as RpcContext
      await expect(traceMethods.trace_replayTransaction!([hash, ['vmTrace']], tightCtx)).rejects.toMatchObject({
        message: expect.stringMatching(/vmTrace exceeds the limit of 20 steps/),
      })
      // the other types of the same transaction are not capped by it
      const plain = (await traceMethods.trace_replayTransaction!([hash, ['trace', 'stateDiff']], tightCtx)) as Results
      expect(plain.trace.length).toBeGreaterThan(0)
    } finally {
      await tight.close()
    }
  })

  it('trace_callMany: each call diffs against the state the previous one left', async () => {
    const slot0 = pad('0x0')
    const store = (v: bigint) => [{ from: SENDER, to: target, data: callData('Target', 'store', [v]) }, ['stateDiff']]
    const [a, b] = (await trace('trace_callMany', [[store(5n), store(6n)], 'latest'])) as Results[]
    expect(a!.stateDiff![target]!.storage[slot0]).toMatchObject({ '*': { to: pad('0x5') } })
    expect(b!.stateDiff![target]!.storage[slot0]).toEqual({ '*': { from: pad('0x5'), to: pad('0x6') } })
    const n = BigInt(await anvil.rpc<Hex>('eth_getTransactionCount', [SENDER, 'latest']))
    expect(b!.stateDiff![SENDER.toLowerCase() as Address]!.nonce).toEqual({ '*': { from: toHex(n + 1n), to: toHex(n + 2n) } })
  })

  it('bad params: -32602 naming the param', async () => {
    const cases: [string, unknown[], RegExp][] = [
      ['trace_replayBlockTransactions', ['latest', ['VmTrace']], /invalid argument 1: \[0\]: unknown trace type "VmTrace"/],
      ['trace_replayBlockTransactions', ['latest', ['bogus']], /invalid argument 1: \[0\]: unknown trace type "bogus"/],
      ['trace_replayBlockTransactions', ['latest', 'stateDiff'], /invalid argument 1/],
      ['trace_replayBlockTransactions', [{ x: 1 }, ['trace']], /invalid argument 0/],
      ['trace_replayBlockTransactions', ['latest'], /missing value for required argument 1/],
      ['trace_replayBlockTransactions', ['latest', ['trace'], 1], /too many arguments/],
      ['trace_call', [{ from: SENDER, to: target }, ['stateDiff', null]], /invalid argument 1: \[1\]: unknown trace type null/],
      ['trace_replayTransaction', [mined.erc20?.hash ?? '0x', [7]], /invalid argument 1: \[0\]: unknown trace type 7/],
    ]
    for (const [method, params, message] of cases) {
      const e = await trace(method, params).then(
        () => undefined,
        (x: unknown) => x,
      )
      expect(e, `${method} ${JSON.stringify(params)}`).toBeInstanceOf(RpcError)
      expect((e as RpcError).code).toBe(-32602)
      expect((e as RpcError).message).toMatch(message)
    }
  })
})

describe.runIf(run)('stateDiff and vmTrace before Cancun (a Shanghai Anvil): SELFDESTRUCT deletes any contract', () => {
  let anvil: AnvilInstance
  let engine: Engine
  let ctx: RpcContext
  const c = contracts()

  beforeAll(async () => {
    anvil = await startAnvil({ args: ['--hardfork', 'shanghai'] })
    engine = await createEngine({
      rpcUrl: anvil.url,
      hardfork: 'shanghai',
      cache: createMemoryCacheStore(),
      gasCap: 50_000_000n,
      rpcTimeoutMs: 10_000,
      maxStructLogSteps: 50_000,
      simulationTtlSeconds: 60,
    })
    ctx = { engine, config: loadConfig({ env: {} }), at: ON_CHAIN } as RpcContext
  }, 60_000)
  afterAll(async () => {
    await engine?.close()
    await anvil?.stop()
  })

  it("an old contract's selfdestruct and a child created and killed in one transaction, as Anvil prints them", async () => {
    const receipt = async (hash: Hex) => {
      for (let i = 0; ; i++) {
        const r = await anvil.rpc<{ contractAddress: Address | null; blockNumber: Hex } | null>('eth_getTransactionReceipt', [hash])
        if (r) return r
        if (i === 100) throw new Error(`no receipt for ${hash}`)
        await new Promise((done) => setTimeout(done, 20))
      }
    }
    const send = async (tx: Record<string, unknown>) => receipt(await anvil.rpc<Hex>('eth_sendTransaction', [tx]))
    const target = (
      await send({ from: SENDER, data: encodeDeployData({ abi: c.Target!.abi, bytecode: c.Target!.bytecode }), value: '0x10' })
    ).contractAddress!.toLowerCase() as Address
    const caller = (await send({ from: SENDER, data: c.Caller!.bytecode })).contractAddress!
    const destroy = await send({
      from: SENDER,
      to: target,
      data: encodeFunctionData({ abi: c.Target!.abi, functionName: 'destroy', args: [BENEFICIARY] } as never),
      gas: toHex(200_000n),
    })
    const kill = await send({
      from: SENDER,
      to: caller,
      data: encodeFunctionData({ abi: c.Caller!.abi, functionName: 'makeAndKill', args: [BENEFICIARY] } as never),
      value: '0x2',
      gas: toHex(1_000_000n),
    })
    for (const { blockNumber } of [destroy, kill]) {
      const ours = (await traceMethods.trace_replayBlockTransactions!([blockNumber, ['trace', 'stateDiff', 'vmTrace']], ctx)) as Results[]
      expect(ours).toEqual(await anvil.rpc('trace_replayBlockTransactions', [blockNumber, ['trace', 'stateDiff', 'vmTrace']]))
    }
    const [gone] = (await traceMethods.trace_replayBlockTransactions!([destroy.blockNumber, ['stateDiff']], ctx)) as Results[]
    expect(gone!.stateDiff![target]).toEqual({ balance: { '*': { from: '0x10', to: '0x0' } }, code: '=', nonce: '=', storage: {} })
  })
})
