/**
 * A writable fork of an OP-stack chain (a real Anvil run as an OP-stack node, op-revm) mines by
 * the chain's rules: each block starts with the L1 attributes deposit, a fee-paying transaction
 * pays the L1 fee (Fjord's compressed-size formula on its signed bytes) and the operator fee
 * (Isthmus) to their vaults and the base fee to the base fee vault. The same signed transaction
 * sent to Anvil is charged the same: the vaults' credits, the sender's cost and the gas used are
 * equal. The fork's receipts carry op-geth's fee fields, which viem's OP-stack chain formatters
 * read (`l1Fee`, `l1GasPrice`, `l1GasUsed`; a deposit's `depositNonce` and receipt version).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPublicClient, hexToBytes, http, keccak256, toHex, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { optimism } from 'viem/chains'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { createEngine, type Engine } from '../../../engine/index.js'
import { flzCompressLen } from '../../../engine/chains/rollups/opStack/fastLz.js'
import { requireAnvil, type AnvilInstance } from '../../support/anvil.js'
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
} from '../../support/opAnvil.js'
import { post, startTestApp, type TestApp } from '../support/startTestApp.js'

const haveAnvil = requireAnvil()
const alice = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
const SINK = '0x00000000000000000000000000000000005171a0'
const FEES = { l1BaseFee: 30_000_000_000n, scalar: 1368n, blobBaseFee: 5n, blobBaseFeeScalar: 810_949n, operatorFeeScalar: 2000n, operatorFeeConstant: 1000n }
const BASE_FEE = 1_000_000_000n
const hex = (n: bigint) => `0x${n.toString(16)}`

/** `bytes` bytes FastLZ cannot shrink: the L1 fee is above Fjord's 100-byte minimum */
function incompressible(bytes: number): Hex {
  let out = ''
  for (let i = 0; out.length < bytes * 2; i++) out += keccak256(toHex(i)).slice(2)
  return `0x${out.slice(0, bytes * 2)}`
}

type Rpc = <T = any>(method: string, params?: unknown[]) => Promise<T> // eslint-disable-line @typescript-eslint/no-explicit-any

async function receiptOf(rpc: Rpc, hash: Hex): Promise<Record<string, any>> {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  for (let i = 0; i < 200; i++) {
    const r = await rpc('eth_getTransactionReceipt', [hash])
    if (r) return r
    await new Promise((ok) => setTimeout(ok, 25))
  }
  throw new Error(`no receipt for ${hash}`)
}

/** the service forking `anvil` as an OP-stack chain under `hardfork`, and a writable fork of it with its JSON-RPC */
async function openOpFork(anvil: AnvilInstance, hardfork: string): Promise<{ engine: Engine; app: TestApp; forkUrl: string; forkRpc: Rpc }> {
  const engine = await createEngine({
    rpcUrl: anvil.url,
    cache: createMemoryCacheStore(),
    gasCap: 50_000_000n,
    rpcTimeoutMs: 10_000,
    headMaxAgeMs: 0,
    maxStructLogSteps: 100_000,
    simulationTtlSeconds: 3600,
    chainKind: 'op-stack',
    hardfork,
  })
  const app = await startTestApp({ engine, env: { RPC_URL: anvil.url, RATE_LIMIT_REQUESTS: '100000' } })
  const res = await app.fetch('/v1/forks', post({}))
  const body = await res.json()
  expect(res.status, JSON.stringify(body)).toBe(201)
  const forkUrl = `${app.url}/v1/forks/${body.data.forkId}/rpc/${app.config.api.auth_token}`
  let id = 0
  const forkRpc: Rpc = async (method, params = []) => {
    const r = await fetch(forkUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    })
    const j = (await r.json()) as { result?: never; error?: unknown }
    if (j.error) throw new Error(`${method}: ${JSON.stringify(j.error)}`)
    return j.result as never
  }
  return { engine, app, forkUrl, forkRpc }
}

