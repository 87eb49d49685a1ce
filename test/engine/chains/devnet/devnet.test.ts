/**
 * The embedded devnet and the engine over it: deterministic demo history (the README quotes these
 * hashes), simulations with decoded logs, revert reasons, the contract that reverted, the exact
 * gasRequired of an out-of-gas call, validation rules, stored simulations, block selection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeFunctionData, parseAbi, toHex, type Address, type Hex } from 'viem'
import { createMemoryCacheStore } from '../../../../host/cache/memoryCacheStore.js'
import { DEV_ACCOUNTS } from '../../../../engine/chains/memory/accounts.js'
import { createDevnet, type Devnet } from '../../../../engine/chains/devnet/devnetChain.js'
import { DEMO_NFT_ADDRESS, DEMO_TOKEN_ADDRESS } from '../../../../engine/chains/devnet/demoTransactions.js'
import { EngineError } from '../../../../engine/platform/errors.js'
import { createEngine } from '../../../../engine/index.js'
import type { Engine, SimulateParams } from '../../../../engine/types.js'
import { DEV_ACCOUNTS as ANVIL_ACCOUNTS } from '../../../support/anvil.js'
import { ON_CHAIN } from '../../../../engine/types.js'

const erc20 = parseAbi([
  'function transfer(address,uint256) returns (bool)',
  'function transferFrom(address,address,uint256) returns (bool)',
  'function balanceOf(address) view returns (uint256)',
])
const [A, B, C] = DEV_ACCOUNTS.map((a) => a.address) as [Address, Address, Address]
const transfer = (to: Address, amount: bigint) => encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [to, amount] })

let devnet: Devnet
let engine: Engine
beforeAll(async () => {
  devnet = await createDevnet()
  engine = await createEngine({
    cache: createMemoryCacheStore(),
    gasCap: 30_000_000n,
    rpcTimeoutMs: 5_000,
    maxStructLogSteps: 50_000,
    simulationTtlSeconds: 60,
  })
})
afterAll(() => engine?.close())

const params = (calls: SimulateParams['calls'], extra: Partial<SimulateParams> = {}): SimulateParams => ({
  calls,
  block: { tag: 'latest' },
  validation: false,
  traceTransfers: false,
  traceAssetChanges: false,
  ...extra,
})

describe('devnet', () => {
  it('funds the well-known dev accounts (the same as Anvil’s)', () => {
    expect(DEV_ACCOUNTS.map((a) => a.address)).toEqual([...ANVIL_ACCOUNTS])
  })

  it('mines the same demo history on every start: same hashes, the demo contracts at their addresses', async () => {
    const again = await createDevnet()
    const hashes = devnet.receipts().map((r) => r.transactionHash)
    expect(again.receipts().map((r) => r.transactionHash)).toEqual(hashes)
    // the hashes engine/chains/devnet/DEMO.md (and the README) quote
    expect(hashes).toEqual([
      '0x9432b7f5188870b7e2049cbcf923b3cccde544e2f4d1969b07fe7562f04ed467',
      '0xdaf8f591fdab66eab787d05f05e9abdee8d148235baf8fdcd44d98ac7ae07261',
      '0x7edd5950c86c90d3db8777bbc10133faf86cfcfe800081eefa347b22910287a3',
      '0x35381ec45d5995b068d291d0287d74b54e7ada93f06c0d94b2bbf967a5836d18',
      '0x8849d23607d7c87b58414fda583340f2c2b6393f2461223972e42e81c7fda23b',
      '0xdfc2c5c9fea5f9d7bc4ed8a0e7300b5da54dd6a339a5fca1bb6b195fc3efbc01',
      '0x54846e8c7173231310afc77f5aa2d1035a131625870cd3bdd37ae4b32f56e34a',
      '0x35d04f08cdfb3bee622fa1daf8ab0a842997149863fb51a961dffd838a24c161',
      '0x7bb5a82b2264be0839c3229a8dfc3e12202fb898730b9cbd3b1bdb5f17c5247b',
    ])
    expect(devnet.receipts().every((r) => r.status === 'success')).toBe(true)
    expect(devnet.receipts()[0]!.contractAddress).toBe(DEMO_TOKEN_ADDRESS)
    expect(devnet.receipts()[1]!.contractAddress).toBe(DEMO_NFT_ADDRESS)
    expect(devnet.head()).toBe(6n)
    const head = await devnet.resolveBlock({ tag: 'latest' })
    expect((await again.resolveBlock({ tag: 'latest' })).hash).toBe(head.hash)
    const tx = await devnet.getTransaction(hashes[3]!)
    expect(tx?.from).toBe(A)
    expect(tx?.blockNumber).toBe(3n)
  })

  it('runs on an operator’s fork (London on), the same history; refuses older forks clearly', async () => {
    const cancun = await createDevnet({ hardfork: 'cancun' })
    expect(cancun.hardfork).toBe('cancun')
    expect(cancun.receipts().map((r) => r.gasUsed)).toEqual(devnet.receipts().map((r) => r.gasUsed))
    expect((await createDevnet({ hardfork: '' })).hardfork).toBe('osaka')
    await expect(createDevnet({ hardfork: 'berlin' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' })
  })

  it('answers BLOCK_NOT_FOUND beyond the head and resolves earliest to genesis', async () => {
    await expect(devnet.resolveBlock({ number: 7n })).rejects.toMatchObject({ code: 'BLOCK_NOT_FOUND' })
    expect((await devnet.resolveBlock({ tag: 'earliest' })).number).toBe(0n)
  })
})

describe('engine over the devnet', () => {
  it('simulates a token transfer with a decoded log, transfers, asset changes, and stores it', async () => {
    const r = await engine.simulate(
      ON_CHAIN,
      params([{ from: B, to: DEMO_TOKEN_ADDRESS, data: transfer(C, 10n ** 18n) }], { traceTransfers: true, traceAssetChanges: true, account: C }),
    )
    expect(r.simulationId).toMatch(/^sim_[0-9a-f-]{36}$/)
    expect(r.status).toBe('success')
    expect(r.blockNumber).toBe('0x6')
    const call = r.calls[0]!
    expect(call.returnData).toBe(toHex(1n, { size: 32 }))
    expect(call.logs[0]!.decoded?.summary).toBe('Transfer 1 DEMO from 0x7099…79c8 to 0x3c44…93bc')
    expect(call.transfers).toEqual([
      { type: 'erc20', token: DEMO_TOKEN_ADDRESS, from: B, to: C, amount: toHex(10n ** 18n), name: 'Demo Token', symbol: 'DEMO', decimals: 18, formatted: '1' },
    ])
    expect(r.assetChanges?.[0]).toMatchObject({ account: C, token: DEMO_TOKEN_ADDRESS, delta: (10n ** 18n).toString() })
    expect(await engine.getSimulation(ON_CHAIN, r.simulationId)).toEqual(r)
    expect(await engine.getSimulation(ON_CHAIN, 'sim_00000000-0000-4000-8000-000000000000')).toBeUndefined()
  })

  it('runs calls in order on one state and numbers logs across the simulation', async () => {
    // B holds 1000 DEMO after block 4 and sent 250 in block 5: 750 left; move it all, then once more
    const r = await engine.simulate(
      ON_CHAIN,
      params([
        { from: B, to: DEMO_TOKEN_ADDRESS, data: transfer(C, 750n * 10n ** 18n) },
        { from: C, to: DEMO_TOKEN_ADDRESS, data: transfer(A, 1n) },
        { from: B, to: DEMO_TOKEN_ADDRESS, data: transfer(C, 1n) },
      ]),
    )
    expect(r.calls.map((c) => c.status)).toEqual(['success', 'success', 'reverted'])
    expect(r.status).toBe('reverted')
    expect(r.calls[1]!.logs[0]!.logIndex).toBe('0x1')
    expect(BigInt(r.gasUsed)).toBe(r.calls.reduce((s, c) => s + BigInt(c.gasUsed), 0n))
    // custom error of the demo token, decoded with its ABI
    expect(r.calls[2]!.error).toMatchObject({
      message: 'execution reverted',
      revertReason: `InsufficientBalance(${B}, 0, 1)`,
      contractAddress: DEMO_TOKEN_ADDRESS,
    })
  })

  it('decodes Error(string) reverts', async () => {
    const data = encodeFunctionData({ abi: erc20, functionName: 'transferFrom', args: [A, B, 1n] })
    const r = await engine.simulate(ON_CHAIN, params([{ from: C, to: DEMO_TOKEN_ADDRESS, data }]))
    expect(r.calls[0]!.error?.revertReason).toBe('DEMO: allowance exceeded')
    expect(r.calls[0]!.error?.revertData?.slice(0, 10)).toBe('0x08c379a0')
  })

  it('gives the exact lowest gas limit for an out-of-gas call', async () => {
    const r = await engine.simulate(ON_CHAIN, params([{ from: A, to: DEMO_TOKEN_ADDRESS, data: transfer(B, 1n), gas: 25_000n }]))
    const err = r.calls[0]!.error!
    expect(r.calls[0]!.status).toBe('failed')
    expect(err.message).toMatch(/^out of gas/) // geth may add the cause, e.g. ': not enough gas for reentrancy sentry'
    const required = BigInt(err.gasRequired!)
    const at = (gas: bigint) => engine.simulate(ON_CHAIN, params([{ from: A, to: DEMO_TOKEN_ADDRESS, data: transfer(B, 1n), gas }]))
    expect((await at(required)).status).toBe('success')
    expect((await at(required - 1n)).status).toBe('failed')
  })

  it('a gas limit below intrinsic gas is INSUFFICIENT_GAS naming the call and the gas it needs', async () => {
    const err = await engine
      .simulate(
        ON_CHAIN,
        params([
          { from: A, to: B, data: '0x', value: 1n },
          { from: A, to: DEMO_TOKEN_ADDRESS, data: transfer(B, 1n), gas: 21_000n },
        ]),
      )
      .catch((e: unknown) => e)
    expect(err).toMatchObject({ code: 'INSUFFICIENT_GAS', details: { callIndex: 1 } })
    expect(BigInt((err as EngineError).details!.gasRequired as string)).toBeGreaterThan(21_000n)
  })

  it('validation=true rejects a wrong nonce and an unaffordable fee, naming the call', async () => {
    const good = { from: A, to: B, data: '0x' as Hex, value: 1n, nonce: 7n, maxFeePerGas: 10n ** 9n, maxPriorityFeePerGas: 0n }
    // without a gas limit, each call gets what the block has left: two calls fit one block
    const ok = await engine.simulate(ON_CHAIN, params([good, { ...good, nonce: 8n }], { validation: true }))
    expect(ok.calls.map((c) => c.status)).toEqual(['success', 'success'])
    const err = await engine.simulate(ON_CHAIN, params([good, { ...good, nonce: 7n }], { validation: true })).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(EngineError)
    expect(err).toMatchObject({ code: 'VALIDATION_ERROR', details: { callIndex: 1 } })
    expect((err as Error).message).toMatch(/^calls\[1\]: .*nonce/i)
    const poor = await engine
      .simulate(ON_CHAIN, params([{ ...good, from: '0x000000000000000000000000000000000000dead', nonce: 0n }], { validation: true }))
      .catch((e: unknown) => e)
    expect(poor).toMatchObject({ code: 'VALIDATION_ERROR', details: { callIndex: 0 } })
  })

  it('simulates on an older block and applies state and block overrides', async () => {
    // before block 4, B had no DEMO at all
    const balance = encodeFunctionData({ abi: erc20, functionName: 'balanceOf', args: [B] })
    const old = await engine.simulate(ON_CHAIN, params([{ from: A, to: DEMO_TOKEN_ADDRESS, data: balance }], { block: { number: 3n } }))
    expect(old.blockNumber).toBe('0x3')
    expect(BigInt(old.calls[0]!.returnData)).toBe(0n)
    const rich = await engine.simulate(
      ON_CHAIN,
      params([{ from: '0x00000000000000000000000000000000000000aa', to: B, data: '0x', value: 5n * 10n ** 18n }], {
        stateOverrides: { '0x00000000000000000000000000000000000000aa': { balance: 10n ** 19n } },
        blockOverrides: { number: 100n, time: 2_000_000_000n },
      }),
    )
    expect(rich.status).toBe('success')
    expect(rich.calls[0]!.gasUsed).toBe(toHex(21_000n))
  })

  it('creates a contract and reports its address', async () => {
    // init code returning one STOP byte as runtime code: PUSH1 1 PUSH1 0 ... (returns 0x00)
    const init: Hex = '0x60016000f3'
    const r = await engine.simulate(ON_CHAIN, params([{ from: A, data: init }]))
    expect(r.status).toBe('success')
    expect(r.calls[0]!.contractAddress).toMatch(/^0x[0-9a-f]{40}$/)
  })

  it('shape B: steps, storage changes of a transfer, logs, success', async () => {
    const r = await engine.simulateSteps(ON_CHAIN, {
      call: { from: B, to: DEMO_TOKEN_ADDRESS, data: transfer(C, 5n) },
      block: { tag: 'latest' },
      traceConfig: { enableStorage: true, enableMemory: true },
    })
    expect(r.success).toBe(true)
    expect(r.returnValue).toBe(toHex(1n, { size: 32 }))
    expect(r.trace.steps.length).toBeGreaterThan(50)
    const slots = Object.values(r.trace.storageChanges[DEMO_TOKEN_ADDRESS] ?? {})
    expect(slots).toHaveLength(2)
    expect(slots.map((s) => BigInt(s.after) - BigInt(s.before)).sort()).toEqual([-5n, 5n])
    expect(r.trace.memoryChanges.length).toBeGreaterThan(0)
    expect(r.logs[0]!.decoded?.name).toBe('Transfer')
    expect(r.gasLimit).toBe(toHex(30_000_000n))
  })

  it('traces a demo transaction by its hash (callTracer with logs)', async () => {
    const hash = devnet.receipts()[4]!.transactionHash
    const t = (await engine.traceTransaction(ON_CHAIN, hash, { callTracer: { withLog: true } })).callTracer as Record<string, unknown>
    expect(t).toMatchObject({ from: A, to: DEMO_TOKEN_ADDRESS, type: 'CALL', gasUsed: toHex(devnet.receipts()[4]!.gasUsed) })
    expect((t.logs as unknown[]).length).toBe(1)
  })

  it('concurrent simulations on the shared block state answer what sequential ones do', async () => {
    const requests = Array.from({ length: 20 }, (_, i) =>
      params([
        { from: B, to: DEMO_TOKEN_ADDRESS, data: transfer(C, BigInt(i) * 10n ** 20n) },
        { from: C, to: A, data: '0x', value: BigInt(i) },
      ]),
    )
    const strip = (r: Awaited<ReturnType<Engine['simulate']>>) => ({ ...r, simulationId: '' })
    const sequential = []
    for (const p of requests) sequential.push(strip(await engine.simulate(ON_CHAIN, p)))
    const concurrent = (await Promise.all(requests.map((p) => engine.simulate(ON_CHAIN, p)))).map(strip)
    expect(concurrent).toEqual(sequential)
    // 750 DEMO left for B: transfers of 800+ revert, so both outcomes are exercised
    expect(new Set(sequential.map((r) => r.status))).toEqual(new Set(['success', 'reverted']))
  })

  it('rejects an empty call list', async () => {
    await expect(engine.simulate(ON_CHAIN, params([]))).rejects.toMatchObject({ code: 'VALIDATION_ERROR' })
  })
})
