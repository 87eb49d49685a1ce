/**
 * The engine forking a real Anvil (rpcUrl = anvil.url): what we simulate equals what Anvil mines.
 * Each scenario is also sent to Anvil inside evm_snapshot/evm_revert, and the receipt's status,
 * gasUsed and logs (and eth_call's returnData) must equal ours. Access lists are compared with
 * Anvil's eth_createAccessList — sorted, since Anvil does not sort (geth-reference §5.12).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeDeployData, encodeFunctionData, keccak256, encodeAbiParameters, toHex, type Address, type Hex } from 'viem'
import { createMemoryCacheStore } from '../../../../host/cache/memoryCacheStore.js'
import { createEngine } from '../../../../engine/index.js'
import type { CallInput, Engine, SimulateParams } from '../../../../engine/types.js'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../../../support/anvil.js'
import { engineContracts } from '../../contracts.js'
import { ON_CHAIN } from '../../../../engine/types.js'

const [A, B, C] = DEV_ACCOUNTS as unknown as [Address, Address, Address]
const z = engineContracts()
const GAS = 1_000_000n

let anvil: AnvilInstance | undefined
let engine: Engine | undefined
let token: Address
let probe: Address

interface Receipt {
  status: Hex
  gasUsed: Hex
  contractAddress: Address | null
  logs: { address: Address; topics: Hex[]; data: Hex }[]
}

async function receiptOf(hash: Hex): Promise<Receipt> {
  for (let i = 0; i < 200; i++) {
    const r = await anvil!.rpc<Receipt | null>('eth_getTransactionReceipt', [hash])
    if (r) return r
    await new Promise((res) => setTimeout(res, 10))
  }
  throw new Error(`no receipt for ${hash}`)
}

const rpcTx = (c: CallInput) => ({
  from: c.from,
  ...(c.to && { to: c.to }),
  data: c.data,
  gas: toHex(c.gas ?? GAS),
  ...(c.value !== undefined && { value: toHex(c.value) }),
  ...(c.gasPrice !== undefined && { gasPrice: toHex(c.gasPrice) }),
})

async function send(c: CallInput): Promise<Receipt> {
  return receiptOf(await anvil!.rpc<Hex>('eth_sendTransaction', [rpcTx(c)]))
}

/** what Anvil mines for these calls, in order, leaving its chain as it was */
async function anvilRun(calls: CallInput[]): Promise<Receipt[]> {
  const snap = await anvil!.rpc<Hex>('evm_snapshot')
  try {
    const out: Receipt[] = []
    for (const c of calls) out.push(await send(c))
    return out
  } finally {
    await anvil!.rpc('evm_revert', [snap])
  }
}

const params = (calls: CallInput[], extra: Partial<SimulateParams> = {}): SimulateParams => ({
  calls,
  block: { tag: 'latest' },
  validation: false,
  traceTransfers: false,
  traceAssetChanges: false,
  ...extra,
})
const call = (name: 'Token' | 'Probe', to: Address, functionName: string, args: unknown[] = [], extra: Partial<CallInput> = {}): CallInput => ({
  from: A,
  to,
  data: encodeFunctionData({ abi: z[name]!.abi, functionName, args } as never),
  gas: GAS,
  ...extra,
})

beforeAll(async () => {
  if (!requireAnvil()) return
  anvil = await startAnvil()
  token = (await send({ from: A, data: encodeDeployData({ abi: z.Token!.abi, bytecode: z.Token!.bytecode, args: [10n ** 24n] }), gas: 3_000_000n }))
    .contractAddress!
  probe = (await send({ from: A, data: z.Probe!.bytecode, gas: 3_000_000n })).contractAddress!
  await send(call('Token', token, 'transfer', [probe, 10n ** 21n]))
  engine = await createEngine({
    rpcUrl: anvil.url,
    cache: createMemoryCacheStore(),
    gasCap: 30_000_000n,
    rpcTimeoutMs: 5_000,
    maxStructLogSteps: 50_000,
    simulationTtlSeconds: 60,
  })
}, 60_000)
afterAll(async () => {
  await engine?.close()
  await anvil?.stop()
})

/** the scenario of each test: our simulation next to what Anvil mined */
async function compare(calls: CallInput[], extra: Partial<SimulateParams> = {}) {
  const ours = await engine!.simulate(ON_CHAIN, params(calls, extra))
  const theirs = await anvilRun(calls)
  ours.calls.forEach((c, i) => {
    const r = theirs[i]!
    expect(c.status === 'success', `call ${i} status`).toBe(r.status === '0x1')
    expect(c.gasUsed, `call ${i} gasUsed`).toBe(r.gasUsed)
    expect(
      c.logs.map(({ address, topics, data }) => ({ address, topics, data })),
      `call ${i} logs`,
    ).toEqual(r.logs.map((l) => ({ address: l.address.toLowerCase(), topics: l.topics, data: l.data })))
    if (r.contractAddress) expect(c.contractAddress).toBe(r.contractAddress.toLowerCase())
  })
  return ours
}

