/**
 * The writable forks of one engine: creating, finding, listing and deleting them, and keeping
 * this instance's picture of each fork in step with the store.
 *
 * Reads: every call reads the fork's record (one store round trip) and, when another instance
 * changed it, the blocks this instance has not seen yet. Within one history (`epoch`) blocks are
 * only appended, so those are the blocks above what is held; a revert or reset starts a new
 * history and the next call reloads.
 *
 * Writes: `write` runs a change on the newest view and commits it with a compare-and-set on the
 * record's version. Changes to one fork are queued in this instance; an instance that loses a
 * race with another re-reads the fork and runs its change again, so concurrent sends end up in
 * distinct, consecutive blocks, in nonce order, none lost and none twice.
 */
import { randomUUID } from 'node:crypto'
import { toQuantity as q } from '../../platform/quantity.js'
import { createBlockHeader } from '@ethereumjs/block'
import { createAddressFromString, hexToBytes } from '@ethereumjs/util'
import type { Address } from 'viem'
import type { Common } from '@ethereumjs/common'
import type { BlockHeaderInfo, ChainSource } from '../types.js'
import { EngineError } from '../../platform/errors.js'
import { PLACEHOLDER_STATE_ROOT } from '../../state/index.js'
import { indexBlocks, loadBlock, type ForkBase, type ForkView } from './forkChain.js'
import { DiffLayer, writesFromJson } from './forkState.js'
import type { CreateForkParams, ForkInfo, ForkLimits, ForkRecord, ForkStore, StoredBlock, StoredFork } from './types.js'

const iso = (ms: number) => new Date(ms).toISOString()
const FORK_ID = /^fork_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
/** attempts of one change against writers on other instances */
const MAX_ATTEMPTS = 50
/** a use moves the expiry forward once it is this far behind (or a tenth of the TTL): one write a minute at most */
const TOUCH_EVERY_MS = 60_000
/** forks whose blocks this instance keeps decoded */
const HELD_FORKS = 64

export function forkNotFound(id: string): EngineError {
  return new EngineError('FORK_NOT_FOUND', `fork ${id} not found (unknown, deleted or expired)`, { forkId: id }, 'create a fork with POST /v1/forks')
}

function tooManyForks(max: number): EngineError {
  return new EngineError(
    'FORK_LIMIT_REACHED',
    `there are already ${max} forks (forks.max_forks)`,
    { limit: 'forks.max_forks' },
    'delete a fork you no longer need, or raise forks.max_forks',
  )
}

export interface ForkServiceOptions {
  chain: ChainSource
  store: ForkStore
  limits: ForkLimits
}

/** a change: the new record, the blocks it appends, its answer; `view`: those blocks already decoded */
export type Change<T> = (view: ForkView) => Promise<{ record: ForkRecord; blocks?: StoredBlock[]; result: T; view?: ForkView }>

export interface ForkService {
  create(params: CreateForkParams): Promise<ForkInfo>
  get(id: string): Promise<ForkInfo>
  list(): Promise<ForkInfo[]>
  /** forks open (not expired) */
  count(): Promise<number>
  delete(id: string): Promise<void>
  /** the newest view of the fork (throws FORK_NOT_FOUND) */
  view(id: string): Promise<ForkView>
  write<T>(id: string, change: Change<T>): Promise<T>
  readonly limits: ForkLimits
  close(): Promise<void>
}

export function infoOf(record: ForkRecord, expiresAt: number): ForkInfo {
  return {
    forkId: record.id,
    chainId: record.chainId,
    forkBlockNumber: record.forkBlockNumber,
    headBlockNumber: record.head.number,
    createdAt: iso(record.createdAt),
    expiresAt: iso(expiresAt),
    label: record.label,
    transactionCount: record.transactionCount,
  }
}

/** what one engine's forks share: the chain they fork, the store, and this instance's state of them */
interface Forks {
  readonly chain: ChainSource
  readonly store: ForkStore
  readonly limits: ForkLimits
  /** the views this instance holds, least recently used first (at most HELD_FORKS) */
  readonly views: Map<string, ForkView>
  /** per fork, the tail of the changes queued in this instance */
  readonly queues: Map<string, Promise<unknown>>
}

export function createForkService(opts: ForkServiceOptions): ForkService {
  const forks: Forks = { chain: opts.chain, store: opts.store, limits: opts.limits, views: new Map(), queues: new Map() }
  return {
    limits: opts.limits,
    create: (params) => createFork(forks, params),
    async get(id) {
      const stored = await readStored(forks, id)
      return infoOf(stored.record, stored.expiresAt)
    },
    async list() {
      const all = await forks.store.list()
      return all.sort((a, b) => a.record.createdAt - b.record.createdAt).map((s) => infoOf(s.record, s.expiresAt))
    },
    count: () => forks.store.count(),
    async delete(id) {
      if (!FORK_ID.test(id) || !(await forks.store.delete(id))) throw forkNotFound(id)
      forks.views.delete(id)
    },
    view: (id) => viewOf(forks, id),
    write: (id, change) => queueChange(forks, id, change),
    async close() {
      await forks.store.close()
    },
  }
}