describe.runIf(haveAnvil)('a writable fork of an OP-stack chain', () => {
  let anvil: AnvilInstance
  let engine: Engine
  let app: TestApp
  let forkUrl: string
  let forkRpc: Rpc

  beforeAll(async () => {
    anvil = await startOpAnvil('isthmus')
    await setL1Fees(anvil, true, FEES)
    await anvil.rpc('anvil_setCode', [SINK, SINK_CODE])
    await anvil.rpc('evm_mine', [])
    ;({ engine, app, forkUrl, forkRpc } = await openOpFork(anvil, 'isthmus'))
  }, 60_000)

  afterAll(async () => {
    await app?.close()
    await engine?.close()
    await anvil?.stop()
  })

  it('mines a block that starts with the L1 attributes deposit and charges a signed transaction what Anvil charges it', async () => {
    const anvilRpc: Rpc = (m, p = []) => anvil.rpc(m, p)
    const raw = await alice.signTransaction({
      chainId: 10,
      type: 'eip1559',
      nonce: Number(await anvil.rpc<string>('eth_getTransactionCount', [alice.address, 'latest'])),
      to: SINK,
      data: incompressible(600),
      gas: 200_000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 10n ** 9n,
    })
    const observed = []
    for (const rpc of [forkRpc, anvilRpc]) {
      const head = BigInt(await rpc<string>('eth_blockNumber'))
      await rpc('anvil_setNextBlockBaseFeePerGas', [hex(BASE_FEE)])
      const hash = await rpc<Hex>('eth_sendRawTransaction', [raw])
      const receipt = await receiptOf(rpc, hash)
      const block = BigInt(receipt.blockNumber)
      expect(block).toBe(head + 1n)
      const balance = async (a: string, n: bigint) => BigInt(await rpc<string>('eth_getBalance', [a, hex(n)]))
      const credit = async (a: string) => (await balance(a, block)) - (await balance(a, head))
      observed.push({
        receipt,
        gasUsed: BigInt(receipt.gasUsed),
        l1Vault: await credit(L1_FEE_VAULT),
        baseVault: await credit(BASE_FEE_VAULT),
        operatorVault: await credit(OPERATOR_FEE_VAULT),
        sequencerVault: await credit(SEQUENCER_FEE_VAULT),
        sender: await credit(alice.address),
      })
    }
    const [fork, theirs] = observed
    const { receipt, ...ours } = fork!
    const { receipt: _anvilReceipt, ...anvils } = theirs!
    expect(ours).toEqual(anvils)
    expect(ours.l1Vault).toBeGreaterThan(0n)
    expect(ours.operatorVault).toBeGreaterThan(0n)
    expect(ours.baseVault).toBe(BASE_FEE * ours.gasUsed)
    // the receipt reports the fee the L1 fee vault received, with the L1Block values it was priced by
    expect(BigInt(receipt.l1Fee)).toBe(ours.l1Vault)
    expect(receipt).toMatchObject({
      l1GasPrice: hex(FEES.l1BaseFee),
      l1BaseFeeScalar: hex(FEES.scalar),
      l1BlobBaseFee: hex(FEES.blobBaseFee),
      l1BlobBaseFeeScalar: hex(FEES.blobBaseFeeScalar),
      operatorFeeScalar: hex(FEES.operatorFeeScalar),
      operatorFeeConstant: hex(FEES.operatorFeeConstant),
    })
    // the block's first transaction: the L1 attributes deposit, from the depositor to L1Block
    const block = await forkRpc<{ transactions: Record<string, string>[] }>('eth_getBlockByNumber', [receipt.blockNumber, true])
    expect(block.transactions.map((t) => t.type)).toEqual(['0x7e', '0x2'])
    expect(block.transactions[0]).toMatchObject({ from: DEPOSITOR, to: L1_BLOCK, mint: '0x0', isSystemTx: false })
    expect(block.transactions[0]!.input!.slice(0, 10)).toBe('0x098999be')
  })

  it("viem's public client with the OP-stack formatters reads the fork's receipts", async () => {
    const client = createPublicClient({ chain: optimism, transport: http(forkUrl) })
    const block = await client.getBlock({ includeTransactions: true })
    const [deposit, paid] = block.transactions
    expect(deposit!.type).toBe('deposit')
    const depositReceipt = await client.getTransactionReceipt({ hash: deposit!.hash })
    expect(depositReceipt.depositReceiptVersion).toBe(1)
    expect(typeof depositReceipt.depositNonce).toBe('bigint')
    expect(depositReceipt.l1Fee).toBeNull()
    const receipt = await client.getTransactionReceipt({ hash: paid!.hash })
    expect(receipt.status).toBe('success')
    expect(receipt.l1GasPrice).toBe(FEES.l1BaseFee)
    expect(receipt.l1Fee! > 0n).toBe(true)
    expect(receipt.l1GasUsed! > 0n).toBe(true)
  })

  it('traces the fork-mined deposit and transaction by hash, replayed by the same rules', async () => {
    const block = await forkRpc<{ transactions: Hex[] }>('eth_getBlockByNumber', ['latest', false])
    for (const hash of block.transactions) {
      const receipt = await receiptOf(forkRpc, hash)
      const frame = await forkRpc<{ gasUsed: string; from: string }>('debug_traceTransaction', [hash, { tracer: 'callTracer' }])
      expect(frame.from).toBe(receipt.from)
      expect(BigInt(frame.gasUsed)).toBe(BigInt(receipt.gasUsed))
    }
  })
})

/**
 * Jovian's DA footprint block limit on a fork run as Jovian (specs: jovian/exec-engine "DA
 * Footprint Block Limit"): each non-deposit transaction's footprint is its DA usage estimate
 * (Fjord's FastLZ estimate in bytes, at least 100) times the DA footprint gas scalar the block's
 * L1 attributes deposit carries; the header's `blobGasUsed` is their sum, which the gas limit
 * bounds; each receipt carries the scalar and its transaction's footprint. The upstream's block gas
 * limit is lowered to 1 000 000 so that a few transactions reach it.
 */
