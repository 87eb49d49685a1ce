/**
 * Real clients, unmodified, pointed at POST /v1/rpc/<token> (the URL-only form a tool takes), on
 * the embedded devnet and on a fork of a real Anvil: viem's public actions, ethers v6's
 * JsonRpcProvider (which batches by default) and Foundry's `cast` binary. Each answer is checked
 * against what the chain itself holds (the devnet's demo history, or Anvil's own answer).
 */
import { JsonRpcProvider, Contract, Interface } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BaseError, ContractFunctionRevertedError, createPublicClient, encodeFunctionData, getAddress, http, parseAbi, type Hex, type PublicClient } from 'viem'
import { demoTokenAbi, DEMO_TOKEN_ADDRESS } from '../../../engine/chains/devnet/demoTransactions.js'
import { requireAnvil } from '../../support/anvil.js'
import { cast, requireCast } from '../../support/cast.js'
import { rpcMethods } from '../../../src/rpc/methods/index.js'
import { OTHER, SENDER, startProbeChain, type ProbeChain } from './anvilProbe.js'
import { startRpcApp, type RpcApp } from './rpcApp.js'

const hasAnvil = requireAnvil()
const hasCast = requireCast()
/** the demo ERC-20 transfer of block 4: account 0 → account 1, 1000 DEMO (engine/chains/devnet/DEMO.md) */
const DEMO_TRANSFER: Hex = '0x8849d23607d7c87b58414fda583340f2c2b6393f2461223972e42e81c7fda23b'
const ACCOUNT0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const ACCOUNT1 = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const erc20 = parseAbi([
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address) view returns (uint256)',
  'function transfer(address,uint256) returns (bool)',
])

let devnet: RpcApp
let viem: PublicClient
beforeAll(async () => {
  devnet = await startRpcApp()
  viem = createPublicClient({ transport: http(devnet.rpcUrl) })
}, 60_000)
afterAll(async () => devnet?.close())

const httpRequests = (app: RpcApp) => app.logs.filter((l) => l.msg === 'request').length

describe('viem on the devnet', () => {
  it('reads the chain: id, blocks, receipts, logs', async () => {
    expect(await viem.getChainId()).toBe(31337)
    expect(await viem.getBlockNumber()).toBe(6n)
    const receipt = await viem.getTransactionReceipt({ hash: DEMO_TRANSFER })
    expect(receipt).toMatchObject({ status: 'success', blockNumber: 4n, from: ACCOUNT0, to: DEMO_TOKEN_ADDRESS })
    const block = await viem.getBlock({ blockNumber: 4n, includeTransactions: true })
    expect(block.transactions.map((t) => t.hash)).toContain(DEMO_TRANSFER)
    const logs = await viem.getContractEvents({ address: DEMO_TOKEN_ADDRESS, abi: demoTokenAbi, eventName: 'Transfer', fromBlock: 0n })
    expect(logs.map((l) => (l.args as { value: bigint }).value)).toEqual([10n ** 24n, 1000n * 10n ** 18n, 500n * 10n ** 18n, 250n * 10n ** 18n])
  })

  it('calls, estimates and builds access lists', async () => {
    expect(await viem.readContract({ address: DEMO_TOKEN_ADDRESS, abi: erc20, functionName: 'totalSupply' })).toBe(10n ** 24n)
    expect(await viem.readContract({ address: DEMO_TOKEN_ADDRESS, abi: erc20, functionName: 'balanceOf', args: [ACCOUNT1], blockNumber: 4n })).toBe(
      1000n * 10n ** 18n,
    )
    const data = encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [ACCOUNT1, 1n] })
    const gas = await viem.estimateGas({ account: ACCOUNT0, to: DEMO_TOKEN_ADDRESS, data })
    expect(gas).toBeGreaterThan(21_000n)
    const { accessList, gasUsed } = await viem.createAccessList({ account: ACCOUNT0, to: DEMO_TOKEN_ADDRESS, data })
    expect(accessList).toHaveLength(1)
    expect(accessList[0]!.storageKeys).toHaveLength(2)
    expect(gasUsed).toBeGreaterThan(21_000n)
    // account 0 minted 1,000,000 DEMO and sent 1000 + 500 (DEMO.md)
    const { data: bal } = await viem.call({ to: DEMO_TOKEN_ADDRESS, data: encodeFunctionData({ abi: erc20, functionName: 'balanceOf', args: [ACCOUNT0] }) })
    expect(BigInt(bal!)).toBe(10n ** 24n - 1500n * 10n ** 18n)
    // a state override (viem's stateOverride → eth_call's 3rd param): the token's code at another address
    const code = await viem.getCode({ address: DEMO_TOKEN_ADDRESS })
    const { data: none } = await viem.call({
      to: ACCOUNT1,
      data: encodeFunctionData({ abi: erc20, functionName: 'totalSupply' }),
      stateOverride: [{ address: ACCOUNT1, code }],
    })
    expect(BigInt(none!)).toBe(0n)
  })

  it('decodes a custom error from the revert data', async () => {
    const err = await viem
      .simulateContract({ account: ACCOUNT1, address: DEMO_TOKEN_ADDRESS, abi: demoTokenAbi, functionName: 'transfer', args: [ACCOUNT0, 10n ** 30n] })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(BaseError)
    const reverted = (err as BaseError).walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError
    expect(reverted.data?.errorName).toBe('InsufficientBalance')
  })

  it('gets a refusal through request() for a sending method', async () => {
    await expect(viem.request({ method: 'eth_sendRawTransaction', params: ['0x02'] } as never)).rejects.toThrow(/never sends/)
  })
})

