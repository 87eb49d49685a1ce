/**
 * A writable fork as a ChainSource: blocks up to the fork point are the base chain's (the
 * upstream through the shared fork cache, or the embedded devnet); blocks after it are the fork's
 * own, decoded from the store. Every engine operation (simulate, eth_call, traces, reads) runs on
 * it unchanged: the fork is one more chain source, not a second engine.
 *
 * The state after a fork block is the base state at the fork point under the fork's layers, plus
 * the cheats (anvil_setBalance, …) made after that block: the ones already folded into the next
 * block (its `pre`), or the pending ones at the head. So a replay of a block's transactions
 * (debug_traceTransaction) starts from exactly the state the block was mined on.
 */
import { preparedCommon } from '../../execution/preparedCommon.js'
import { createBlockHeaderFromRLP, type BlockHeader } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx'
import { Address as EjsAddress, hexToBytes } from '@ethereumjs/util'
import { LRUCache } from 'lru-cache'
import type { Hex } from 'viem'
import type { ChainRules } from '../rules.js'
import type { BlockHeaderInfo, ChainSource, MinedTransaction, PrefetchCalls } from '../types.js'
import type { RunStop } from '../../execution/types.js'
import type { DevnetReceipt } from '../memory/mineBlock.js'
import { headerInfo } from '../memory/mineBlock.js'
import { EngineError } from '../../platform/errors.js'
import { toQuantity } from '../../platform/quantity.js'
import { OverlayStateManager, type AccessList, type StateSource, type StateWrites } from '../../state/index.js'
import type { BlockSelector } from '../../vocabulary.js'
import { DiffLayer, ForkedStateSource, writesFromJson } from './forkState.js'
import { forkRead } from './forkReads.js'
import type { ForkRecord, PoolTx, StoredBlock } from './types.js'

export interface LoadedBlock {
  header: BlockHeaderInfo
  ethHeader: BlockHeader
  transactions: MinedTransaction[]
  receipts: DevnetReceipt[]
  stored: StoredBlock
  /** the state after this block's transactions */
  end: DiffLayer
  /** its cheats (applied before its transactions) */
  pre: StateWrites | undefined
}

/** the base chain at the fork point */
export interface ForkBase {
  chain: ChainSource
  header: BlockHeaderInfo
  ethHeader: BlockHeader
  state: StateSource
}

/** one fork as this instance holds it: the record and the blocks up to its head */
export interface ForkView {
  record: ForkRecord
  expiresAt: number
  base: ForkBase
  /** index i: block forkBlockNumber + 1 + i */
  blocks: LoadedBlock[]
  pending: StateWrites | undefined
  byHash: TxIndex
}

/** a view's transactions by hash (never changed once made: a later view copies it) */
export type TxIndex = ReadonlyMap<Hex, { block: LoadedBlock; index: number }>

export const forkNumber = (view: ForkView): bigint => view.base.header.number
export const headNumber = (view: ForkView): bigint => view.base.header.number + BigInt(view.blocks.length)

/**
 * Decoded pool transactions, by hash and fork. A send decodes its transaction once to check it,
 * then mining, the block's transaction root, loading the mined block and every later trace need
 * it again; each decode copies the chain's Common (ethereumjs' constructor does) and, unfrozen,
 * recovers the signature on every `getSenderAddress`. A transaction is immutable once decoded, so
 * one object serves them all.
 */
const decoded = new LRUCache<string, TypedTransaction>({ max: 4096 })

/**
 * A stored transaction as the engine runs it. Its sender is the one recorded when the fork
 * accepted it (a recovered signature, or the impersonated account): the store is the service's
 * own, so a replay never recovers the signature again.
 */
export function decodePoolTx(common: Common, t: PoolTx, rules?: ChainRules): TypedTransaction {
  const held = decoded.get(decodedKey(common, t))
  if (held) return held
  // a type only the chain has (an OP-stack block's L1 attributes deposit)
  const own = rules?.decodeRaw?.(hexToBytes(t.raw), common)
  return holdDecodedTx(common, t, own?.tx ?? createTxFromRLP(hexToBytes(t.raw), { common: preparedCommon(common), freeze: false }))
}

const decodedKey = (common: Common, t: PoolTx) => `${common.hardfork()}:${t.impersonated ? 'i' : 's'}:${t.hash}`

