/**
 * The embedded devnet run as an OP-stack chain (`kind = "op-stack"`): L1Block and GasPriceOracle
 * installed at genesis, each demo block starting with the L1 attributes deposit, every other
 * transaction paying the L1 fee to the L1 fee vault, the base fee to the base fee vault and its
 * tip to the sequencer fee vault; receipts carry op-geth's fee fields, which viem's OP-stack
 * formatters read. A fork of it mines by the same rules.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPublicClient, defineChain, http, keccak256, parseAbi, type Hex } from 'viem'
import { chainConfig, publicActionsL2 } from 'viem/op-stack'
import { hexToBytes } from '@ethereumjs/util'
import { fjordEstimatedSize } from '../../engine/chains/rollups/opStack/l1Fee.js'
import { OP_DEVNET_L1 } from '../../engine/chains/devnet/opDevnet.js'
import { createMemoryCacheStore } from '../../host/cache/memoryCacheStore.js'
import { createEngine, type Engine } from '../../engine/index.js'
import { DEV_ACCOUNTS } from '../support/anvil.js'
import { BASE_FEE_VAULT, DEPOSITOR, L1_BLOCK, L1_FEE_VAULT, SEQUENCER_FEE_VAULT } from '../support/opAnvil.js'
import { post, startTestApp, type TestApp } from './support/startTestApp.js'
import { ON_CHAIN } from '../../engine/types.js'

const base = { cache: createMemoryCacheStore(), gasCap: 50_000_000n, rpcTimeoutMs: 10_000, maxStructLogSteps: 100_000, simulationTtlSeconds: 3600 }

describe('the embedded devnet as an OP-stack chain', () => {
  let engine: Engine
  let app: TestApp
  let rpcUrl: string

  beforeAll(async () => {
    engine = await createEngine({ ...base, chainKind: 'op-stack' })
    app = await startTestApp({ engine, env: { CHAIN_KIND: 'op-stack', RATE_LIMIT_REQUESTS: '100000' } })
    rpcUrl = `${app.url}/v1/rpc/${app.config.api.auth_token}`
  }, 60_000)

  afterAll(async () => {
    await app?.close()
    await engine?.close()
  })

  const client = () =>
    createPublicClient({
      chain: defineChain({
        ...chainConfig,
        id: 31337,
        name: 'op devnet',
        nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
        rpcUrls: { default: { http: [rpcUrl] } },
      }),
      transport: http(rpcUrl),
    })

  it('starts every block with the L1 attributes deposit and pays each fee to its vault, as the receipts report', async () => {
    const c = client()
    const head = await c.getBlockNumber()
    expect(head).toBeGreaterThan(1n)
    for (let n = 1n; n <= head; n++) {
      const block = await c.getBlock({ blockNumber: n, includeTransactions: true })
      const [deposit, ...paid] = block.transactions
      expect(deposit).toMatchObject({ type: 'deposit', from: DEPOSITOR, to: L1_BLOCK, mint: 0n })
      const depositReceipt = await c.getTransactionReceipt({ hash: deposit!.hash })
      expect(depositReceipt).toMatchObject({ status: 'success', depositNonce: n - 1n, depositReceiptVersion: 1, l1Fee: null })
      // its raw bytes are the deposit's EIP-2718 encoding, which its hash is the keccak of
      const raw = await c.request({ method: 'eth_getRawTransactionByHash' as never, params: [deposit!.hash] as never })
      expect((raw as Hex).slice(0, 4)).toBe('0x7e')
      expect(keccak256(raw as Hex)).toBe(deposit!.hash)
      const expected = { l1: 0n, base: 0n, tips: 0n }
      for (const tx of paid) {
        const r = await c.getTransactionReceipt({ hash: tx.hash })
        expect(r.l1Fee! > 0n, tx.hash).toBe(true)
        expect(r.l1GasPrice).toBe(10_000_000_000n)
        expected.l1 += r.l1Fee!
        expected.base += block.baseFeePerGas! * r.gasUsed
        expected.tips += (r.effectiveGasPrice - block.baseFeePerGas!) * r.gasUsed
      }
      const credit = async (address: Hex) => (await c.getBalance({ address, blockNumber: n })) - (await c.getBalance({ address, blockNumber: n - 1n }))
      expect(await credit(L1_FEE_VAULT), `block ${n}`).toBe(expected.l1)
      expect(await credit(BASE_FEE_VAULT), `block ${n}`).toBe(expected.base)
      expect(await credit(SEQUENCER_FEE_VAULT), `block ${n}`).toBe(expected.tips)
      expect(block.miner).toBe(SEQUENCER_FEE_VAULT)
    }
  })

  it('replays its blocks by the same rules: every transaction traces by hash with the gas its receipt reports', async () => {
    const c = client()
    const block = await c.getBlock({ blockNumber: 1n })
    for (const hash of block.transactions) {
      const res = await app.fetch('/v1/trace/tx', post({ transactionHash: hash, tracerConfig: { callTracer: {} } }))
      const body = await res.json()
      expect(res.status, JSON.stringify(body)).toBe(200)
      expect(BigInt(body.data.callTracer.gasUsed)).toBe((await c.getTransactionReceipt({ hash })).gasUsed)
    }
  })

  it('a fork of it mines by the OP-stack rules', async () => {
    const res = await app.fetch('/v1/forks', post({}))
    const body = await res.json()
    expect(res.status, JSON.stringify(body)).toBe(201)
    const forkUrl = `${app.url}/v1/forks/${body.data.forkId}/rpc/${app.config.api.auth_token}`
    const rpc = async (method: string, params: unknown[]) => {
      const r = await fetch(forkUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      })
      return ((await r.json()) as { result: any }).result // eslint-disable-line @typescript-eslint/no-explicit-any
    }
    const hash = await rpc('eth_sendTransaction', [{ from: DEV_ACCOUNTS[3], to: DEV_ACCOUNTS[4], value: '0x1' }])
    const receipt = await rpc('eth_getTransactionReceipt', [hash])
    expect(BigInt(receipt.l1Fee)).toBeGreaterThan(0n)
    const block = await rpc('eth_getBlockByNumber', [receipt.blockNumber, false])
    expect(block.transactions).toHaveLength(2)
    expect((await rpc('eth_getTransactionByHash', [block.transactions[0]])).type).toBe('0x7e')
  })

  it("has the GasPriceOracle predeploy: its getL1Fee (viem's estimateL1Fee) prices bytes as the engine's Fjord formula does", async () => {
    const c = client().extend(publicActionsL2())
    const fee = await c.estimateL1Fee({ account: DEV_ACCOUNTS[5] as Hex, to: DEV_ACCOUNTS[6] as Hex, value: 1n, data: '0x1234' })
    expect(fee).toBeGreaterThan(0n)
    const unsigned = '0x02f86b827a6980843b9aca0084773594008252089470997970c51812dc3a010c7d01b50e0d17dc79c80182123400c0' as Hex
    const oracle = await c.readContract({
      address: '0x420000000000000000000000000000000000000f',
      abi: parseAbi(['function getL1Fee(bytes) view returns (uint256)']),
      functionName: 'getL1Fee',
      args: [unsigned],
    })
    const l1 = OP_DEVNET_L1
    const scaled = l1.baseFee * 16n * l1.baseFeeScalar + l1.blobBaseFee * l1.blobBaseFeeScalar
    expect(oracle).toBe((fjordEstimatedSize(hexToBytes(unsigned), 68) * scaled) / 10n ** 12n)
  })

  it.each([
    ['bedrock', { l1FeeScalar: '0.684' }],
    ['ecotone', { l1BaseFeeScalar: '0x558', l1BlobBaseFeeScalar: '0xc5fc5', l1BlobBaseFee: '0x1' }],
  ])(
    'runs %s: the L1 attributes deposit of that fork succeeds and receipts carry its fields, the L1 fee vault credited their fees',
    async (hardfork, fields) => {
      const e = await createEngine({ ...base, chainKind: 'op-stack', hardfork })
      try {
        const block = (await e.readChain(ON_CHAIN, 'eth_getBlockByNumber', ['0x2', false])) as { transactions: Hex[] }
        const [deposit, ...paid] = await Promise.all(
          block.transactions.map((h) => e.readChain(ON_CHAIN, 'eth_getTransactionReceipt', [h]) as Promise<Record<string, string>>),
        )
        expect(deposit!.status).toBe('0x1')
        let fees = 0n
        for (const r of paid) {
          expect(r).toMatchObject({ ...fields, l1GasPrice: '0x2540be400' })
          fees += BigInt(r.l1Fee!)
        }
        const balance = async (n: string) => BigInt((await e.readChain(ON_CHAIN, 'eth_getBalance', [L1_FEE_VAULT, n])) as string)
        expect((await balance('0x2')) - (await balance('0x1'))).toBe(fees)
      } finally {
        await e.close()
      }
    },
  )

  it('runs eth_simulateV1 by the OP-stack rules: the Fjord P256 precompile, the L1 fee credited to its vault, no excess blob gas', async () => {
    const { generateKeyPairSync, createHash, sign } = await import('node:crypto')
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const message = Buffer.from('simulated on an OP-stack chain')
    const jwk = publicKey.export({ format: 'jwk' })
    const p256Input = `0x${Buffer.concat([
      createHash('sha256').update(message).digest(),
      sign('sha256', message, { key: privateKey, dsaEncoding: 'ieee-p1363' }),
      Buffer.from(jwk.x!, 'base64url'),
      Buffer.from(jwk.y!, 'base64url'),
    ]).toString('hex')}`
    // a contract that answers the L1 fee vault's balance (PUSH20 vault BALANCE, returned as a word)
    const reader = '0x00000000000000000000000000000000000bbbbb'
    const readsVault = `0x73${L1_FEE_VAULT.slice(2)}3160005260206000f3`
    const rpc = async (method: string, params: unknown[]) => {
      const res = await fetch(rpcUrl, post({ jsonrpc: '2.0', id: 1, method, params }))
      const body = (await res.json()) as { result?: any; error?: unknown } // eslint-disable-line @typescript-eslint/no-explicit-any
      expect(body.error, JSON.stringify(body.error)).toBeUndefined()
      return body.result
    }
    const head = await rpc('eth_getBlockByNumber', ['latest', false])
    const paid = { gas: '0x30d40', maxFeePerGas: `0x${(BigInt(head.baseFeePerGas) * 2n + 10n ** 9n).toString(16)}`, maxPriorityFeePerGas: '0x3b9aca00' }
    const [block] = await rpc('eth_simulateV1', [
      {
        validation: true,
        blockStateCalls: [
          {
            stateOverrides: { [reader]: { code: readsVault } },
            calls: [
              { from: DEV_ACCOUNTS[0], to: reader, ...paid },
              { from: DEV_ACCOUNTS[0], to: DEV_ACCOUNTS[1], value: '0x1', ...paid },
              { from: DEV_ACCOUNTS[0], to: reader, ...paid },
              { from: DEV_ACCOUNTS[0], to: '0x0000000000000000000000000000000000000100', data: p256Input, ...paid },
            ],
          },
        ],
      },
      'latest',
    ])
    const [before, transfer, after, p256] = block.calls as { status: string; returnData: Hex }[]
    expect(transfer!.status).toBe('0x1')
    // the transfer (and the read before it) paid its L1 fee to the vault
    expect(BigInt(after!.returnData)).toBeGreaterThan(BigInt(before!.returnData))
    expect(p256).toMatchObject({ status: '0x1', returnData: `0x${'0'.repeat(63)}1` })
    expect(block.excessBlobGas ?? '0x0').toBe('0x0')
  })

  it('refuses an OP fork newer than its L1Block predeploy knows, saying which it runs', async () => {
    await expect(createEngine({ ...base, chainKind: 'op-stack', hardfork: 'isthmus' })).rejects.toThrow(/runs the OP forks up to holocene, not 'isthmus'/)
  })
})
