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
import { createBlockHeader } from '@ethereumjs/block'
import { createAddressFromString, hexToBytes } from '@ethereumjs/util'
import { toQuantity as q } from '../../platform/quantity.js'
import type { ChainSource } from '../types.js'
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

export function createForkService(opts: ForkServiceOptions): ForkService {
  const { chain, store, limits } = opts
  const views = new Map<string, ForkView>()
  const queues = new Map<string, Promise<unknown>>()

  async function openBase(record: ForkRecord): Promise<ForkBase> {
    const number = BigInt(record.forkBlockNumber)
    const header = await chain.resolveBlock({ number })
    const common = chain.commonAt(header)
    const ethHeader = createBlockHeader(
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
    const state = (await chain.stateAfter(number)).source
    return { chain, header, ethHeader, state }
  }

  /** a view of `record`: `held` a view whose blocks are known to be its prefix, `fresh` blocks just written */
  async function buildView(
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
    const got = await store.readBlocks(record.id, missing)
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
    hold(view)
    return view
  }

  function hold(view: ForkView): void {
    views.delete(view.record.id)
    views.set(view.record.id, view)
    if (views.size > HELD_FORKS) views.delete(views.keys().next().value!)
  }

  async function sync(stored: StoredFork): Promise<ForkView> {
    const held = views.get(stored.record.id)
    if (held && held.record.version === stored.record.version) {
      held.expiresAt = stored.expiresAt
      return held
    }
    const sameBase = held && held.record.forkBlockNumber === stored.record.forkBlockNumber
    const base = sameBase ? held.base : await openBase(stored.record)
    return buildView(stored, base, sameBase && held.record.epoch === stored.record.epoch ? held : undefined)
  }

  async function readStored(id: string): Promise<StoredFork> {
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

  const service: ForkService = {
    limits,
    async create(params) {
      // a cheap early refusal (no upstream read when full); the store's create is the atomic check
      if ((await store.count()) >= limits.maxForks) throw tooManyForks(limits.maxForks)
      const header = await chain.resolveBlock(params.blockNumber !== undefined ? { number: params.blockNumber } : { tag: params.blockTag ?? 'latest' })
      const id = `fork_${randomUUID()}`
      const ttlSeconds = params.ttlSeconds ?? limits.defaultTtlSeconds
      const record: ForkRecord = {
        id,
        label: params.label ?? null,
        chainId: chain.chainId,
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
      const created = await store.create(id, record, limits.maxForks)
      if (created === 'full') throw tooManyForks(limits.maxForks)
      if (created === 'taken') throw new EngineError('INTERNAL_ERROR', 'a new fork id collided')
      // the expiry the caller is told counts from the creation it is told of (the store's own is a moment later)
      return infoOf(record, record.createdAt + ttlSeconds * 1000)
    },
    async get(id) {
      const stored = await readStored(id)
      return infoOf(stored.record, stored.expiresAt)
    },
    async list() {
      const all = await store.list()
      return all.sort((a, b) => a.record.createdAt - b.record.createdAt).map((s) => infoOf(s.record, s.expiresAt))
    },
    count: () => store.count(),
    async delete(id) {
      if (!FORK_ID.test(id) || !(await store.delete(id))) throw forkNotFound(id)
      views.delete(id)
    },
    async view(id) {
      return sync(await readStored(id))
    },
    write<T>(id: string, change: Change<T>): Promise<T> {
      const run = async (): Promise<T> => {
        for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
          const view = await service.view(id)
          const { record, blocks = [], result, view: after } = await change(view)
          const next: ForkRecord = { ...record, version: view.record.version + 1 }
          if (await store.commit(id, view.record.version, next, blocks)) {
            const stored = { record: next, expiresAt: Date.now() + next.ttlSeconds * 1000 }
            // blocks up to the new head are unchanged unless the fork point moved (anvil_reset)
            const sameBase = next.forkBlockNumber === view.record.forkBlockNumber
            if (sameBase && after) await buildView(stored, view.base, after)
            else await buildView(stored, sameBase ? view.base : await openBase(next), sameBase ? view : undefined, blocks)
            return result
          }
          // another instance changed the fork first: run the change again on its result
        }
        throw new EngineError('STATE_ACCESS_ERROR', `fork ${id} is changed by too many writers at once; the change was not applied`, { forkId: id }, 'retry')
      }
      const prior = queues.get(id) ?? Promise.resolve()
      const mine = prior.then(run, run)
      const tail = mine.catch(() => undefined)
      queues.set(id, tail)
      void tail.then(() => {
        if (queues.get(id) === tail) queues.delete(id)
      })
      return mine
    },
    async close() {
      await store.close()
    },
  }
  return service
}
