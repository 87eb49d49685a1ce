/**
 * Writable forks: what a fork is as stored (its record and its blocks) and the store contract.
 *
 * A fork's record is small and rewritten on every change; its blocks are append-only and keyed by
 * number. Every change is one `commit`: the new record and any new blocks, written together and
 * only if the stored version is still the one the change started from (compare-and-set). So a
 * block is never stored without its receipts, and two instances writing one fork at once end up
 * one after the other: the loser re-reads the fork and runs its change again.
 */
import type { Address, Hex } from 'viem'
import type { WritesJson } from './forkState.js'
import type { ForkPointTag } from '../../platform/blockRef.js'
import type { StateOverrides } from '../../vocabulary.js'

/** what a fork returned by the REST resource looks like */
export interface ForkInfo {
  forkId: string
  chainId: number
  forkBlockNumber: Hex
  headBlockNumber: Hex
  /** ISO 8601 */
  createdAt: string
  expiresAt: string
  label: string | null
  /** transactions the fork mined */
  transactionCount: number
}

export interface CreateForkParams {
  blockNumber?: bigint
  blockTag?: ForkPointTag
  ttlSeconds?: number
  label?: string
  /** the fork's chain id (a development node's `--chain-id`); default: the forked chain's */
  chainId?: number
  /** accounts whose keys the fork holds: listed by eth_accounts, signing what eth_sendTransaction sends from them (a development node's mnemonic accounts) */
  signers?: ForkSigner[]
}

/** an account a fork signs for: a development key, never one holding real value */
export interface ForkSigner {
  address: Address
  privateKey: Hex
}

export interface ForkLimits {
  maxForks: number
  defaultTtlSeconds: number
  maxBlocks: number
  maxStateBytes: number
}

export const DEFAULT_FORK_LIMITS: ForkLimits = {
  maxForks: 100,
  defaultTtlSeconds: 86_400,
  maxBlocks: 10_000,
  maxStateBytes: 64 * 2 ** 20,
}

export interface PoolTx {
  raw: Hex
  from: Address
  hash: Hex
  /** sent by eth_sendTransaction from an impersonated or dev account: no signature */
  impersonated: boolean
}

/** what a snapshot (evm_snapshot) restores */
export interface ForkMark {
  head: { number: Hex; hash: Hex }
  pending: WritesJson | null
  timeOffset: string
  nextTimestamp: string | null
  transactionCount: number
  stateBytes: number
  pool: PoolTx[]
}

export interface ForkRecord extends ForkMark {
  id: string
  label: string | null
  chainId: number
  forkBlockNumber: Hex
  forkBlockHash: Hex
  /** ms since the epoch */
  createdAt: number
  ttlSeconds: number
  /** bumped by every commit */
  version: number
  /** bumped when history is rewritten (a revert, a reset): blocks held of an older epoch are reloaded */
  epoch: number
  automine: boolean
  /** senders eth_sendTransaction accepts without a key (anvil_impersonateAccount) */
  impersonated: Address[]
  autoImpersonate: boolean
  /** accounts the fork signs eth_sendTransaction for (CreateForkParams.signers); absent: none */
  signers?: ForkSigner[]
  nextBaseFee: string | null
  snapshots: Record<string, ForkMark>
  nextSnapshotId: number
}

/** one mined block as kept in the store */
export interface StoredBlock {
  number: Hex
  hash: Hex
  /** the RLP of the ethereumjs header (its hash is `hash`) */
  header: Hex
  txs: PoolTx[]
  receipts: StoredReceipt[]
  /** cheats applied since the previous block, before this block's transactions */
  pre: WritesJson | null
  /** the writes of this block's transactions (and fees) */
  diff: WritesJson
}

const blockTexts = new WeakMap<StoredBlock, string>()

/**
 * A mined block's JSON, made once: its length counts against the fork's state cap, and the store
 * keeps the same text (a block is never changed once mined).
 */
export function storedBlockJson(block: StoredBlock): string {
  let text = blockTexts.get(block)
  if (text === undefined) blockTexts.set(block, (text = JSON.stringify(block)))
  return text
}

export interface StoredReceipt {
  transactionHash: Hex
  from: Address
  to: Address | null
  status: 'success' | 'reverted'
  gasUsed: Hex
  cumulativeGasUsed: Hex
  effectiveGasPrice: Hex
  contractAddress: Address | null
  logs: { address: Address; topics: Hex[]; data: Hex }[]
  /** what the chain's node adds to the receipt (op-geth's L1 fee fields, a deposit's nonce) */
  chainFields?: Record<string, unknown>
}