describe('ethers v6 JsonRpcProvider on the devnet', () => {
  it('batches its requests and reads, calls and estimates', async () => {
    const provider = new JsonRpcProvider(devnet.rpcUrl)
    const before = httpRequests(devnet)
    const [network, number, balance, receipt, code] = await Promise.all([
      provider.getNetwork(),
      provider.getBlockNumber(),
      provider.getBalance(ACCOUNT1, 4),
      provider.getTransactionReceipt(DEMO_TRANSFER),
      provider.getCode(DEMO_TOKEN_ADDRESS),
    ])
    expect(network.chainId).toBe(31337n)
    expect(number).toBe(6)
    expect(balance).toBe(10_000n * 10n ** 18n)
    expect(receipt!.status).toBe(1)
    expect(receipt!.logs).toHaveLength(1)
    expect(code.length).toBeGreaterThan(100)
    // five reads (and ethers' own eth_chainId) in fewer HTTP requests: ethers sent JSON-RPC batches
    expect(httpRequests(devnet) - before).toBeLessThan(5)

    const token = new Contract(
      DEMO_TOKEN_ADDRESS,
      ['function totalSupply() view returns (uint256)', 'function transfer(address,uint256) returns (bool)'],
      provider,
    )
    expect(await token.totalSupply!()).toBe(10n ** 24n)
    const gas = await provider.estimateGas({
      from: ACCOUNT0,
      to: DEMO_TOKEN_ADDRESS,
      data: new Interface(['function transfer(address,uint256)']).encodeFunctionData('transfer', [ACCOUNT1, 1n]),
    })
    expect(gas).toBeGreaterThan(21_000n)
    const block = await provider.getBlock(4, true)
    expect(block!.prefetchedTransactions.map((t) => t.hash)).toContain(DEMO_TRANSFER)
    provider.destroy()
  })

  it('reads a revert reason', async () => {
    const provider = new JsonRpcProvider(devnet.rpcUrl)
    const data = new Interface(['function transferFrom(address,address,uint256)']).encodeFunctionData('transferFrom', [ACCOUNT0, ACCOUNT1, 1n])
    const err = (await provider.call({ from: ACCOUNT1, to: DEMO_TOKEN_ADDRESS, data }).catch((e: unknown) => e)) as { code?: string; data?: string }
    expect(err.code).toBe('CALL_EXCEPTION')
    expect(err.data).toMatch(/^0x[0-9a-f]{8}/)
    provider.destroy()
  })
})

