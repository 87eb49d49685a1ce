/**
 * The devnet's own chain through the endpoint's read methods, differentially: the devnet's demo
 * history (the same signed transactions, the same timestamps, gas limit and base fee) is mined on
 * a real Anvil, and every block, transaction, receipt and log read is compared field by field.
 * Only what a chain without tries cannot share with Anvil is masked: state and receipts roots,
 * the block hashes computed over them, mixHash (the devnet's fixed PREVRANDAO) and size. Anvil
 * gives block 1 its configured base fee instead of deriving it from genesis (EIP-1559: 7/8 of
 * genesis's 1 gwei after an empty block), so it is configured with the derived 0.875 gwei and
 * genesis's own base fee is left out of the comparison.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Hex } from 'viem'
import { createDevnet, GENESIS_TIMESTAMP } from '../../../engine/chains/devnet/devnetChain.js'
import { requireAnvil, startAnvil, type AnvilInstance } from '../../support/anvil.js'
import { startRpcApp, type RpcApp } from './rpcApp.js'

const hasAnvil = requireAnvil()
let app: RpcApp
let anvil: AnvilInstance
let head = 0
const anvilHash = new Map<string, Hex>()

beforeAll(async () => {
  app = await startRpcApp()
  if (!hasAnvil) return
  const devnet = await createDevnet()
  anvil = await startAnvil({
    args: ['--no-mining', '--timestamp', String(GENESIS_TIMESTAMP), '--gas-limit', '30000000', '--base-fee', '875000000', '--hardfork', 'osaka'],
  })
  head = Number(devnet.head())
  for (let n = 1; n <= head; n++) {
    const header = await devnet.resolveBlock({ number: BigInt(n) })
    for (const t of await devnet.getBlockTransactions(BigInt(n))) {
      await anvil.rpc('eth_sendRawTransaction', [`0x${Buffer.from(t.tx.serialize()).toString('hex')}`])
    }
    await anvil.rpc('evm_mine', [Number(header.timestamp)])
    const ours = await app.call<{ hash: Hex }>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])
    const theirs = await anvil.rpc<{ hash: Hex }>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])
    anvilHash.set(ours.hash, theirs.hash)
  }
  const genesis = await app.call<{ hash: Hex }>('eth_getBlockByNumber', ['0x0', false])
  anvilHash.set(genesis.hash, (await anvil.rpc<{ hash: Hex }>('eth_getBlockByNumber', ['0x0', false])).hash)
}, 120_000)
afterAll(async () => {
  await app?.close()
  await anvil?.stop()
})

/**
 * Anvil's receipts deviate from geth's: `blobGasPrice` on every receipt (geth: blob transactions
 * only) and a numeric `blockTimestamp` at the top (geth: none; its logs carry a hex one)
 */
function anvilReceiptAsGeth(r: Record<string, unknown>): Record<string, unknown> {
  const { blobGasPrice, blockTimestamp, ...rest } = r
  return { ...rest, ...(r.type === '0x3' && { blobGasPrice }), ...(typeof blockTimestamp === 'string' && { blockTimestamp }) }
}

/** our block hashes replaced by Anvil's for the same block; the roots only a trie has masked */
function comparable(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(comparable)
  if (v === null || typeof v !== 'object') return typeof v === 'string' && anvilHash.has(v) ? anvilHash.get(v) : v
  const out: Record<string, unknown> = {}
  for (const [k, x] of Object.entries(v)) {
    if (k === 'baseFeePerGas' && (v as { number?: unknown }).number === '0x0') continue
    if (
      ['stateRoot', 'receiptsRoot', 'mixHash', 'size', 'hash', 'totalDifficulty', 'requestsHash', 'withdrawalsRoot', 'parentBeaconBlockRoot', 'nonce'].includes(
        k,
      ) &&
      'parentHash' in v
    )
      continue
    out[k] = comparable(x)
  }
  return out
}

