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
import { createPublicClient, http, keccak256, toHex, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { optimism } from 'viem/chains'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { createEngine, type Engine } from '../../../engine/index.js'
import { requireAnvil, type AnvilInstance } from '../../support/anvil.js'
import {
  BASE_FEE_VAULT, DEPOSITOR, L1_BLOCK, L1_FEE_VAULT, OPERATOR_FEE_VAULT, SEQUENCER_FEE_VAULT, SINK_CODE, setL1Fees, startOpAnvil,
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

async function receiptOf(rpc: Rpc, hash: Hex): Promise<Record<string, any>> { // eslint-disable-line @typescript-eslint/no-explicit-any
  for (let i = 0; i < 200; i++) {
    const r = await rpc('eth_getTransactionReceipt', [hash])
    if (r) return r
    await new Promise((ok) => setTimeout(ok, 25))
  }
  throw new Error(`no receipt for ${hash}`)
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
    engine = await createEngine({
      rpcUrl: anvil.url, cache: createMemoryCacheStore(), gasCap: 50_000_000n, rpcTimeoutMs: 10_000, headMaxAgeMs: 0,
      maxStructLogSteps: 100_000, simulationTtlSeconds: 3600, chainKind: 'op-stack', hardfork: 'isthmus',
    })
    app = await startTestApp({ engine, env: { RPC_URL: anvil.url, RATE_LIMIT_REQUESTS: '100000' } })
    const res = await app.fetch('/v1/forks', post({}))
    const body = await res.json()
    expect(res.status, JSON.stringify(body)).toBe(201)
    forkUrl = `${app.url}/v1/forks/${body.data.forkId}/rpc/${app.config.api.auth_token}`
    let id = 0
    forkRpc = async (method, params = []) => {
      const r = await fetch(forkUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) })
      const j = (await r.json()) as { result?: never; error?: unknown }
      if (j.error) throw new Error(`${method}: ${JSON.stringify(j.error)}`)
      return j.result as never
    }
  }, 60_000)

  afterAll(async () => {
    await app?.close()
    await engine?.close()
    await anvil?.stop()
  })

  it('mines a block that starts with the L1 attributes deposit and charges a signed transaction what Anvil charges it', async () => {
    const anvilRpc: Rpc = (m, p = []) => anvil.rpc(m, p)
    const raw = await alice.signTransaction({
      chainId: 10, type: 'eip1559', nonce: Number(await anvil.rpc<string>('eth_getTransactionCount', [alice.address, 'latest'])),
      to: SINK, data: incompressible(600), gas: 200_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n,
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
      l1GasPrice: hex(FEES.l1BaseFee), l1BaseFeeScalar: hex(FEES.scalar), l1BlobBaseFee: hex(FEES.blobBaseFee),
      l1BlobBaseFeeScalar: hex(FEES.blobBaseFeeScalar), operatorFeeScalar: hex(FEES.operatorFeeScalar), operatorFeeConstant: hex(FEES.operatorFeeConstant),
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