describe.runIf(hasCast)('cast on the devnet', () => {
  it('calls, estimates and builds an access list', async () => {
    expect(await cast(['call', DEMO_TOKEN_ADDRESS, 'totalSupply()(uint256)', '--rpc-url', devnet.rpcUrl])).toBe('1000000000000000000000000 [1e24]')
    const args = [DEMO_TOKEN_ADDRESS, 'transfer(address,uint256)', ACCOUNT1, '1', '--from', ACCOUNT0, '--rpc-url', devnet.rpcUrl]
    const estimate = BigInt(await cast(['estimate', ...args]))
    expect(estimate).toBe(
      BigInt(
        await viem.estimateGas({
          account: ACCOUNT0,
          to: DEMO_TOKEN_ADDRESS,
          data: encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [ACCOUNT1, 1n] }),
        }),
      ),
    )
    const list = await cast(['access-list', ...args, '--json'])
    expect(JSON.parse(list)).toMatchObject({ accessList: [{ address: DEMO_TOKEN_ADDRESS }] })
  })

  it('replays a mined transaction with `cast run` through the read methods', async () => {
    const out = await cast(['run', DEMO_TRANSFER, '--rpc-url', devnet.rpcUrl], { timeoutMs: 120_000 })
    expect(out).toContain('Transaction successfully executed.')
    expect(out).toMatch(/emit Transfer\(from: 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266, to: 0x70997970C51812dc3A010C7d01b50e0d17dc79C8/)
    const receipt = await viem.getTransactionReceipt({ hash: DEMO_TRANSFER })
    expect(out).toContain(`Gas used: ${receipt.gasUsed}`)
  })

  it('shows the refusal of a sending method', async () => {
    await expect(cast(['rpc', 'eth_sendRawTransaction', '0x02', '--rpc-url', devnet.rpcUrl])).rejects.toThrow(/never sends/)
  })
})