// ---- creating a fork ----

async function createFork({ chain, store, limits }: Forks, params: CreateForkParams): Promise<ForkInfo> {
  // a cheap early refusal (no upstream read when full); the store's create is the atomic check
  if ((await store.count()) >= limits.maxForks) throw tooManyForks(limits.maxForks)
  const header = await chain.resolveBlock(params.blockNumber !== undefined ? { number: params.blockNumber } : { tag: params.blockTag ?? 'latest' })
  const id = `fork_${randomUUID()}`
  const ttlSeconds = params.ttlSeconds ?? limits.defaultTtlSeconds
  const record = newForkRecord(id, params.chainId ?? chain.chainId, header, params.label ?? null, ttlSeconds)
  if (params.signers?.length) record.signers = params.signers.map((s) => ({ address: s.address.toLowerCase() as Address, privateKey: s.privateKey }))
  const created = await store.create(id, record, limits.maxForks)
  if (created === 'full') throw tooManyForks(limits.maxForks)
  if (created === 'taken') throw new EngineError('INTERNAL_ERROR', 'a new fork id collided')
  // the expiry the caller is told counts from the creation it is told of (the store's own is a moment later)
  return infoOf(record, record.createdAt + ttlSeconds * 1000)
}

/** a fork just made at `header`: no block of its own yet, automining, no snapshot */
function newForkRecord(id: string, chainId: number, header: BlockHeaderInfo, label: string | null, ttlSeconds: number): ForkRecord {
  return {
    id,
    label,
    chainId,
    forkBlockNumber: q(header.number),
    forkBlockHash: header.hash,
    createdAt: Date.now(),
    ttlSeconds,
    version: 1,
    epoch: 0,
    head: { number: q(header.number), hash: header.hash },
    pending: null,
    timeOffset: '0',
    nextTimestamp: null,
    transactionCount: 0,
    stateBytes: 0,
    pool: [],
    automine: true,
    impersonated: [],
    autoImpersonate: false,
    nextBaseFee: null,
    snapshots: {},
    nextSnapshotId: 0,
  }
}

// ---- reading a fork: its record, then the blocks this instance has not seen ----

/** the newest view of fork `id` (throws FORK_NOT_FOUND) */
async function viewOf(forks: Forks, id: string): Promise<ForkView> {
  return sync(forks, await readStored(forks, id))
}

async function readStored({ store, views }: Forks, id: string): Promise<StoredFork> {
  if (!FORK_ID.test(id)) throw forkNotFound(id)
  const stored = await store.read(id)
  if (!stored) {
    views.delete(id)
    throw forkNotFound(id)
  }
  // each use moves the expiry forward by the fork's TTL (at most one write a minute)
  const ttlMs = stored.record.ttlSeconds * 1000
  if (Date.now() + ttlMs - stored.expiresAt > Math.min(TOUCH_EVERY_MS, ttlMs / 10)) {
    const moved = await store.touch(id, stored.record.ttlSeconds)
    if (moved === undefined) throw forkNotFound(id)
    stored.expiresAt = moved
  }
  return stored
}

/**
 * The held view when it is the stored version; else one built on what is held of the same history.
 * A version is known by its number and its head: a write the store lost (a Redis primary that
 * failed before a replica had it) may be followed by another of the same number, on another head,
 * and the blocks held of it are not the store's.
 */
async function sync(forks: Forks, stored: StoredFork): Promise<ForkView> {
  const held = forks.views.get(stored.record.id)
  if (held && held.record.version === stored.record.version && held.record.head.hash === stored.record.head.hash) {
    held.expiresAt = stored.expiresAt
    return held
  }
  const sameBase = held && held.record.forkBlockNumber === stored.record.forkBlockNumber
  const base = sameBase ? held.base : await openBase(forks.chain, stored.record)
  const reuse = sameBase && held.record.epoch === stored.record.epoch && (await sameHistory(forks, held, stored))
  return buildView(forks, stored, base, reuse ? held : undefined)
}

/** the held blocks a new view would keep are the store's: the last of them has the same hash there */
async function sameHistory(forks: Forks, held: ForkView, stored: StoredFork): Promise<boolean> {
  const count = Number(BigInt(stored.record.head.number) - held.base.header.number)
  const last = held.blocks[Math.min(count, held.blocks.length) - 1]
  if (!last) return true
  const [there] = await forks.store.readBlocks(stored.record.id, [BigInt(last.stored.number)])
  return there?.hash === last.stored.hash
}

