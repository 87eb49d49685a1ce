/**
 * Decoded logs, transfers and asset changes end to end through the Engine, forking a real Anvil
 * (createEngine with rpcUrl = anvil.url). The contracts are deployed on Anvil by real
 * transactions; the simulated calls never touch Anvil's chain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeFunctionData, parseEther, toHex, type Address } from 'viem'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../../../support/anvil.js'
import { createMemoryCacheStore } from '../../../../host/cache/memoryCacheStore.js'
import type { Engine, SimulateParams } from '../../../../engine/types.js'
import { createEngine } from '../../../../engine/index.js'
import { contracts } from '../../decoding/contracts.js'
import { chain } from '../../decoding/anvilChain.js'
import { ON_CHAIN } from '../../../../engine/types.js'

const [A, B, C] = DEV_ACCOUNTS as unknown as Address[]
const z = contracts()

let anvil: AnvilInstance | undefined
let engine: Engine | undefined
const addr: Record<string, Address> = {}

beforeAll(async () => {
  if (!requireAnvil()) return
  anvil = await startAnvil()
  const c = chain(anvil)
  addr.token = await c.deploy(A!, z.Token!, ['DEMO', 18, parseEther('1000000')])
  addr.fee = await c.deploy(A!, z.FeeToken!, [parseEther('1000000')])
  addr.fwd = await c.deploy(A!, z.Forwarder!)
  addr.rejecter = await c.deploy(A!, z.Rejecter!)
  addr.doomed = await c.deploy(A!, z.Doomed!, [], parseEther('2'))
  addr.sink = await c.deploy(A!, z.Sink!)
  addr.delegator = await c.deploy(A!, z.Delegator!)
  addr.factory = await c.deploy(A!, z.TokenFactory!)
  await c.call(A!, addr.token, z.Token!.abi, 'transfer', [addr.fwd, parseEther('10')])
  engine = await createEngine({
    rpcUrl: anvil.url,
    cache: createMemoryCacheStore(),
    gasCap: 30_000_000n,
    rpcTimeoutMs: 10_000,
    maxStructLogSteps: 100_000,
    simulationTtlSeconds: 60,
  })
})
afterAll(async () => {
  await engine?.close()
  await anvil?.stop()
})

const data = (name: keyof typeof z, functionName: string, args: unknown[] = []) => encodeFunctionData({ abi: z[name]!.abi, functionName, args } as never)

// An explicit gas limit per call: what this file tests is decoding, not the default gas rule.
function params(calls: SimulateParams['calls'], extra: Partial<SimulateParams> = {}): SimulateParams {
  return {
    calls: calls.map((c) => ({ gas: 1_000_000n, ...c })),
    block: { tag: 'latest' },
    validation: false,
    traceTransfers: true,
    traceAssetChanges: false,
    ...extra,
  }
}

describe('Engine.simulate: decoded logs, transfers, asset changes', () => {
  it('has a real Anvil and an engine', () => {
    expect(anvil, 'Anvil missing').toBeDefined()
    expect(engine).toBeDefined()
  })

  it('decodes a Transfer with the token’s symbol and decimals read from the simulated state', async () => {
    const result = await engine!.simulate(ON_CHAIN, params([{ from: A!, to: addr.token, data: data('Token', 'transfer', [B, parseEther('1.5')]) }]))
    expect(result.status).toBe('success')
    const [log] = result.calls[0]!.logs
    expect(log?.decoded).toEqual({
      name: 'Transfer',
      signature: 'Transfer(address,address,uint256)',
      args: { from: A, to: B, value: parseEther('1.5').toString() },
      summary: 'Transfer 1.5 DEMO from 0xf39f…2266 to 0x7099…79c8',
    })
    expect(result.calls[0]!.transfers).toEqual([{ type: 'erc20', token: addr.token, from: A, to: B, amount: toHex(parseEther('1.5')) }])
  })

  it('reports internal native transfers, and none of a reverted inner call', async () => {
    const result = await engine!.simulate(
      ON_CHAIN,
      params([
        { from: A!, to: addr.fwd, value: parseEther('1'), data: data('Forwarder', 'forward', [C]) },
        { from: A!, to: addr.fwd, value: 10n, data: data('Forwarder', 'split', [B, addr.rejecter]) },
        { from: A!, to: addr.fwd, data: data('Forwarder', 'tryPay', [addr.token, C, 5n]) },
      ]),
    )
    expect(result.calls.map((x) => x.status)).toEqual(['success', 'success', 'success'])
    expect(result.calls[0]!.transfers).toEqual([
      { type: 'native', token: null, from: A, to: addr.fwd, amount: toHex(parseEther('1')) },
      { type: 'native', token: null, from: addr.fwd, to: C, amount: toHex(parseEther('1')) },
    ])
    expect(result.calls[1]!.transfers).toEqual([
      { type: 'native', token: null, from: A, to: addr.fwd, amount: '0xa' },
      { type: 'native', token: null, from: addr.fwd, to: B, amount: '0x5' },
    ])
    // the token transfer happened inside a frame that reverted: it never happened
    expect(result.calls[2]!.transfers).toEqual([])
    expect(result.calls[2]!.logs).toEqual([])
    // a CALL that fails its balance check: geth still shows the frame, but no value moved
    const overspent = await engine!.simulate(ON_CHAIN, params([{ from: A!, to: addr.fwd, data: data('Forwarder', 'overspend', [C]) }]))
    expect(overspent.calls[0]!.status).toBe('success')
    expect(overspent.calls[0]!.transfers).toEqual([])
  })

  it('reports the real balance change of a fee-on-transfer token, not the event amount', async () => {
    const result = await engine!.simulate(
      ON_CHAIN,
      params([{ from: A!, to: addr.fee, data: data('FeeToken', 'transfer', [B, parseEther('100')]) }], {
        traceAssetChanges: true,
        account: B,
      }),
    )
    expect(result.calls[0]!.logs[0]?.decoded?.summary).toBe('Transfer 100 FEE from 0xf39f…2266 to 0x7099…79c8')
    expect(result.assetChanges).toEqual([
      {
        account: B,
        type: 'erc20',
        token: addr.fee,
        symbol: 'FEE',
        decimals: 18,
        before: '0x0',
        after: toHex(parseEther('99')),
        delta: parseEther('99').toString(),
        formatted: '99',
      },
    ])
  })

  it('reads asset changes from the state the calls start from, state overrides included', async () => {
    const result = await engine!.simulate(
      ON_CHAIN,
      params(
        [
          { from: A!, to: addr.fwd, value: parseEther('1'), data: data('Forwarder', 'forward', [C]) },
          { from: A!, to: addr.fwd, data: data('Forwarder', 'tryPay', [addr.token, C, 5n]) },
        ],
        { traceAssetChanges: true, stateOverrides: { [A!]: { balance: parseEther('5') } } },
      ),
    )
    const cBefore = BigInt(await anvil!.rpc<string>('eth_getBalance', [C, 'latest']))
    // gas price 0 (eth_call semantics): only the forwarded ether moves; C's token balance is untouched
    expect(result.assetChanges).toEqual([
      {
        account: A,
        type: 'native',
        token: null,
        symbol: 'ETH',
        decimals: 18,
        before: toHex(parseEther('5')),
        after: toHex(parseEther('4')),
        delta: (-parseEther('1')).toString(),
        formatted: '-1',
      },
      {
        account: C,
        type: 'native',
        token: null,
        symbol: 'ETH',
        decimals: 18,
        before: toHex(cBefore),
        after: toHex(cBefore + parseEther('1')),
        delta: parseEther('1').toString(),
        formatted: '1',
      },
    ])
  })

  it('does not carry a factory-made token’s symbol into the next simulation on the same block', async () => {
    const mint = (r: Awaited<ReturnType<Engine['simulate']>>) => r.calls.flatMap((c) => c.logs).find((l) => l.decoded?.name === 'Transfer')
    // traced (transfers) and untraced: the created code is seen in the state either way
    for (const traceTransfers of [true, false]) {
      const first = await engine!.simulate(ON_CHAIN, params([{ from: A!, to: addr.factory, data: data('TokenFactory', 'deploy') }], { traceTransfers }))
      const second = await engine!.simulate(
        ON_CHAIN,
        params(
          [
            { from: A!, to: addr.factory, data: data('TokenFactory', 'setSymbol', ['BBB']) },
            { from: A!, to: addr.factory, data: data('TokenFactory', 'deploy') },
          ],
          { traceTransfers },
        ),
      )
      expect(second.blockNumber).toBe(first.blockNumber)
      // the same address both times (the factory's nonce is the block's), two different tokens
      expect(mint(second)?.address).toBe(mint(first)?.address)
      expect(mint(first)?.decoded?.summary).toMatch(/^Transfer 1 AAA from /)
      expect(mint(second)?.decoded?.summary).toMatch(/^Transfer 1 BBB from /)
    }
  })

  it('reports the value a SELFDESTRUCT sends, and no transfer for DELEGATECALL value', async () => {
    const result = await engine!.simulate(
      ON_CHAIN,
      params([
        { from: A!, to: addr.doomed, data: data('Doomed', 'kill', [C]) },
        { from: A!, to: addr.delegator, value: 7n, data: data('Delegator', 'run', [addr.sink]) },
      ]),
    )
    expect(result.calls[0]!.transfers).toEqual([{ type: 'native', token: null, from: addr.doomed, to: C, amount: toHex(parseEther('2')) }])
    expect(result.calls[1]!.transfers).toEqual([{ type: 'native', token: null, from: A, to: addr.delegator, amount: '0x7' }])
  })
})

// The embedded devnet (no rpcUrl): the README's examples must come out decoded with no setup.
describe('Engine.simulate on the embedded devnet', () => {
  const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3' as Address
  const NFT = '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512' as Address
  let devnet: Engine | undefined
  beforeAll(async () => {
    devnet = await createEngine({
      cache: createMemoryCacheStore(),
      gasCap: 30_000_000n,
      rpcTimeoutMs: 10_000,
      maxStructLogSteps: 100_000,
      simulationTtlSeconds: 60,
    })
  })
  afterAll(async () => devnet?.close())

  it('decodes the demo token and NFT with their symbols and reports the NFT moving', async () => {
    const erc20 = encodeFunctionData({ abi: z.Token!.abi, functionName: 'transfer', args: [C, parseEther('2.5')] })
    const erc721 = encodeFunctionData({ abi: z.Nft!.abi, functionName: 'transferFrom', args: [B, C, 2n] })
    const result = await devnet!.simulate(ON_CHAIN, {
      calls: [
        { from: A!, to: TOKEN, data: erc20 },
        { from: B!, to: NFT, data: erc721 },
      ],
      block: { tag: 'latest' },
      validation: false,
      traceTransfers: true,
      traceAssetChanges: true,
      account: C,
    })
    expect(result.status).toBe('success')
    expect(result.calls[0]!.logs[0]?.decoded?.summary).toBe('Transfer 2.5 DEMO from 0xf39f…2266 to 0x3c44…93bc')
    expect(result.calls[1]!.logs[0]?.decoded?.summary).toBe('Transfer DNFT #2 from 0x7099…79c8 to 0x3c44…93bc')
    expect(result.calls[1]!.transfers).toEqual([
      { type: 'erc721', token: NFT, from: B, to: C, amount: '0x1', tokenId: '0x2', name: 'Demo NFT', symbol: 'DNFT', formatted: '1' },
    ])
    const byType = Object.fromEntries(result.assetChanges!.map((x) => [x.type, x]))
    expect(Object.keys(byType).sort()).toEqual(['erc20', 'erc721'])
    expect(byType.erc20).toMatchObject({ account: C, token: TOKEN, symbol: 'DEMO', decimals: 18, delta: parseEther('2.5').toString() })
    expect(BigInt(byType.erc20!.after) - BigInt(byType.erc20!.before)).toBe(parseEther('2.5'))
    expect(byType.erc721).toEqual({
      account: C,
      type: 'erc721',
      token: NFT,
      tokenId: '0x2',
      symbol: 'DNFT',
      before: '0x0',
      after: '0x1',
      delta: '1',
      name: 'Demo NFT',
      formatted: '1',
    })
  })
})
