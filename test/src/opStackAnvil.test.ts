/**
 * An OP-stack block replayed against a real Anvil run as an OP-stack node (op-revm), through every
 * front door: a block holding the L1 attributes deposit, a user deposit with `mint`, and two
 * fee-paying transactions after them (calldata small and large, each to a contract that stores),
 * under each fee formula Anvil runs as the specs define it (Fjord, Isthmus with the operator fee;
 * the Bedrock/Regolith and Ecotone formulas are checked against the specs' and op-revm's vectors in
 * l1Fee.test.ts, opAnvil.ts says why). Each transaction traced by
 * hash through /v1/trace/tx, debug_traceTransaction (callTracer, prestate diff), trace_transaction
 * and `cast run` equals Anvil's answer; the balances of the senders, the recipients and every fee
 * vault after the block equal what Anvil charged. Anvil's deviations from the specs are
 * undone in test/support/opAnvil.ts's list: the gas of a transaction comes from its receipt.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keccak256, toHex, type Hex } from 'viem'
import { createMemoryCacheStore } from '../../host/cache/memoryCacheStore.js'
import { createEngine, type Engine } from '../../engine/index.js'
import { DEV_ACCOUNTS, requireAnvil, type AnvilInstance } from '../support/anvil.js'
import { cast, requireCast } from '../support/cast.js'
import {
  BASE_FEE_VAULT,
  DEPOSITOR,
  L1_BLOCK,
  L1_FEE_VAULT,
  OPERATOR_FEE_VAULT,
  SEQUENCER_FEE_VAULT,
  SINK_CODE,
  setL1Fees,
  startOpAnvil,
  type L1Fees,
} from '../support/opAnvil.js'
import { gethCallFrame, gethPrestate, withoutCodeHash, type Frame } from '../tracers/gethRules.js'
import { post, startTestApp, type TestApp } from './support/startTestApp.js'
import { ON_CHAIN } from '../../engine/types.js'

const haveAnvil = requireAnvil()
requireCast()

const USER = '0x00000000000000000000000000000000000a11ce'
const SINK_A = '0x00000000000000000000000000000000005171a0'
const SINK_B = '0x00000000000000000000000000000000005171b0'
/** PUSH0 PUSH0 REVERT */
const REVERTER = '0x000000000000000000000000000000000000dead'
const USER_REVERTED = '0x00000000000000000000000000000000000b0b00'
const ONE_ETH = 10n ** 18n
const hex = (n: bigint) => `0x${n.toString(16)}`

const FORKS: { fork: string; ecotone: boolean; fees: L1Fees }[] = [
  { fork: 'fjord', ecotone: true, fees: { l1BaseFee: 1_055_991_687n, scalar: 5227n, blobBaseFee: 1n, blobBaseFeeScalar: 1_014_213n } },
  {
    fork: 'isthmus',
    ecotone: true,
    fees: { l1BaseFee: 30_000_000_000n, scalar: 1368n, blobBaseFee: 5n, blobBaseFeeScalar: 810_949n, operatorFeeScalar: 2000n, operatorFeeConstant: 1000n },
  },
]

/** `bytes` bytes FastLZ cannot shrink: a chain of hashes */
function incompressible(bytes: number): Hex {
  let out = ''
  for (let i = 0; out.length < bytes * 2; i++) out += keccak256(toHex(i)).slice(2)
  return `0x${out.slice(0, bytes * 2)}`
}

/** Anvil answers a receipt shortly after evm_mine returns */
async function receiptOf(anvil: AnvilInstance, hash: Hex): Promise<{ gasUsed: string }> {
  for (let i = 0; i < 100; i++) {
    const r = await anvil.rpc<{ gasUsed: string } | null>('eth_getTransactionReceipt', [hash])
    if (r) return r
    await new Promise((ok) => setTimeout(ok, 50))
  }
  throw new Error(`no receipt for ${hash}`)
}

interface Mined {
  /** the hash Anvil indexes the transaction by */
  hash: Hex
  /** the hash its JSON object carries (the specs' for a deposit) */
  specHash: Hex
  from: string
  to: string
  gas: bigint
  gasUsed: bigint
}