describe.runIf(hasAnvil)('real clients on a fork of a real Anvil', () => {
  let chain: ProbeChain
  let fork: RpcApp
  let client: PublicClient
  beforeAll(async () => {
    chain = await startProbeChain()
    fork = await startRpcApp({ rpcUrl: chain.anvil.url })
    client = createPublicClient({ transport: http(fork.rpcUrl) })
  }, 120_000)
  afterAll(async () => {
    await fork?.close()
    await chain?.stop()
  })

  it('viem: call, estimateGas, createAccessList agree with the node', async () => {
    const node = createPublicClient({ transport: http(chain.anvil.url) })
    const read = { address: chain.probe, abi: chain.abi, functionName: 'get' } as const
    expect(await client.readContract(read)).toBe(await node.readContract(read))
    const set = { account: SENDER, to: chain.probe, data: chain.data('set', [5n]) } as const
    const [ours, exact] = await Promise.all([client.estimateGas(set), node.estimateGas(set)])
    expect(ours).toBeGreaterThanOrEqual(exact)
    expect(await client.createAccessList(set)).toEqual(await node.createAccessList(set))
    const receipt = await client.getTransactionReceipt({ hash: chain.minedTx })
    expect(receipt).toEqual(await node.getTransactionReceipt({ hash: chain.minedTx }))
  })

  it('viem: decodes the custom error of a fork contract', async () => {
    const err = await client.simulateContract({ account: OTHER, address: chain.probe, abi: chain.abi, functionName: 'failCustom' }).catch((e: unknown) => e)
    const reverted = (err as BaseError).walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError
    expect(reverted.data?.errorName).toBe('Custom')
    expect(reverted.data?.args).toEqual([42n, getAddress(OTHER)])
  })

  it('ethers: batched reads and a revert reason', async () => {
    const provider = new JsonRpcProvider(fork.rpcUrl)
    const probe = new Contract(chain.probe, chain.abi as never, provider)
    const [value, balance] = await Promise.all([probe.get!(), provider.getBalance(SENDER)])
    expect(value).toBe(11n)
    expect(balance).toBe(BigInt(await chain.anvil.rpc<Hex>('eth_getBalance', [SENDER, 'latest'])))
    const err = (await probe.failWith!('nope').catch((e: unknown) => e)) as { reason?: string }
    expect(err.reason).toBe('nope')
    provider.destroy()
  })

  it.runIf(hasCast)('cast: call, estimate, access-list and run', async () => {
    expect(await cast(['call', chain.probe, 'get()(uint256)', '--rpc-url', fork.rpcUrl])).toBe('11')
    const args = [chain.probe, 'set(uint256)', '5', '--from', SENDER, '--rpc-url', fork.rpcUrl]
    expect(BigInt(await cast(['estimate', ...args]))).toBeGreaterThanOrEqual(BigInt(await cast(['estimate', ...args.slice(0, -1), chain.anvil.url])))
    expect(JSON.parse(await cast(['access-list', ...args, '--json'])).accessList).toEqual(
      JSON.parse(await cast(['access-list', ...args.slice(0, -1), chain.anvil.url, '--json'])).accessList,
    )
    const run = await cast(['run', chain.minedTx, '--rpc-url', fork.rpcUrl], { timeoutMs: 120_000 })
    expect(run).toContain('Transaction successfully executed.')
    expect(run).toContain('Gas used: 28206')
    await expect(cast(['call', chain.probe, 'failWith(string)', 'hi', '--rpc-url', fork.rpcUrl])).rejects.toThrow(/execution reverted: hi/)
  })

  it.runIf(hasCast)("cast: a call with block overrides (alloy's BlockOverrides as eth_call's 4th param) answers as Anvil", async () => {
    const args = [chain.probe, 'blockInfo()(uint256,uint256,address,uint256)', '--block.number', '153', '--block.time', '305419896', '--rpc-url']
    const ours = await cast(['call', ...args, fork.rpcUrl])
    const theirs = await cast(['call', ...args, chain.anvil.url])
    expect(ours.split('\n').slice(0, 2)).toEqual(['153', '305419896 [3.054e8]'])
    expect(ours.split('\n').slice(0, 3)).toEqual(theirs.split('\n').slice(0, 3))
    // BASEFEE: geth runs a call without fee fields at base fee 0 (NoBaseFee); Anvil keeps the block's
    expect(ours.split('\n')[3]).toBe('0')
  })
})

/**
 * The methods the other lanes of the endpoint add (debug_*, trace_*, eth_simulateV1) through the
 * same clients: these run once those tables are assembled into src/rpc/methods/index.ts.
 */
describe.runIf('eth_simulateV1' in rpcMethods)('viem simulateCalls (eth_simulateV1)', () => {
  it('simulates two calls on the devnet', async () => {
    const { results } = await viem.simulateCalls({
      account: ACCOUNT0,
      calls: [
        { to: DEMO_TOKEN_ADDRESS, abi: erc20, functionName: 'transfer', args: [ACCOUNT1, 1n] },
        { to: DEMO_TOKEN_ADDRESS, abi: erc20, functionName: 'balanceOf', args: [ACCOUNT1] },
      ],
    })
    expect(results.map((r) => r.status)).toEqual(['success', 'success'])
    expect(results[1]!.result).toBe(1000n * 10n ** 18n + 1n - 250n * 10n ** 18n)
  })
})