/** the upstream block a fork starts from: its header as ethereumjs reads it, and its state */
async function openBase(chain: ChainSource, record: ForkRecord): Promise<ForkBase> {
  const number = BigInt(record.forkBlockNumber)
  const header = await chain.resolveBlock({ number })
  const ethHeader = forkPointHeader(number, header, chain.commonAt(header))
  const state = (await chain.stateAfter(number)).source
  return { chain, header, ethHeader, state }
}

function forkPointHeader(number: bigint, header: BlockHeaderInfo, common: Common) {
  return createBlockHeader(
    {
      number,
      timestamp: header.timestamp,
      gasLimit: header.gasLimit,
      gasUsed: header.gasUsed ?? 0n,
      coinbase: createAddressFromString(header.coinbase),
      difficulty: header.difficulty,
      mixHash: hexToBytes(header.prevRandao),
      stateRoot: PLACEHOLDER_STATE_ROOT,
      ...(header.baseFeePerGas !== undefined && common.isActivatedEIP(1559) && { baseFeePerGas: header.baseFeePerGas }),
      ...(common.isActivatedEIP(4844) && { excessBlobGas: header.excessBlobGas ?? 0n, blobGasUsed: header.blobGasUsed ?? 0n }),
      ...(header.extraData && { extraData: hexToBytes(header.extraData) }),
    },
    { common, setHardfork: false },
  )
}

/** a view of `record`: `held` a view whose blocks are known to be its prefix, `fresh` blocks just written */
async function buildView(
  forks: Forks,
  stored: StoredFork,
  base: ForkBase,
  held: Pick<ForkView, 'blocks' | 'byHash'> | undefined,
  fresh: StoredBlock[] = [],
): Promise<ForkView> {
  const { record } = stored
  const fork = base.header.number
  const count = Number(BigInt(record.head.number) - fork)
  const blocks = (held?.blocks ?? []).slice(0, count)
  const given = new Map(fresh.map((b) => [BigInt(b.number), b]))
  const missing: bigint[] = []
  for (let n = fork + 1n + BigInt(blocks.length); n <= fork + BigInt(count); n++) if (!given.has(n)) missing.push(n)
  const fetched = new Map<bigint, StoredBlock | undefined>()
  const got = await forks.store.readBlocks(record.id, missing)
  missing.forEach((n, i) => fetched.set(n, got[i]))
  for (let n = fork + 1n + BigInt(blocks.length); n <= fork + BigInt(count); n++) {
    const b = given.get(n) ?? fetched.get(n)
    if (!b) throw new EngineError('INTERNAL_ERROR', `block ${n} of fork ${record.id} is missing from the store`)
    const parentEnd = blocks.length ? blocks[blocks.length - 1]!.end : DiffLayer.root()
    blocks.push(loadBlock(base, parentEnd, b))
  }
  const view: ForkView = {
    record,
    expiresAt: stored.expiresAt,
    base,
    blocks,
    pending: record.pending ? writesFromJson(record.pending) : undefined,
    byHash: indexBlocks(blocks, held),
  }
  hold(forks.views, view)
  return view
}

/** the view is held as the most recently used; the least recently used past HELD_FORKS is dropped */
function hold(views: Map<string, ForkView>, view: ForkView): void {
  views.delete(view.record.id)
  views.set(view.record.id, view)
  if (views.size > HELD_FORKS) views.delete(views.keys().next().value!)
}

// ---- writing: one change at a time per fork in this instance, compare-and-set against the others ----

/** runs `change` after the changes to the fork queued before it, whatever their outcome */
function queueChange<T>(forks: Forks, id: string, change: Change<T>): Promise<T> {
  const run = () => commitChange(forks, id, change)
  const prior = forks.queues.get(id) ?? Promise.resolve()
  const mine = prior.then(run, run)
  const tail = mine.catch(() => undefined)
  forks.queues.set(id, tail)
  void tail.then(() => {
    if (forks.queues.get(id) === tail) forks.queues.delete(id)
  })
  return mine
}

/** the change run on the newest view and committed if the fork is still at that version; else run again on the newer one */
async function commitChange<T>(forks: Forks, id: string, change: Change<T>): Promise<T> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const view = await viewOf(forks, id)
    const { record, blocks = [], result, view: after } = await change(view)
    const next: ForkRecord = { ...record, version: view.record.version + 1 }
    if (await forks.store.commit(id, view.record.version, next, blocks)) {
      const stored = { record: next, expiresAt: Date.now() + next.ttlSeconds * 1000 }
      // blocks up to the new head are unchanged unless the fork point moved (anvil_reset)
      const sameBase = next.forkBlockNumber === view.record.forkBlockNumber
      if (sameBase && after) await buildView(forks, stored, view.base, after)
      else await buildView(forks, stored, sameBase ? view.base : await openBase(forks.chain, next), sameBase ? view : undefined, blocks)
      return result
    }
    // another instance changed the fork first: run the change again on its result
  }
  throw new EngineError('STATE_ACCESS_ERROR', `fork ${id} is changed by too many writers at once; the change was not applied`, { forkId: id }, 'retry')
}