/** `tx` (decoded from `t.raw` unfrozen) answering for the recorded sender, kept for the next decode */
export function holdDecodedTx(common: Common, t: PoolTx, tx: TypedTransaction): TypedTransaction {
  const sender = new EjsAddress(hexToBytes(t.from))
  const fixed: Record<string, unknown> = { getSenderAddress: () => sender }
  if (t.impersonated) {
    const hash = hexToBytes(t.hash)
    Object.assign(fixed, { isSigned: () => true, hash: () => hash })
  }
  Object.assign(tx, fixed)
  decoded.set(decodedKey(common, t), tx)
  return tx
}

/** a stored block decoded on top of `parent` (its end layer) */
export function loadBlock(base: ForkBase, parentEnd: DiffLayer, stored: StoredBlock): LoadedBlock {
  const number = BigInt(stored.number)
  const common = base.chain.commonAt({ ...base.header, number, timestamp: base.header.timestamp })
  const ethHeader = createBlockHeaderFromRLP(hexToBytes(stored.header), { common: preparedCommon(common), setHardfork: false })
  const header = headerInfo(ethHeader)
  // one Common for the block's transactions (a copy per transaction costs more than decoding it)
  const txCommon = base.chain.commonAt(header)
  const transactions = stored.txs.map((t, index) => ({
    tx: decodePoolTx(txCommon, t, base.chain.rules),
    from: t.from,
    hash: t.hash,
    blockNumber: number,
    index,
  }))
  const receipts: DevnetReceipt[] = stored.receipts.map((r, i) => ({
    transactionHash: r.transactionHash,
    transactionIndex: i,
    blockNumber: number,
    from: r.from,
    to: r.to,
    status: r.status,
    gasUsed: BigInt(r.gasUsed),
    cumulativeGasUsed: BigInt(r.cumulativeGasUsed),
    effectiveGasPrice: BigInt(r.effectiveGasPrice),
    contractAddress: r.contractAddress,
    logs: r.logs,
    ...(r.chainFields && { chainFields: r.chainFields }),
  }))
  const pre = stored.pre ? writesFromJson(stored.pre) : undefined
  const end = (pre ? parentEnd.with(pre) : parentEnd).with(writesFromJson(stored.diff))
  return { header, ethHeader, transactions, receipts, stored, end, pre }
}

/**
 * Reads the accounts a change is about to touch ahead, in one round trip: those neither the fork's
 * head (its blocks and pending cheats) nor the shared fork cache holds. A mined block reads its
 * system contracts, its coinbase and each transaction's sender and target; one by one, the first
 * block's would be a round trip each. Nothing is asked when all are held.
 */
export async function readAheadAccounts(view: ForkView, addresses: Hex[]): Promise<void> {
  const head = view.blocks.length ? view.blocks[view.blocks.length - 1]!.end : undefined
  const unknown = [...new Set(addresses.map((a) => a.toLowerCase() as Hex))].filter(
    (a) => view.pending?.accounts.get(a) === undefined && head?.account(a) === undefined,
  )
  if (unknown.length === 0) return
  await view.base.chain.prefetch?.(forkNumber(view), [], { also: unknown.map((address) => ({ address, storageKeys: [] })) }).catch(() => undefined)
}

/**
 * The transactions of `blocks` by hash. `prior`, a view whose blocks may begin these, has its index
 * copied and extended rather than rebuilt: a fork's blocks only grow within one history, and a send
 * would otherwise index every block of the fork again.
 */
export function indexBlocks(blocks: LoadedBlock[], prior?: { blocks: LoadedBlock[]; byHash: TxIndex }): TxIndex {
  const n = prior?.blocks.length ?? 0
  // within one history a block's object is made once, on its parent's: the same last block, the same prefix
  const extended = prior !== undefined && n <= blocks.length && (n === 0 || blocks[n - 1] === prior.blocks[n - 1])
  if (extended && n === blocks.length) return prior.byHash
  const byHash = new Map(extended ? prior.byHash : undefined)
  for (const block of extended ? blocks.slice(n) : blocks) block.transactions.forEach((t, index) => byHash.set(t.hash, { block, index }))
  return byHash
}

/**
 * the fork's chain source over one view (a consistent picture of the fork for one call), its runs
 * stopping where `stop` says
 */