describe.runIf(haveAnvil).each(FORKS)('an OP-stack block under $fork', ({ fork, ecotone, fees }) => {
  let anvil: AnvilInstance
  let engine: Engine
  let app: TestApp
  const mined: Mined[] = []

  beforeAll(async () => {
    anvil = await startOpAnvil(fork)
    await setL1Fees(anvil, ecotone, fees)
    for (const sink of [SINK_A, SINK_B]) await anvil.rpc('anvil_setCode', [sink, SINK_CODE])
    await anvil.rpc('anvil_setCode', [REVERTER, '0x5f5ffd'])
    await anvil.rpc('evm_setAutomine', [false])
    await anvil.rpc('anvil_impersonateAccount', [DEPOSITOR])
    for (const u of [USER, USER_REVERTED]) await anvil.rpc('anvil_impersonateAccount', [u])
    const send = (tx: Record<string, unknown>) => anvil.rpc<Hex>('eth_sendTransaction', [tx])
    // the L1 attributes deposit first, as every OP-stack block starts
    await send({
      from: DEPOSITOR,
      to: L1_BLOCK,
      gas: hex(1_000_000n),
      input: `0x440a5e20${'00'.repeat(160)}`,
      sourceHash: `0x${'11'.repeat(32)}`,
      mint: '0x0',
      isSystemTx: false,
    })
    // a user deposit minting 1 ETH and sending half of it on
    await send({
      from: USER,
      to: DEV_ACCOUNTS[5],
      value: hex(ONE_ETH / 2n),
      gas: hex(200_000n),
      sourceHash: `0x${'22'.repeat(32)}`,
      mint: hex(ONE_ETH),
      isSystemTx: false,
    })
    // a deposit whose call reverts: its mint is kept
    await send({
      from: USER_REVERTED,
      to: REVERTER,
      value: hex(ONE_ETH / 4n),
      gas: hex(100_000n),
      sourceHash: `0x${'33'.repeat(32)}`,
      mint: hex(ONE_ETH),
      isSystemTx: false,
    })
    // fee-paying transactions: small and large calldata
    await send({ from: DEV_ACCOUNTS[0], to: SINK_A, value: '0x1', input: '0x01' })
    await send({ from: DEV_ACCOUNTS[2], to: SINK_B, input: `0x${'ab12'.repeat(300)}${'00'.repeat(200)}${'5e'.repeat(40)}` })
    await anvil.rpc('evm_mine', [])
    const block = await anvil.rpc<{ transactions: Record<string, string>[] }>('eth_getBlockByNumber', ['0x1', true])
    // a deposit is looked up by the hash Anvil indexes (its block's hash list), see opAnvil.ts
    const { transactions: hashes } = await anvil.rpc<{ transactions: Hex[] }>('eth_getBlockByNumber', ['0x1', false])
    for (const [i, t] of block.transactions.entries()) {
      const hash = hashes[i]!
      const r = await receiptOf(anvil, hash)
      mined.push({ hash, specHash: t.hash as Hex, from: t.from!, to: t.to!, gas: BigInt(t.gas!), gasUsed: BigInt(r.gasUsed) })
    }
    engine = await createEngine({
      rpcUrl: anvil.url,
      cache: createMemoryCacheStore(),
      gasCap: 50_000_000n,
      rpcTimeoutMs: 10_000,
      maxStructLogSteps: 100_000,
      simulationTtlSeconds: 3600,
      chainKind: 'op-stack',
      hardfork: fork,
    })
    app = await startTestApp({ engine, env: { RPC_URL: anvil.url, RATE_LIMIT_REQUESTS: '100000' } })
  }, 60_000)

  afterAll(async () => {
    await app?.close()
    await engine?.close()
    await anvil?.stop()
  })

  /** Anvil's callTracer made geth's, its cumulative gasUsed replaced by the receipt's */
  async function anvilCallFrame(m: Mined): Promise<Frame> {
    const frame = await anvil.rpc<Frame>('debug_traceTransaction', [m.hash, { tracer: 'callTracer' }])
    return { ...gethCallFrame(frame, m.gas), gasUsed: hex(m.gasUsed) }
  }

  let id = 0
  async function serviceRpc<T>(method: string, params: unknown[]): Promise<T> {
    const res = await app.fetch('/v1/rpc', post({ jsonrpc: '2.0', id: ++id, method, params }))
    const body = (await res.json()) as { result?: T; error?: unknown }
    if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`)
    return body.result as T
  }

  it('holds the deposits first and the fee-paying transactions after them', () => {
    expect(mined.map((m) => m.from)).toEqual([DEPOSITOR, USER, USER_REVERTED, DEV_ACCOUNTS[0], DEV_ACCOUNTS[2]])
  })

  it('traces each transaction by hash through /v1/trace/tx as Anvil does (callTracer)', async () => {
    for (const m of mined) {
      const res = await app.fetch('/v1/trace/tx', post({ transactionHash: m.hash, tracerConfig: { callTracer: {} } }))
      const body = await res.json()
      expect(res.status, JSON.stringify(body)).toBe(200)
      expect(body.data.callTracer).toEqual(await anvilCallFrame(m))
    }
  })

  it("debug_traceTransaction: callTracer and the prestate diff equal Anvil's, fee vaults included", async () => {
    for (const m of mined) {
      expect(await serviceRpc('debug_traceTransaction', [m.hash, { tracer: 'callTracer' }])).toEqual(await anvilCallFrame(m))
      const ours = await serviceRpc<{ pre: Record<string, never>; post: Record<string, never> }>('debug_traceTransaction', [
        m.hash,
        { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
      ])
      const theirs = await anvil.rpc<{ pre: Record<string, never>; post: Record<string, never> }>('debug_traceTransaction', [
        m.hash,
        { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
      ])
      expect(withoutCodeHash(ours.pre), m.hash).toEqual(gethPrestate(theirs.pre))
      expect(withoutCodeHash(ours.post, false), m.hash).toEqual(theirs.post)
    }
  })

  it("trace_transaction equals Anvil's", async () => {
    for (const m of mined) {
      const ours = await serviceRpc<Record<string, unknown>[]>('trace_transaction', [m.hash])
      const theirs = await anvil.rpc<Record<string, unknown>[]>('trace_transaction', [m.hash])
      // Anvil names a deposit by its own hash, the service by the specs' (opAnvil.ts)
      expect(ours, m.hash).toEqual(theirs.map((t) => ({ ...t, transactionHash: m.specHash })))
    }
  })

  it('leaves every sender, recipient and fee vault with the balance Anvil charged after the block', async () => {
    const accounts = [...new Set([...mined.flatMap((m) => [m.from, m.to]), SEQUENCER_FEE_VAULT, BASE_FEE_VAULT, L1_FEE_VAULT, OPERATOR_FEE_VAULT])]
    for (const a of accounts) {
      // the state after the block's every transaction, replayed by the engine, read by a traced call there
      const r = await engine.traceCall(ON_CHAIN, {
        call: { from: a as Hex, to: a as Hex, data: '0x' },
        block: { number: 1n },
        txIndex: mined.length,
        tracerConfig: { prestateTracer: {} },
      })
      const ours = (r.prestateTracer as Record<string, { balance?: string }>)[a]?.balance ?? '0x0'
      expect(BigInt(ours), a).toBe(BigInt(await anvil.rpc<string>('eth_getBalance', [a, '0x1'])))
    }
  })

  it('charges the fee-paying transactions an L1 fee (and from Isthmus an operator fee), the deposits none', async () => {
    const vault = async (a: string) => BigInt(await anvil.rpc<string>('eth_getBalance', [a, '0x1']))
    expect(await vault(L1_FEE_VAULT)).toBeGreaterThan(0n)
    expect((await vault(OPERATOR_FEE_VAULT)) > 0n).toBe(fork === 'isthmus')
  })

  it('a simulation of calls with a gas price reports each l1Fee and operatorFee and their total, charged to the sender and credited to the vaults', async () => {
    const price = 2_000_000_000n
    const calls = [
      { from: DEV_ACCOUNTS[7] as Hex, to: SINK_A as Hex, data: '0x01' as Hex, gasPrice: price },
      { from: DEV_ACCOUNTS[7] as Hex, to: SINK_B as Hex, data: incompressible(640), gasPrice: price, value: 5n },
    ]
    const res = await engine.simulate(ON_CHAIN, { calls, block: { tag: 'latest' }, validation: false, traceAssetChanges: true, traceTransfers: false })
    const perCall = res.calls.map((c) => ({ l1Fee: BigInt(c.l1Fee!), operatorFee: BigInt(c.operatorFee!), gas: BigInt(c.gasUsed) }))
    for (const c of perCall) expect(c.l1Fee).toBeGreaterThan(0n)
    // the larger calldata costs more L1 gas
    expect(BigInt(res.calls[1]!.l1GasUsed!)).toBeGreaterThan(BigInt(res.calls[0]!.l1GasUsed!))
    expect(BigInt(res.l1Fee!)).toBe(perCall[0]!.l1Fee + perCall[1]!.l1Fee)
    expect(BigInt(res.operatorFee!)).toBe(perCall[0]!.operatorFee + perCall[1]!.operatorFee)
    expect(perCall.every((c) => c.operatorFee > 0n)).toBe(fork === 'isthmus')
    const change = (a: string) => BigInt(res.assetChanges!.find((x) => x.type === 'native' && x.account === a)?.delta ?? '0')
    const paid = perCall.reduce((sum, c) => sum + c.gas * price + c.l1Fee + c.operatorFee, 0n) + 5n
    expect(change(DEV_ACCOUNTS[7])).toBe(-paid)
    expect(change(L1_FEE_VAULT)).toBe(BigInt(res.l1Fee!))
    // a call without a gas price pays nothing besides its (free) gas: eth_call semantics
    const free = await engine.simulate(ON_CHAIN, {
      calls: [{ ...calls[0]!, gasPrice: undefined }],
      block: { tag: 'latest' },
      validation: false,
      traceAssetChanges: false,
      traceTransfers: false,
    })
    expect(free.calls[0]!.l1Fee).toBeUndefined()
    expect(free.l1Fee).toBeUndefined()
  })

  it('a traced call with a gas price reports its l1Fee, l1GasUsed and operatorFee beside the tracers (call-many: and their totals), what Anvil charges the same transaction sent', async () => {
    const price = 2_000_000_000n
    const sender = DEV_ACCOUNTS[8] as Hex
    const small = { from: sender, to: SINK_A, data: '0x0102', gasPrice: hex(price) }
    const large = { from: sender, to: SINK_B, data: incompressible(900), gasPrice: hex(price) }
    const res = await app.fetch('/v1/trace/call', post({ call: small, blockTag: 'latest', tracerConfig: { callTracer: {} } }))
    const body = await res.json()
    expect(res.status, JSON.stringify(body)).toBe(200)
    const traced = body.data as { callTracer: Record<string, unknown>; l1Fee: string; l1GasUsed: string; operatorFee: string }
    // the tracer's output stays geth's: no fee field inside it
    expect(Object.keys(traced.callTracer)).not.toContain('l1Fee')
    expect(BigInt(traced.l1Fee)).toBeGreaterThan(0n)
    // the JSON-RPC tracer prints the tracer's output alone
    const rpcFrame = await serviceRpc<Record<string, unknown>>('debug_traceCall', [small, 'latest', { tracer: 'callTracer' }])
    expect(rpcFrame).toEqual(traced.callTracer)

    // call-many: each call's fees beside its tracers, their sum beside data
    const many = await app.fetch(
      '/v1/trace/call-many',
      post({
        bundles: [{ transactions: [small] }, { transactions: [large, { ...small, gasPrice: undefined }] }],
        blockTag: 'latest',
        tracerConfig: { callTracer: {} },
      }),
    )
    const manyBody = await many.json()
    expect(many.status, JSON.stringify(manyBody)).toBe(200)
    const [[first], [second, free]] = manyBody.data as { l1Fee?: string; l1GasUsed?: string; operatorFee?: string }[][]
    expect(first!.l1Fee).toBe(traced.l1Fee)
    expect(BigInt(second!.l1GasUsed!)).toBeGreaterThan(BigInt(first!.l1GasUsed!))
    // a call without a gas price pays nothing (eth_call semantics) and reports nothing
    expect(free!.l1Fee).toBeUndefined()
    expect(BigInt(manyBody.l1Fee)).toBe(BigInt(first!.l1Fee!) + BigInt(second!.l1Fee!))
    expect(BigInt(manyBody.operatorFee)).toBe(BigInt(first!.operatorFee!) + BigInt(second!.operatorFee!))
    expect(BigInt(manyBody.l1GasUsed)).toBe(BigInt(first!.l1GasUsed!) + BigInt(second!.l1GasUsed!))

    // the same transaction sent: what Anvil charged is the vaults' credit and the sender's cost
    const head = BigInt(await anvil.rpc<string>('eth_blockNumber', []))
    const sent = await anvil.rpc<Hex>('eth_sendTransaction', [{ from: sender, to: SINK_A, input: '0x0102', gasPrice: hex(price), gas: hex(100_000n) }])
    await anvil.rpc('evm_mine', [])
    const receipt = await receiptOf(anvil, sent)
    const balance = async (a: string, n: bigint) => BigInt(await anvil.rpc<string>('eth_getBalance', [a, hex(n)]))
    const credit = async (a: string) => (await balance(a, head + 1n)) - (await balance(a, head))
    expect(BigInt(traced.l1Fee)).toBe(await credit(L1_FEE_VAULT))
    expect(BigInt(traced.operatorFee)).toBe(await credit(OPERATOR_FEE_VAULT))
    expect(BigInt(traced.operatorFee) > 0n).toBe(fork === 'isthmus')
    expect(BigInt(receipt.gasUsed)).toBe(BigInt(traced.callTracer.gasUsed as string))
    expect(-(await credit(sender))).toBe(BigInt(receipt.gasUsed) * price + BigInt(traced.l1Fee) + BigInt(traced.operatorFee))
    // a small transaction is priced at Fjord's 100-byte minimum, signed or not (docs/decisions/0092-op-stack-fees-of-a-traced-call.md)
    expect(BigInt(traced.l1GasUsed)).toBe(1600n)
  })

  it('`cast run` replays each fee-paying transaction through the service', async () => {
    const url = `${app.url}/v1/rpc/${app.config.api.auth_token}`
    for (const m of mined.slice(3)) {
      const out = await cast(['run', m.hash, '--rpc-url', url], { timeoutMs: 120_000 })
      expect(out).toContain('Transaction successfully executed.')
      expect(out).toContain(`Gas used: ${m.gasUsed}`)
    }
  }, 240_000)
})