describe.runIf('debug_traceTransaction' in rpcMethods)('debug methods through viem request and cast rpc', () => {
  it('traces the demo transfer with the callTracer', async () => {
    const trace = (await viem.request({ method: 'debug_traceTransaction', params: [DEMO_TRANSFER, { tracer: 'callTracer' }] } as never)) as {
      type: string
      to: string
    }
    expect(trace).toMatchObject({ type: 'CALL', to: DEMO_TOKEN_ADDRESS })
    if (hasCast) {
      const out = JSON.parse(await cast(['rpc', 'debug_traceTransaction', DEMO_TRANSFER, '{"tracer":"callTracer"}', '--rpc-url', devnet.rpcUrl]))
      expect(out).toEqual(trace)
    }
  })
})

describe.runIf('trace_replayBlockTransactions' in rpcMethods)('trace_replayBlockTransactions through viem request', () => {
  type Delta = '=' | { '+': Hex } | { '*': { from: Hex; to: Hex } }
  type Entry = {
    output: Hex
    stateDiff: Record<string, { balance: Delta; nonce: Delta; code: Delta; storage: Record<Hex, Delta> }>
    trace: unknown[]
    vmTrace: null
    transactionHash: Hex
  }
  const from = (d: Delta | undefined) => (d && d !== '=' && '*' in d ? d['*'].from : undefined)
  const to = (d: Delta | undefined) => (d && d !== '=' && '*' in d ? d['*'].to : undefined)

  it("replays the devnet's block 4 (two DEMO transfers): each diff picks up where the previous one ended, the ends are the chain's own state reads", async () => {
    const entries = (await viem.request({ method: 'trace_replayBlockTransactions', params: ['0x4', ['stateDiff']] } as never)) as Entry[]
    expect(entries.map((e) => e.transactionHash)).toEqual([DEMO_TRANSFER, '0xdfc2c5c9fea5f9d7bc4ed8a0e7300b5da54dd6a339a5fca1bb6b195fc3efbc01'])
    expect(entries.map((e) => [e.trace, e.vmTrace])).toEqual([
      [[], null],
      [[], null],
    ])
    const [first, second] = entries as [Entry, Entry]
    // account 0 sent both: its balance and nonce run block 3 → tx 0 → tx 1 → block 4
    const sender = [first.stateDiff[ACCOUNT0]!, second.stateDiff[ACCOUNT0]!]
    expect(from(sender[0]!.balance)).toBe(`0x${(await viem.getBalance({ address: ACCOUNT0, blockNumber: 3n })).toString(16)}`)
    expect(from(sender[1]!.balance)).toBe(to(sender[0]!.balance))
    expect(to(sender[1]!.balance)).toBe(`0x${(await viem.getBalance({ address: ACCOUNT0, blockNumber: 4n })).toString(16)}`)
    expect(from(sender[0]!.nonce)).toBe(`0x${(await viem.getTransactionCount({ address: ACCOUNT0, blockNumber: 3n })).toString(16)}`)
    expect(to(sender[1]!.nonce)).toBe(`0x${(await viem.getTransactionCount({ address: ACCOUNT0, blockNumber: 4n })).toString(16)}`)
    // the token's written slots: account 0's balance slot is in both, read at both ends
    const token = DEMO_TOKEN_ADDRESS.toLowerCase()
    const shared = Object.keys(first.stateDiff[token]!.storage).filter((k) => k in second.stateDiff[token]!.storage) as Hex[]
    expect(shared).toHaveLength(1)
    const slot = shared[0]!
    expect(from(first.stateDiff[token]!.storage[slot])).toBe(await viem.getStorageAt({ address: DEMO_TOKEN_ADDRESS, slot, blockNumber: 3n }))
    expect(from(second.stateDiff[token]!.storage[slot])).toBe(to(first.stateDiff[token]!.storage[slot]))
    expect(to(second.stateDiff[token]!.storage[slot])).toBe(await viem.getStorageAt({ address: DEMO_TOKEN_ADDRESS, slot, blockNumber: 4n }))
    expect(first.stateDiff[token]!.code).toBe('=')
  })
})