export function forkChainOf(view: ForkView, baseChain: ChainSource = view.base.chain, stop: RunStop | undefined = baseChain.runStop): ChainSource {
  const fork = forkNumber(view)
  const head = () => headNumber(view)
  const own = (n: bigint): LoadedBlock | undefined => (n > fork && n <= head() ? view.blocks[Number(n - fork - 1n)] : undefined)
  const ownByHash = (hash: Hex) => view.blocks.find((b) => b.header.hash === hash.toLowerCase())
  const root = DiffLayer.root()
  /** the code the fork set at `address` in the state after block n (its cheats after n included); undefined: the base's */
  const forkCodeAfter = (n: bigint) => {
    const layer = n > fork && n <= head() ? own(n)!.end : undefined
    const after = n === head() ? view.pending : own(n + 1n)?.pre
    return (address: Hex): Uint8Array | undefined => after?.code.get(address) ?? layer?.code(address)
  }

  const chain: ChainSource = {
    chainId: view.record.chainId,
    network: `fork-${view.record.chainId}`,
    // the base chain's rules: a fork of an OP-stack chain mines and replays by them
    ...(baseChain.rules && { rules: baseChain.rules }),
    async resolveBlock(selector: BlockSelector): Promise<BlockHeaderInfo> {
      if ('tag' in selector) {
        if (selector.tag === 'earliest') return baseChain.resolveBlock(selector)
        return { ...(own(head())?.header ?? view.base.header) }
      }
      const n = selector.number
      if (n > head()) throw new EngineError('BLOCK_NOT_FOUND', `block ${toQuantity(n)} is beyond the fork's head ${toQuantity(head())}`)
      if (n === fork) return { ...view.base.header }
      return n > fork ? { ...own(n)!.header } : baseChain.resolveBlock(selector)
    },
    async stateAfter(n: bigint): Promise<OverlayStateManager> {
      if (n < fork) return baseChain.stateAfter(n)
      if (n > head()) throw new EngineError('BLOCK_NOT_FOUND', `block ${toQuantity(n)} is beyond the fork's head ${toQuantity(head())}`)
      const layer = n === fork ? root : own(n)!.end
      // the cheats made after block n: folded into the next block, or still pending at the head
      const after = n === head() ? view.pending : own(n + 1n)?.pre
      return new OverlayStateManager(new ForkedStateSource(view.base.state, after ? layer.with(after) : layer))
    },
    commonAt: (header) => baseChain.commonAt(header),
    async getBlockHash(n: bigint): Promise<Hex | undefined> {
      if (n > head()) return undefined
      if (n === fork) return view.base.header.hash
      return n > fork ? own(n)!.header.hash : baseChain.getBlockHash(n)
    },
    async headerByHash(hash: Hex): Promise<BlockHeaderInfo | undefined> {
      const b = ownByHash(hash)
      return b ? { ...b.header } : baseChain.headerByHash(hash)
    },
    async getTransaction(hash: Hex): Promise<MinedTransaction | undefined> {
      const at = view.byHash.get(hash.toLowerCase() as Hex)
      return at ? at.block.transactions[at.index] : baseChain.getTransaction(hash)
    },
    async getBlockTransactions(n: bigint): Promise<MinedTransaction[]> {
      if (n > head()) throw new EngineError('BLOCK_NOT_FOUND', `block ${toQuantity(n)} is beyond the fork's head ${toQuantity(head())}`)
      return n > fork ? [...own(n)!.transactions] : baseChain.getBlockTransactions(n)
    },
    async prefetch(n, calls, opts) {
      // The upstream's access lists at the fork point warm the shared fork cache: the accounts a
      // call reads there are mostly the ones it reads on the fork. Not for a call to code the fork
      // set (deployed, or a cheat): the upstream runs other code there, or none, so its hint names
      // nothing the fork reads. Without a call to hint, what the run may read besides (`also`: a
      // replay's system-call slots, the coinbase) is left to the run: asked alone it would be a
      // round trip the run may not need, while asked with hints it rides in their batch.
      const forkCode = forkCodeAfter(n)
      const ownCode = (c: PrefetchCalls[number]) => !!c.to && forkCode(c.to.toLowerCase() as Hex) !== undefined
      const upstreamCalls = calls.filter((c) => !ownCode(c))
      // the senders of the others are still read ahead, without a hint (nothing is asked when held)
      const senders = calls.filter(ownCode).map((c) => ({ address: c.from.toLowerCase() as Hex, storageKeys: [] as Hex[] }))
      const prefetch = (c: PrefetchCalls, also: AccessList | undefined) =>
        baseChain.prefetch?.(fork, c, { ...opts, ...(also && { also }) }).catch(() => undefined)
      if (upstreamCalls.length > 0) await prefetch(upstreamCalls, senders.length > 0 ? [...(opts?.also ?? []), ...senders] : opts?.also)
      else if (senders.length > 0) await prefetch([], senders)
    },
    rawRead: (method, params) => forkRead({ view, baseChain, head }, method, params),
    ping: () => baseChain.ping(),
    withBudget: (budget, s) => forkChainOf(view, baseChain.withBudget?.(budget, s) ?? baseChain, s),
    runStop: stop,
    async close() {},
  }
  return chain
}