const DA_SCALAR = 600n
const DA_GAS_LIMIT = 1_000_000n

/** the spec's footprint, computed here from the FastLZ length of the signed bytes */
function daFootprintOf(raw: Hex): bigint {
  const estimate = (836_500n * BigInt(flzCompressLen(hexToBytes(raw))) - 42_585_600n) / 1_000_000n
  return (estimate > 100n ? estimate : 100n) * DA_SCALAR
}

describe.runIf(haveAnvil)('a writable fork of an OP-stack chain at Jovian: the DA footprint', () => {
  let anvil: AnvilInstance
  let engine: Engine
  let app: TestApp
  let forkRpc: Rpc
  let nonce: number

  const send = async (bytes: number, gas = 200_000n): Promise<{ raw: Hex; hash: Promise<Hex> }> => {
    const raw = await alice.signTransaction({
      chainId: 10,
      type: 'eip1559',
      nonce: nonce++,
      to: SINK,
      data: incompressible(bytes),
      gas,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 10n ** 9n,
    })
    return { raw, hash: forkRpc<Hex>('eth_sendRawTransaction', [raw]) }
  }

  beforeAll(async () => {
    anvil = await startOpAnvil('isthmus')
    await setL1Fees(anvil, true, { ...FEES, daFootprintGasScalar: DA_SCALAR })
    await anvil.rpc('anvil_setCode', [SINK, SINK_CODE])
    await anvil.rpc('evm_setBlockGasLimit', [hex(DA_GAS_LIMIT)])
    await anvil.rpc('evm_mine', [])
    ;({ engine, app, forkRpc } = await openOpFork(anvil, 'jovian'))
    nonce = Number(await forkRpc<string>('eth_getTransactionCount', [alice.address, 'latest']))
  }, 60_000)

  afterAll(async () => {
    await app?.close()
    await engine?.close()
    await anvil?.stop()
  })

  it("a mined block's blobGasUsed is its DA footprint, its excess blob gas 0, each receipt its transaction's footprint", async () => {
    const { raw, hash } = await send(600)
    const receipt = await receiptOf(forkRpc, await hash)
    const footprint = daFootprintOf(raw)
    expect(footprint).toBeGreaterThan(100n * DA_SCALAR)
    expect(receipt).toMatchObject({ status: '0x1', daFootprintGasScalar: hex(DA_SCALAR), blobGasUsed: hex(footprint) })
    const block = await forkRpc<Record<string, any>>('eth_getBlockByNumber', [receipt.blockNumber, true]) // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(block).toMatchObject({ gasLimit: hex(DA_GAS_LIMIT), blobGasUsed: hex(footprint), excessBlobGas: '0x0' })
    // the L1 attributes deposit: setL1BlockValuesJovian, 178 bytes ending with the scalar
    const input = block.transactions[0].input as string
    expect(input.slice(0, 10)).toBe('0x3db6be2b')
    expect((input.length - 2) / 2).toBe(178)
    expect(input.slice(-4)).toBe(DA_SCALAR.toString(16).padStart(4, '0'))
    // the deposit's own receipt has no DA fields
    const depositReceipt = await receiptOf(forkRpc, block.transactions[0].hash)
    expect(depositReceipt.daFootprintGasScalar).toBeUndefined()
    expect(depositReceipt.blobGasUsed).toBeUndefined()
  })

  it('refuses a transaction whose own DA footprint is over the block gas limit', async () => {
    const { raw, hash } = await send(2500)
    expect(daFootprintOf(raw)).toBeGreaterThan(DA_GAS_LIMIT)
    await expect(hash).rejects.toThrow(/DA footprint/)
    nonce--
  })

  it('a block of the pool takes the transactions whose footprints fit; the next one waits for the next block', async () => {
    await forkRpc('evm_setAutomine', [false])
    const sent = []
    for (let i = 0; i < 4; i++) {
      const s = await send(500)
      sent.push({ raw: s.raw, hash: await s.hash })
    }
    let fits = 0
    let total = 0n
    while (fits < sent.length && total + daFootprintOf(sent[fits]!.raw) <= DA_GAS_LIMIT) total += daFootprintOf(sent[fits++]!.raw)
    expect(fits).toBe(3)
    await forkRpc('evm_mine', [])
    const block = await forkRpc<Record<string, any>>('eth_getBlockByNumber', ['latest', false]) // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(block.transactions.slice(1)).toEqual(sent.slice(0, fits).map((t) => t.hash))
    expect(block.blobGasUsed).toBe(hex(total))
    expect(BigInt(block.gasUsed)).toBeLessThan(total)
    await forkRpc('evm_mine', [])
    const next = await forkRpc<Record<string, any>>('eth_getBlockByNumber', ['latest', false]) // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(next.transactions.slice(1)).toEqual([sent[3]!.hash])
    expect(next.blobGasUsed).toBe(hex(daFootprintOf(sent[3]!.raw)))
  })
})