describe.runIf(hasAnvil)('devnet reads vs the same history on Anvil', () => {
  it('mined the same transactions into the same blocks', async () => {
    expect(await app.call('eth_blockNumber')).toBe(await anvil.rpc('eth_blockNumber'))
    expect(head).toBe(6)
  })

  it('answers blocks, transactions and receipts as Anvil', async () => {
    for (let n = 0; n <= head; n++) {
      const q = `0x${n.toString(16)}`
      for (const full of [false, true]) {
        const ours = await app.call('eth_getBlockByNumber', [q, full])
        const theirs = await anvil.rpc('eth_getBlockByNumber', [q, full])
        expect(comparable(ours)).toEqual(comparable(theirs))
      }
      const receipts = await app.call<{ transactionHash: Hex }[]>('eth_getBlockReceipts', [q])
      expect(comparable(receipts)).toEqual(comparable((await anvil.rpc<Record<string, unknown>[]>('eth_getBlockReceipts', [q])).map(anvilReceiptAsGeth)))
      for (const r of receipts) {
        expect(comparable(await app.call('eth_getTransactionByHash', [r.transactionHash]))).toEqual(
          comparable(await anvil.rpc('eth_getTransactionByHash', [r.transactionHash])),
        )
        expect(comparable(await app.call('eth_getTransactionReceipt', [r.transactionHash]))).toEqual(
          comparable(anvilReceiptAsGeth(await anvil.rpc('eth_getTransactionReceipt', [r.transactionHash]))),
        )
        expect(await app.call('eth_getRawTransactionByHash', [r.transactionHash])).toBe(await anvil.rpc('eth_getRawTransactionByHash', [r.transactionHash]))
      }
      expect(await app.call('eth_getBlockTransactionCountByNumber', [q])).toBe(await anvil.rpc('eth_getBlockTransactionCountByNumber', [q]))
    }
  })

  it('answers log queries as Anvil', async () => {
    const token = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
    const transfer = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
    const account1 = `0x${'0'.repeat(24)}70997970c51812dc3a010c7d01b50e0d17dc79c8`
    for (const filter of [
      { fromBlock: '0x0', toBlock: 'latest' },
      { fromBlock: '0x3', toBlock: '0x5', address: token },
      { fromBlock: 'earliest', address: [token, '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512'], topics: [transfer] },
      { fromBlock: '0x0', topics: [transfer, null, account1] },
      { fromBlock: '0x0', topics: [null, [account1, `0x${'0'.repeat(64)}`]] },
    ]) {
      expect(comparable(await app.call('eth_getLogs', [filter]))).toEqual(comparable(await anvil.rpc('eth_getLogs', [filter])))
    }
  })

  it('answers state reads at every block as Anvil', async () => {
    const accounts = ['0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', '0x70997970c51812dc3a010c7d01b50e0d17dc79c8', '0x5fbdb2315678afecb367f032d93f642f64180aa3']
    for (let n = 0; n <= head; n++) {
      const q = `0x${n.toString(16)}`
      for (const a of accounts) {
        for (const m of ['eth_getBalance', 'eth_getTransactionCount', 'eth_getCode']) {
          expect(await app.call(m, [a, q]), `${m} ${a} @${q}`).toBe(await anvil.rpc(m, [a, q]))
        }
        expect(await app.call('eth_getStorageAt', [a, '0x2', q])).toBe(await anvil.rpc('eth_getStorageAt', [a, '0x2', q]))
      }
    }
  })

  it('answers fee reads as Anvil where both follow EIP-1559', async () => {
    const ours = await app.call<{ baseFeePerGas: Hex[]; gasUsedRatio: number[]; oldestBlock: Hex }>('eth_feeHistory', ['0x4', 'latest', []])
    const theirs = await anvil.rpc<typeof ours>('eth_feeHistory', ['0x4', 'latest', []])
    expect(ours.baseFeePerGas).toEqual(theirs.baseFeePerGas)
    expect(ours.baseFeePerGas).toHaveLength(5)
    expect(ours.oldestBlock).toBe(theirs.oldestBlock)
    expect(ours.gasUsedRatio).toEqual(theirs.gasUsedRatio)
  })
})

describe('devnet reads without a counterpart', () => {
  it('answers null for what is not there and -32602 for a malformed param', async () => {
    expect(await app.call('eth_getBlockByNumber', ['0x99', false])).toBeNull()
    expect(await app.call('eth_getTransactionByHash', [`0x${'ab'.repeat(32)}`])).toBeNull()
    expect(await app.call('eth_getTransactionReceipt', [`0x${'ab'.repeat(32)}`])).toBeNull()
    await expect(app.call('eth_getTransactionByHash', ['0x12'])).rejects.toMatchObject({
      code: -32602,
      message: 'invalid argument 0: hex string of 32 bytes expected',
    })
    await expect(app.call('eth_getBlockByNumber', ['0x01', false])).rejects.toMatchObject({ code: -32602 })
  })

  it('does not serve eth_getProof (no tries): -32601', async () => {
    await expect(app.call('eth_getProof', ['0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', [], 'latest'])).rejects.toMatchObject({ code: -32601 })
  })
})
