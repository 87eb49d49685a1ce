/**
 * The chain's read methods on a writable fork: a block, transaction, receipt or log of the fork's
 * own blocks is answered from them in geth's shapes (the devnet's read code, engine/chains/devnet/
 * devnetReads.ts); anything at or before the fork point goes to the base chain (the upstream,
 * named by number so `latest` never means the upstream's head). eth_getLogs over a range that
 * crosses the fork point merges both.
 */
import type { Hex } from 'viem'
import { parseBlockRef, type BlockRef } from '../../platform/blockRef.js'
import type { ChainSource } from '../types.js'
import { DEV_ACCOUNTS, DEVNET_CHAIN_ID } from '../memory/accounts.js'
import { devnetRead, type DevnetView, type ReadableBlock } from '../memory/devnetReads.js'
import { EngineError } from '../../platform/errors.js'
import { toQuantity as q } from '../../platform/quantity.js'
import type { ForkView } from './forkChain.js'

export interface ForkReadContext {
  view: ForkView
  baseChain: ChainSource
  head(): bigint
}

const HASH = /^0x[0-9a-fA-F]{64}$/

const BY_NUMBER = new Set([
  'eth_getBlockByNumber',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getBlockTransactionCountByNumber',
  'eth_getUncleCountByBlockNumber',
  'eth_getUncleByBlockNumberAndIndex',
])
const BY_BLOCK_HASH = new Set([
  'eth_getBlockByHash',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getBlockTransactionCountByHash',
  'eth_getUncleCountByBlockHash',
  'eth_getUncleByBlockHashAndIndex',
])
const BY_TX_HASH = new Set(['eth_getTransactionByHash', 'eth_getTransactionReceipt', 'eth_getRawTransactionByHash'])
const OWN = new Set([
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_syncing',
  'eth_mining',
  'eth_hashrate',
  'eth_coinbase',
  'net_version',
  'net_listening',
  'net_peerCount',
  'web3_clientVersion',
  'web3_sha3',
])

export function forkView(ctx: ForkReadContext): DevnetView {
  const { view } = ctx
  const fork = view.base.header.number
  const forkPoint: ReadableBlock = { header: view.base.header, ethHeader: view.base.ethHeader, transactions: [], receipts: [] }
  return {
    chainId: view.record.chainId,
    head: ctx.head,
    blockAt: (n) => (n === fork ? forkPoint : n > fork && n <= ctx.head() ? view.blocks[Number(n - fork - 1n)] : undefined),
    blockByHash: (h) => view.blocks.find((b) => b.header.hash === h.toLowerCase()),
    locate: (h) => view.byHash.get(h.toLowerCase() as Hex),
    clientVersion: 'evm-sim-service/fork',
    ...(ctx.baseChain.rules?.txJsonFields && { txJsonFields: ctx.baseChain.rules.txJsonFields }),
    ...(ctx.baseChain.rules?.encodeTx && { encodeTx: ctx.baseChain.rules.encodeTx }),
    ...(ctx.baseChain.rules?.nextBaseFee && { nextBaseFee: ctx.baseChain.rules.nextBaseFee }),
  }
}

/** a block parameter → its number (tags: the fork's head; earliest: 0); not a block parameter: undefined */
function numberOf(ctx: ForkReadContext, v: unknown): bigint | undefined {
  if (v === undefined || v === null) return ctx.head()
  let ref: BlockRef
  try {
    ref = parseBlockRef(v, { hash: false })
  } catch {
    return undefined
  }
  if ('number' in ref) return ref.number
  return 'tag' in ref && ref.tag === 'earliest' ? 0n : ctx.head()
}

