/**
 * A chain source: where blocks, transactions and the state after a block come from. Two kinds,
 * one interface: the embedded devnet (`engine/chains/devnet/`) and a JSON-RPC fork (`engine/chains/remote/rpcChain.ts`).
 */
import type { Common } from '@ethereumjs/common'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { Address, Hex } from 'viem'
import type { BlockSelector } from '../vocabulary.js'
import type { BlockEnv, RunStop } from '../execution/types.js'
import type { AccessList, OverlayStateManager } from '../state/index.js'
import type { UpstreamBudget } from '../upstream/upstreamBudget.js'
import type { ChainRules } from './rules.js'
import type { ChainMetrics } from '../engineMetrics.js'

export interface BlockHeaderInfo extends BlockEnv {
  hash: Hex
  parentHash: Hex
  /** the block's own gas (eth_simulateV1 derives the next base fee from it) */
  gasUsed?: bigint
  /** Cancun on: blob gas the block used (the next excess blob gas follows from it) */
  blobGasUsed?: bigint
  /** the header's extra data when not empty (an OP-stack chain's EIP-1559 parameters from Holocene) */
  extraData?: Hex
}

export interface MinedTransaction {
  /** signed transaction, sender recoverable (or `from` below when the source knows it) */
  tx: TypedTransaction
  from: Address
  hash: Hex
  blockNumber: bigint
  index: number
}

/** the calls a prefetch warms the state for */
export type PrefetchCalls = { from: Address; to?: Address | null; data: Hex; value?: bigint }[]

/**
 * Reads a run will want after it ran, asked ahead in the cold run's state batch (no round trip of
 * their own). Given the block and the calls' access-list hints, it first answers what it still
 * needs (looking up what is kept already; nothing: undefined), then `send` asks for it: each call
 * of `ask` (a read-only JSON-RPC call) must happen before `send` first awaits, so it leaves with
 * the state batch. `send` settles when what it read is kept. Only a cold fork run calls it.
 */
export type SideReads = (block: bigint, hints: (AccessList | undefined)[]) => Promise<SendSideReads | undefined>
export type SendSideReads = (ask: (method: string, params: unknown[]) => Promise<unknown>) => Promise<void>

/** accounts and slots a run reads besides its calls', given the block it runs after */
export type AlsoReads = (header: BlockHeaderInfo) => AccessList

export interface ChainSource {
  readonly chainId: number
  /** the rules of the chain's kind (engine/chains/rules.ts); absent: a plain Ethereum chain */
  readonly rules?: ChainRules
  /** human name for health, e.g. 'devnet', 'mainnet', 'chain-8453' */
  readonly network: string
  /** resolves to a fixed block; throws EngineError BLOCK_NOT_FOUND beyond the head */
  resolveBlock(selector: BlockSelector): Promise<BlockHeaderInfo>
  /** a fresh, per-request state manager holding the state after block `number` */
  stateAfter(number: bigint): Promise<OverlayStateManager>
  /** Common with the hardfork active at that block */
  commonAt(header: BlockHeaderInfo): Common
  getBlockHash(number: bigint): Promise<Hex | undefined>
  /** the header of the block with this hash; undefined when the hash names no block of the chain */
  headerByHash(hash: Hex): Promise<BlockHeaderInfo | undefined>
  /** undefined when the hash is unknown */
  getTransaction(hash: Hex): Promise<MinedTransaction | undefined>
  /** every transaction of the block, in order */
  getBlockTransactions(number: bigint): Promise<MinedTransaction[]>
  /**
   * prefetch hint before a cold run (fork: upstream eth_createAccessList); no-op on the devnet.
   * `also`: accounts and slots the run reads besides the calls' (a block replay: its coinbase and
   * the system contracts' slots); without it the fork adds the coinbase of block `number` itself.
   */
  prefetch?(number: bigint, calls: PrefetchCalls, opts?: { also?: AccessList }): Promise<void>
  /**
   * resolveBlock, then prefetch — in fewer round trips where the source can (fork: the block and
   * the calls' access-list hints leave in one batch when the calls are cold). See resolveAndPrefetch.
   * `also`: what the run reads besides the calls', known once the block is (eth_simulateV1: the
   * system contracts' slots of its simulated blocks); read with the calls' state, with the block's
   * coinbase.
   */
  resolveForCalls?(selector: BlockSelector, calls: PrefetchCalls, opts?: { sideReads?: SideReads; also?: AlsoReads }): Promise<BlockHeaderInfo>
  /**
   * A read-only JSON-RPC call answered by the chain itself, as is: the devnet from its own blocks,
   * transactions, receipts and logs (engine/chains/memory/devnetReads.ts); a fork by its upstream node.
   * Only engine/operations/reads calls it, and only with the methods it allows.
   */
  rawRead?(method: string, params: unknown[]): Promise<unknown>
  /**
   * The real state root of the state after block `number` plus a run's writes on it; only a
   * chain that holds its whole state in process and real roots in its headers has it (the devnet
   * imported from a genesis and its blocks). eth_simulateV1 then gives its blocks geth's roots
   * and hashes; without it they carry the empty-trie root (simHeader.ts).
   */
  stateRoot?(number: bigint, state: OverlayStateManager): Promise<Hex>
  /**
   * Blocks deeper than this below the head can no longer be replaced by a reorg, so their
   * answers may be kept. Undefined: a chain that never reorganises (the devnet) and needs no cache.
   */
  readonly reorgDepth?: bigint
  /**
   * Drops the tracked head (see rpcChain `headMaxAgeMs`); true when there was one, so a request
   * that failed on a block the upstream no longer knows may run once more on `latest` anew.
   */
  forgetHead?(): boolean
  ping(): Promise<boolean>
  /** what the source counted for the operator (engine/engineMetrics.ts); absent: nothing to count (the devnet) */
  metrics?(): ChainMetrics
  /**
   * The same chain for one engine call: every upstream wait it causes ends by `budget`
   * (engine/upstream/upstreamBudget.ts), and it carries the call's `stop` as its `runStop`. Absent
   * where nothing is waited for (the devnet).
   */
  withBudget?(budget: UpstreamBudget, stop?: RunStop): ChainSource
  /**
   * Set on the view of the chain one engine call runs on (engine/index.ts): when that call's
   * runs must stop early; every execution context opened on it carries it.
   */
  readonly runStop?: RunStop
  close(): Promise<void>
}