describe('engine over an Anvil fork equals Anvil', () => {
  it('has a real Anvil', () => expect(anvil, 'Anvil missing').toBeDefined())

  it('token transfer: gasUsed, logs and returnData', async () => {
    const c = call('Token', token, 'transfer', [B, 12345n])
    const ours = await compare([c])
    expect(ours.calls[0]!.returnData).toBe(await anvil!.rpc<Hex>('eth_call', [rpcTx(c), 'latest']))
    expect(ours.calls[0]!.logs[0]!.decoded?.summary).toMatch(/^Transfer 0\.000000000000012345 TKN from 0xf39f…2266 to 0x7099…79c8$/)
  })

  it('nested calls, state carried between calls, and a revert with a custom error', async () => {
    const ours = await compare([
      call('Probe', probe, 'nested', [token, C, 5n]),
      call('Probe', probe, 'nested', [token, C, 7n]),
      call('Token', token, 'transfer', [A, 1n], { from: C }),
      call('Token', token, 'transfer', [A, 10n ** 30n], { from: B }),
    ])
    expect(ours.calls.map((c) => c.status)).toEqual(['success', 'success', 'success', 'reverted'])
    expect(BigInt(ours.calls[1]!.returnData)).toBe(2n)
    expect(ours.calls[3]!.error?.revertData?.slice(0, 10)).toBe(keccak256(toHex('Short(uint256,uint256)')).slice(0, 10))
  })

  it('reverts with Error(string) and Panic, with geth’s panic text and the reverting contract', async () => {
    const ours = await compare([call('Probe', probe, 'check', [11n]), call('Probe', probe, 'check', [0n])])
    expect(ours.calls[0]!.error).toMatchObject({ revertReason: 'too big', contractAddress: probe })
    expect(ours.calls[1]!.error?.revertReason).toBe('division or modulo by zero')
    expect(ours.status).toBe('reverted')
  })

  it('the contract that reverted is the inner one, and a caught inner revert changes nothing', async () => {
    const inner = await engine!.simulate(ON_CHAIN, params([call('Probe', probe, 'nested', [token, C, 10n ** 30n])]))
    expect(inner.calls[0]!.error?.contractAddress).toBe(token)
    await compare([call('Probe', probe, 'tryMove', [token])])
  })

  it('contract creation, directly and from a contract, with value', async () => {
    const deploy = encodeDeployData({ abi: z.Child!.abi, bytecode: z.Child!.bytecode, args: [9n] })
    await compare([{ from: B, data: deploy, gas: GAS }, call('Probe', probe, 'make', [3n], { value: 1000n })])
  })

  it('value transfers through a contract', async () => {
    const ours = await compare([call('Probe', probe, 'forward', [C], { value: 10n ** 18n }), { from: B, to: C, data: '0x', value: 1n, gas: 21_000n }], {
      traceTransfers: true,
    })
    expect(ours.calls[0]!.transfers).toEqual([
      { type: 'native', token: null, from: A, to: probe, amount: toHex(10n ** 18n) },
      { type: 'native', token: null, from: probe, to: C, amount: toHex(10n ** 18n) },
    ])
  })

  it('state overrides equal eth_call with the same overrides', async () => {
    const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [B, 0n]))
    const c = call('Token', token, 'balanceOf', [B])
    const value = toHex(777n, { size: 32 })
    const ours = await engine!.simulate(ON_CHAIN, params([c], { stateOverrides: { [token]: { stateDiff: { [slot]: value } } } }))
    const theirs = await anvil!.rpc<Hex>('eth_call', [rpcTx(c), 'latest', { [token]: { stateDiff: { [slot]: value } } }])
    expect(ours.calls[0]!.returnData).toBe(theirs)
    expect(BigInt(theirs)).toBe(777n)
    const coded = await engine!.simulate(ON_CHAIN, params([{ ...c, to: C }], { stateOverrides: { [C]: { code: z.Token!.deployedBytecode } } }))
    expect(coded.calls[0]!.returnData).toBe(toHex(0n, { size: 32 }))
  })

  it('block overrides reach the EVM like eth_call’s', async () => {
    // with a gas price: at price 0 geth's eth_call zeroes BASEFEE (NoBaseFee) while Anvil keeps it
    const c = call('Probe', probe, 'env', [], { gasPrice: 10n })
    const o = { number: 4242n, time: 1_900_000_000n, baseFee: 7n, coinbase: C }
    const ours = await engine!.simulate(ON_CHAIN, params([c], { blockOverrides: o }))
    const theirs = await anvil!.rpc<Hex>('eth_call', [
      rpcTx(c),
      'latest',
      null,
      { number: toHex(o.number), time: toHex(o.time), baseFee: toHex(o.baseFee), coinbase: C },
    ])
    expect(ours.calls[0]!.returnData).toBe(theirs)
    expect(BigInt(`0x${theirs.slice(2, 66)}`)).toBe(4242n)
  })

  it('BLOCKHASH of earlier blocks equals Anvil’s', async () => {
    for (const back of [1n, 2n]) {
      const c = call('Probe', probe, 'prevHash', [back])
      const ours = await engine!.simulate(ON_CHAIN, params([c]))
      const theirs = await anvil!.rpc<Hex>('eth_call', [rpcTx(c), 'latest'])
      expect(ours.calls[0]!.returnData).toBe(theirs)
      expect(BigInt(theirs)).not.toBe(0n)
    }
  })

  it('out of gas: status failed, the exact gasRequired', async () => {
    const c = call('Probe', probe, 'burn', [50n], { gas: 40_000n })
    const ours = await compare([c])
    const required = BigInt(ours.calls[0]!.error!.gasRequired!)
    const [ok] = await anvilRun([{ ...c, gas: required }])
    const [short] = await anvilRun([{ ...c, gas: required - 1n }])
    expect(ok!.status).toBe('0x1')
    expect(short!.status).toBe('0x0')
  })

  it('access lists equal Anvil’s eth_createAccessList (sorted) and carry the gas used with the list', async () => {
    const deployChild: CallInput = { from: B, data: encodeDeployData({ abi: z.Child!.abi, bytecode: z.Child!.bytecode, args: [1n] }) }
    const cases: CallInput[] = [
      call('Probe', probe, 'nested', [token, C, 5n]),
      call('Token', token, 'transfer', [B, 1n]),
      { from: A, to: B, data: '0x' },
      call('Probe', probe, 'make', [2n], { value: 5n }),
      deployChild,
    ]
    for (const c of cases) {
      const ours = await engine!.accessList(ON_CHAIN, { call: { ...c, gas: undefined }, block: { tag: 'latest' } })
      const theirs = await anvil!.rpc<{ accessList: { address: Address; storageKeys: Hex[] }[]; gasUsed: Hex }>('eth_createAccessList', [
        { from: c.from, ...(c.to && { to: c.to }), data: c.data, ...(c.value !== undefined && { value: toHex(c.value) }) },
        'latest',
      ])
      // Anvil does not sort (geth-reference §5.12); geth and we do
      const sorted = theirs.accessList
        .map((e) => ({ address: e.address.toLowerCase(), storageKeys: [...e.storageKeys].sort() }))
        .sort((x, y) => (x.address < y.address ? -1 : 1))
      expect(ours.accessList).toEqual(sorted)
      expect(ours.gasUsed).toBe(theirs.gasUsed)
      expect(ours.error).toBeUndefined()
    }
    const failing = await engine!.accessList(ON_CHAIN, { call: call('Probe', probe, 'check', [11n]), block: { tag: 'latest' } })
    expect(failing.error).toBe('execution reverted')
    expect(failing.accessList).toEqual([]) // check() is pure: nothing to list
  })

  it('20 concurrent simulations answer what 20 sequential ones do', async () => {
    const requests = Array.from({ length: 20 }, (_, i) =>
      params([
        call('Token', token, 'transfer', [C, BigInt(i + 1)]),
        call('Probe', probe, 'nested', [token, B, BigInt(i)]),
        call('Probe', probe, 'check', [BigInt(i % 12)]),
      ]),
    )
    const strip = (r: Awaited<ReturnType<Engine['simulate']>>) => ({ ...r, simulationId: '' })
    const sequential = []
    for (const p of requests) sequential.push(strip(await engine!.simulate(ON_CHAIN, p)))
    const concurrent = (await Promise.all(requests.map((p) => engine!.simulate(ON_CHAIN, p)))).map(strip)
    expect(concurrent).toEqual(sequential)
    expect(new Set(sequential.map((r) => r.status))).toEqual(new Set(['success', 'reverted']))
  })

  // last: it mines a block of its own on Anvil
  it('traces a mined transaction of a multi-transaction block: replayed after the earlier ones, receipt gas', async () => {
    await anvil!.rpc('evm_setAutomine', [false])
    let hashes: Hex[]
    try {
      hashes = [
        await anvil!.rpc<Hex>('eth_sendTransaction', [rpcTx(call('Token', token, 'transfer', [B, 100n]))]),
        // B can only pay because the first transaction of the block funded it
        await anvil!.rpc<Hex>('eth_sendTransaction', [rpcTx(call('Token', token, 'transfer', [C, 60n], { from: B }))]),
      ]
      await anvil!.rpc('evm_mine')
    } finally {
      await anvil!.rpc('evm_setAutomine', [true])
    }
    const [r1, r2] = await Promise.all(hashes.map(receiptOf))
    expect((r1 as unknown as { blockNumber: Hex }).blockNumber).toBe((r2 as unknown as { blockNumber: Hex }).blockNumber)
    const traced = (await engine!.traceTransaction(ON_CHAIN, hashes[1]!, { callTracer: { withLog: true } })).callTracer as Record<string, unknown>
    expect(traced.error).toBeUndefined()
    expect(traced.gasUsed).toBe(r2!.gasUsed)
    expect(traced.from).toBe(B)
    expect((traced.logs as unknown[]).length).toBe(1)
    await expect(engine!.traceTransaction(ON_CHAIN, `0x${'ab'.repeat(32)}`, { callTracer: {} })).rejects.toMatchObject({ code: 'TRANSACTION_NOT_FOUND' })
  })
})