export async function forkRead(ctx: ForkReadContext, method: string, params: unknown[]): Promise<unknown> {
  const { view, baseChain } = ctx
  const fork = view.base.header.number
  const base = (m: string, p: unknown[]) => baseChain.rawRead!(m, p)
  const own = (m: string, p: unknown[]) => devnetRead(forkView(ctx), m, p)
  const isOwnHash = (h: unknown) => typeof h === 'string' && HASH.test(h) && view.blocks.some((b) => b.header.hash === h.toLowerCase())

  if (method === 'eth_blockNumber') return q(ctx.head())
  if (OWN.has(method)) return own(method, params)
  if (method === 'eth_accounts') {
    // a devnet fork signs for the dev accounts (eth_sendTransaction), like Anvil
    const dev = view.record.chainId === DEVNET_CHAIN_ID && baseChain.network === 'devnet' ? DEV_ACCOUNTS.map((a) => a.address) : []
    return [...new Set([...dev, ...(view.record.signers ?? []).map((s) => s.address), ...view.record.impersonated])]
  }
  if (BY_NUMBER.has(method)) {
    const n = numberOf(ctx, params[0])
    if (n === undefined) return own(method, params) // the devnet's own parameter errors
    if (n > ctx.head()) return null
    const p = [q(n), ...params.slice(1)]
    return n > fork ? own(method, p) : base(method, p)
  }
  if (BY_BLOCK_HASH.has(method)) return isOwnHash(params[0]) ? own(method, params) : base(method, params)
  if (BY_TX_HASH.has(method)) {
    const h = params[0]
    return typeof h === 'string' && view.byHash.has(h.toLowerCase() as Hex) ? own(method, params) : base(method, params)
  }
  if (method === 'eth_getBlockReceipts') {
    const p = params[0]
    const ref =
      p !== null && typeof p === 'object'
        ? ((p as { blockHash?: unknown; blockNumber?: unknown }).blockHash ?? (p as { blockNumber?: unknown }).blockNumber)
        : p
    if (typeof ref === 'string' && HASH.test(ref)) return isOwnHash(ref) ? own(method, [ref]) : base(method, [ref])
    const n = numberOf(ctx, ref)
    if (n === undefined) return own(method, params)
    if (n > ctx.head()) return null
    return n > fork ? own(method, [q(n)]) : base(method, [q(n)])
  }
  if (method === 'eth_getLogs') return getLogs(ctx, params[0], own, base)
  if (method === 'eth_feeHistory') {
    // history before the fork point is the upstream's; the fork answers from its point on
    const newest = numberOf(ctx, params[1])
    const count =
      typeof params[0] === 'number' ? BigInt(params[0]) : typeof params[0] === 'string' && /^0x[0-9a-fA-F]+$/.test(params[0]) ? BigInt(params[0]) : undefined
    if (newest === undefined || count === undefined || newest < fork) return base(method, params)
    const reach = newest - fork + 1n
    return own(method, [q(count < reach ? count : reach), q(newest), ...params.slice(2)])
  }
  if (method === 'eth_getProof') {
    const n = numberOf(ctx, params[2])
    if (n !== undefined && n > fork) {
      throw new EngineError('NOT_FOUND', "the method eth_getProof does not exist/is not available on a fork's own blocks (they keep no state trie)", {
        unsupportedMethod: true,
      })
    }
    return base(method, params)
  }
  return base(method, params)
}

type Read = (m: string, p: unknown[]) => Promise<unknown>

async function getLogs(ctx: ForkReadContext, filter: unknown, own: Read, base: Read): Promise<unknown> {
  const fork = ctx.view.base.header.number
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) return own('eth_getLogs', [filter])
  const f = filter as Record<string, unknown>
  if (f.blockHash !== undefined) {
    const mine = typeof f.blockHash === 'string' && ctx.view.blocks.some((b) => b.header.hash === (f.blockHash as string).toLowerCase())
    return mine ? own('eth_getLogs', [f]) : base('eth_getLogs', [f])
  }
  const from = numberOf(ctx, f.fromBlock)
  const to = numberOf(ctx, f.toBlock)
  if (from === undefined || to === undefined) return own('eth_getLogs', [f])
  if (from > to) return own('eth_getLogs', [{ ...f, fromBlock: q(from), toBlock: q(to) }])
  const parts: unknown[][] = []
  if (from <= fork) parts.push((await base('eth_getLogs', [{ ...f, fromBlock: q(from), toBlock: q(to < fork ? to : fork) }])) as unknown[])
  if (to > fork) {
    const start = from > fork ? from : fork + 1n
    parts.push((await own('eth_getLogs', [{ ...f, fromBlock: q(start), toBlock: q(to) }])) as unknown[])
  }
  return parts.flat()
}