export interface StoredFork {
  record: ForkRecord
  /** ms since the epoch */
  expiresAt: number
}

/** where forks live: in process (memory://) or in Redis, shared by every instance */
export interface ForkStore {
  /** undefined: unknown, deleted or expired */
  read(id: string): Promise<StoredFork | undefined>
  readBlocks(id: string, numbers: bigint[]): Promise<(StoredBlock | undefined)[]>
  /**
   * Atomically, only when the stored version is `expected` (null: the fork must not exist yet):
   * store `record` (whose version is expected + 1) and `blocks`, and set the expiry to now + ttl.
   * False when another writer got there first.
   */
  commit(id: string, expected: number | null, record: ForkRecord, blocks: StoredBlock[]): Promise<boolean>
  /**
   * Atomically: stores a new fork's `record` (version 1) only if no fork has this id and fewer
   * than `maxForks` live forks exist — one check and write, so creations racing on several
   * instances never pass the cap. 'full': refused by the cap; 'taken': the id exists.
   */
  create(id: string, record: ForkRecord, maxForks: number): Promise<'created' | 'full' | 'taken'>
  /** moves the expiry to now + the fork's TTL; the new expiry, undefined when the fork is gone */
  touch(id: string, ttlSeconds: number): Promise<number | undefined>
  delete(id: string): Promise<boolean>
  list(): Promise<StoredFork[]>
  /** live forks */
  count(): Promise<number>
  close(): Promise<void>
}

/**
 * eth_sendTransaction's call: a transaction from `from` (an impersonated account or a devnet dev
 * account), its nonce, gas and fees filled as Anvil fills them where not given
 */
export interface SendCall {
  from: Address
  to?: Address | null
  data: Hex
  value?: bigint
  gas?: bigint
  gasPrice?: bigint
  maxFeePerGas?: bigint
  maxPriorityFeePerGas?: bigint
  nonce?: bigint
  accessList?: { address: Address; storageKeys: Hex[] }[]
}

/**
 * What a development node does on a writable fork, one variant per operation, in the engine's own
 * terms (the JSON-RPC names and their Anvil, Hardhat and Ganache aliases are the HTTP layer's:
 * src/rpc/methods/dev.ts). Values arrive read and checked; the engine answers canonical JSON
 * values (a transaction hash, a snapshot id, a quantity as 0x-hex) or null.
 */
export type ForkDevRequest =
  /** a signed transaction into the pool (mined at once with automine); answers its hash */
  | { method: 'sendRawTransaction'; raw: Hex }
  /** a transaction built, filled and signed (or impersonated) for `call.from`; answers its hash */
  | { method: 'sendTransaction'; call: SendCall }
  /** the nonce the next transaction of `address` must carry, the pool counted */
  | { method: 'pendingNonce'; address: Address }
  /** `blocks` blocks (default 1), `interval` seconds apart (default 1), the first at `timestamp` when given */
  | { method: 'mine'; blocks?: bigint; interval?: bigint; timestamp?: bigint }
  | { method: 'setAutomine'; enabled: boolean }
  | { method: 'getAutomine' }
  /** answers the new snapshot's id */
  | { method: 'snapshot' }
  /** back to snapshot `id`, dropping it and every later one; answers false for an unknown id */
  | { method: 'revert'; id: bigint }
  /** moves the clock by `seconds` (negative: back); answers the total offset */
  | { method: 'increaseTime'; seconds: bigint }
  | { method: 'setNextBlockTimestamp'; timestamp: bigint }
  | { method: 'setNextBlockBaseFee'; baseFee: bigint }
  | { method: 'setBalance'; address: Address; balance: bigint }
  | { method: 'setNonce'; address: Address; nonce: bigint }
  | { method: 'setCode'; address: Address; code: Hex }
  /** `slot` and `value` as 32-byte words */
  | { method: 'setStorageAt'; address: Address; slot: Hex; value: Hex }
  | { method: 'impersonate'; address: Address }
  | { method: 'stopImpersonating'; address: Address }
  | { method: 'autoImpersonate'; enabled: boolean }
  /** answers Anvil's state dump (hex of gzipped JSON) of what the fork changed */
  | { method: 'dumpState' }
  /** sets what a dump holds: each account's nonce, balance, code and slots */
  | { method: 'loadState'; state: StateOverrides }
  /** starts over from the fork point, or from `blockNumber` of the same upstream */
  | { method: 'reset'; blockNumber?: bigint }
