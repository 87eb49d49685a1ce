/**
 * Fork state: what an upstream node holds at a fixed block, read once and kept.
 *
 * `ForkCache` is process-wide (one per upstream chain). Reads go: hot in-process LRU → in-flight
 * merge (the same key asked twice while its answer is on the way costs one read) → the CacheStore
 * (`memory://` or Redis, compact binary values, see forkCacheCodec.ts) → the upstream, where every
 * miss collected in the same tick goes out as ONE JSON-RPC batch (RpcClient batches per tick; the
 * queue here makes a tick's misses leave together even when the cache store answers late).
 * State at a fixed block never changes, so entries live forever unless the caller gives a TTL
 * (the chain source does for blocks near the head, in case of reorgs).
 *
 * `ForkStateSource` is a cheap view of that cache at one block, the `StateSource` an overlay reads.
 *
 * @example
 * const fork = new ForkCache({ rpc, chainId: 1, cache })
 * await fork.prefetch(block, [{ from, to, data }], { also: [{ address: coinbase, storageKeys: [] }] }) // 2 round trips cold
 * const state = new OverlayStateManager(fork.at(block))                             // then 0
 */
import { LRUCache } from 'lru-cache'
import type { Hex } from 'viem'
import type { CacheStore } from './store/cacheStore.js'
import type { RpcClient } from '../upstream/rpcClient.js'
import type { UpstreamBudget } from '../upstream/upstreamBudget.js'
import { toQuantity } from '../platform/quantity.js'
import { decodeAccount, decodeSlot, encodeAccount, encodeSlot, forkKeys } from './forkCacheCodec.js'
import { AccessListHints, type AccessList } from './accessListHints.js'
import type { PrefetchCall } from './forkPrefetch.js'
import { parseCode, parseQuantity, parseSlotValue } from './rpcValues.js'
import { EMPTY_BYTES, codeHashOf, isEmptyCodeHash, slotKeyFromHex } from './stateKeys.js'
import type { AccountRead, AccountReadResult, SourceAccount, StateSource } from './types.js'
import { bytesToHex } from '@ethereumjs/util'
import { ENTRY_OVERHEAD_BYTES, ownBytes } from './store/entrySize.js'

export type { PrefetchCall } from './forkPrefetch.js'

export interface ForkCacheOptions {
  rpc: RpcClient
  chainId: number
  cache: CacheStore
  /** bound of the in-process layers (hot state and access-list hints) in bytes (default 64 MiB) */
  hotMaxBytes?: number
}

/** hot values: accounts boxed (a missing account is a value too), slots and code as bytes */
type HotValue = { account: SourceAccount | undefined } | Uint8Array

type Read =
  | { kind: 'account'; block: bigint; address: Hex }
  | { kind: 'storage'; block: bigint; address: Hex; slot: Hex }
  | { kind: 'code'; block: bigint; address: Hex; codeHash: Hex }

interface Queued {
  read: Read
  key: string
  ttl: number | undefined
  /** the upstream time budget of the request that asked (the batch leaves in a later tick) */
  budget: UpstreamBudget | undefined
  resolve(v: HotValue): void
  reject(e: unknown): void
}

export class ForkCache {
  readonly chainId: number
  private readonly rpc: RpcClient
  private readonly store: CacheStore
  private readonly hot: LRUCache<string, HotValue>
  private readonly inflight = new Map<string, Promise<HotValue>>()
  private queue: Queued[] = []
  private scheduled = false
  /** the access-list hints a cold prefetch reads ahead by (a cache of its own, same store) */
  readonly hints: AccessListHints
  /**
   * reads by where they were answered: the hot layer (or a read of the same key already on its
   * way), the cache store, the upstream; plain counts, one per read (the host's metrics)
   */
  readonly reads = { memory: 0, store: 0, upstream: 0 }

  constructor(opts: ForkCacheOptions) {
    this.chainId = opts.chainId
    this.rpc = opts.rpc
    this.store = opts.cache
    // one bound for both in-process layers: an eighth of it for the hints
    const hotMax = opts.hotMaxBytes ?? 64 * 1024 * 1024
    const hintsMax = Math.max(64 * 1024, Math.floor(hotMax / 8))
    this.hints = new AccessListHints({ rpc: opts.rpc, chainId: opts.chainId, cache: opts.cache, hotMaxBytes: hintsMax })
    this.hot = new LRUCache<string, HotValue>({
      maxSize: Math.max(64 * 1024, hotMax - hintsMax),
      // real heap cost (entrySize.ts); a decoded account (bigints, code hash) about 256 bytes more
      sizeCalculation: (v, k) => k.length + ENTRY_OVERHEAD_BYTES + (v instanceof Uint8Array ? v.byteLength : 256),
    })
  }

  /** the state at `block`; `ttlSeconds` for entries that may change (blocks near the head) */
  at(block: bigint, opts: { ttlSeconds?: number; budget?: UpstreamBudget } = {}): ForkStateSource {
    return new ForkStateSource(this, block, opts.ttlSeconds, opts.budget)
  }

  /** see ForkStateSource.prefetch */
  prefetch(
    block: bigint,
    calls: PrefetchCall[],
    opts: { also?: AccessList; ttlSeconds?: number; accessLists?: (AccessList | undefined)[]; budget?: UpstreamBudget } = {},
  ): Promise<void> {
    return this.at(block, opts).prefetch(calls, opts.also, opts.accessLists)
  }

  /**
   * Whether every read at `block` is in the hot layer: each account, its code when asked for and
   * it has any, each slot. A warm run ahead: its prefetch then has nothing to read (and skips a
   * promise per account and slot).
   */
  holdsReads(block: bigint, reads: AccountRead[]): boolean {
    for (const r of reads) {
      const boxed = this.hot.get(forkKeys.account(this.chainId, block, r.address))
      if (boxed === undefined || boxed instanceof Uint8Array) return false
      const a = boxed.account
      if (r.code && a && !a.code && !isEmptyCodeHash(a.codeHash) && !this.hot.has(forkKeys.code(this.chainId, bytesToHex(a.codeHash) as Hex))) return false
      for (const s of r.slots ?? []) if (!this.hot.has(forkKeys.storage(this.chainId, block, r.address, s))) return false
    }
    return true
  }

  // ---- reads (used by ForkStateSource) ------------------------------------------------------

  async account(block: bigint, address: Hex, ttl?: number, budget?: UpstreamBudget): Promise<SourceAccount | undefined> {
    const v = await this.read({ kind: 'account', block, address }, forkKeys.account(this.chainId, block, address), ttl, budget)
    return (v as { account: SourceAccount | undefined }).account
  }

  async storage(block: bigint, address: Hex, slot: Hex, ttl?: number, budget?: UpstreamBudget): Promise<Uint8Array> {
    return (await this.read({ kind: 'storage', block, address, slot }, forkKeys.storage(this.chainId, block, address, slot), ttl, budget)) as Uint8Array
  }

  async code(block: bigint, address: Hex, codeHash: Uint8Array, ttl?: number, budget?: UpstreamBudget): Promise<Uint8Array> {
    const h = bytesToHex(codeHash) as Hex
    return (await this.read({ kind: 'code', block, address, codeHash: h }, forkKeys.code(this.chainId, h), ttl, budget)) as Uint8Array
  }

  private read(read: Read, key: string, ttl: number | undefined, budget: UpstreamBudget | undefined): Promise<HotValue> {
    const h = this.hot.get(key)
    if (h !== undefined) {
      this.reads.memory++
      return Promise.resolve(h)
    }
    const f = this.inflight.get(key)
    if (f) {
      this.reads.memory++
      return f
    }
    const p = new Promise<HotValue>((resolve, reject) => {
      this.queue.push({ read, key, ttl, budget, resolve, reject })
      if (!this.scheduled) {
        this.scheduled = true
        setImmediate(() => void this.flush())
      }
    })
    this.inflight.set(key, p)
    const done = () => this.inflight.delete(key)
    p.then(done, done)
    return p
  }

  private async flush(): Promise<void> {
    this.scheduled = false
    const items = this.queue
    this.queue = []
    // a cache store outage degrades to misses: the upstream still answers
    const stored = await this.store.getMany(items.map((q) => q.key)).catch(() => [] as (Uint8Array | undefined)[])
    const misses: Queued[] = []
    items.forEach((q, i) => {
      const v = stored[i] && decodeStored(q.read, stored[i]!)
      if (v === undefined) return misses.push(q)
      this.reads.store++
      this.keep(q.key, v, q.ttl)
      q.resolve(v)
    })
    if (!misses.length) return
    this.reads.upstream += misses.length
    const writes: { key: string; value: Uint8Array; ttlSeconds?: number }[] = []
    // every upstream call below is issued synchronously in this loop: one JSON-RPC batch
    await Promise.all(misses.map((q) => this.fetch(q, writes)))
    if (writes.length) this.store.setMany(writes).catch(() => undefined)
  }

  private async fetch(q: Queued, writes: { key: string; value: Uint8Array; ttlSeconds?: number }[]): Promise<void> {
    const r = q.read
    const tag = toQuantity(r.block)
    // a read joins the batch with the budget of the request that asked for it
    const o = { budget: q.budget }
    try {
      if (r.kind === 'account') {
        const [bal, nonce, code] = await Promise.all([
          this.rpc.request('eth_getBalance', [r.address, tag], o),
          this.rpc.request('eth_getTransactionCount', [r.address, tag], o),
          this.rpc.request('eth_getCode', [r.address, tag], o),
        ])
        const balance = parseQuantity(bal, 'eth_getBalance')
        const n = parseQuantity(nonce, 'eth_getTransactionCount')
        const c = parseCode(code, 'eth_getCode')
        const codeHash = codeHashOf(c)
        // upstream cannot tell a missing account from an empty one; the EVM treats both alike
        const account = balance === 0n && n === 0n && c.length === 0 ? undefined : { nonce: n, balance, codeHash }
        const boxed = { account }
        this.keep(q.key, boxed, q.ttl)
        writes.push({ key: q.key, value: encodeAccount(account), ttlSeconds: q.ttl })
        if (c.length) {
          const ck = forkKeys.code(this.chainId, bytesToHex(codeHash) as Hex)
          this.keep(ck, c, undefined) // content-addressed: never stale
          writes.push({ key: ck, value: c })
        }
        q.resolve({ account: account && { ...account, code: c } })
      } else if (r.kind === 'storage') {
        const v = parseSlotValue(await this.rpc.request('eth_getStorageAt', [r.address, r.slot, tag], o), 'eth_getStorageAt')
        this.keep(q.key, v, q.ttl)
        writes.push({ key: q.key, value: encodeSlot(v), ttlSeconds: q.ttl })
        q.resolve(v)
      } else {
        const c = parseCode(await this.rpc.request('eth_getCode', [r.address, tag], o), 'eth_getCode')
        const key = forkKeys.code(this.chainId, bytesToHex(codeHashOf(c)) as Hex)
        this.keep(key, c, undefined)
        writes.push({ key, value: c })
        q.resolve(c)
      }
    } catch (e) {
      q.reject(e)
    }
  }

  private keep(key: string, v: HotValue, ttl: number | undefined): void {
    // a value read from the store may be a view into a reply buffer: keep only its own bytes
    this.hot.set(key, v instanceof Uint8Array ? ownBytes(v) : v, ttl ? { ttl: ttl * 1000 } : undefined)
  }
}

export class ForkStateSource implements StateSource {
  constructor(
    private readonly fork: ForkCache,
    readonly blockNumber: bigint,
    private readonly ttlSeconds?: number,
    /** the engine call reading: upstream reads end by its deadline */
    private readonly budget?: UpstreamBudget,
  ) {}

  getAccount(address: Hex): Promise<SourceAccount | undefined> {
    return this.fork.account(this.blockNumber, address, this.ttlSeconds, this.budget)
  }

  async getCode(address: Hex): Promise<Uint8Array> {
    const a = await this.getAccount(address)
    if (!a || isEmptyCodeHash(a.codeHash)) return EMPTY_BYTES
    return a.code ?? this.fork.code(this.blockNumber, address, a.codeHash, this.ttlSeconds, this.budget)
  }

  getStorage(address: Hex, slot: Hex): Promise<Uint8Array> {
    return this.fork.storage(this.blockNumber, address, slot, this.ttlSeconds, this.budget)
  }

  /** all reads issued in one tick: one cache-store lookup and at most one upstream batch */
  async getMany(reads: AccountRead[]): Promise<AccountReadResult[]> {
    const pending = reads.map((r) => ({
      account: this.getAccount(r.address),
      storage: Promise.all((r.slots ?? []).map((s) => this.getStorage(r.address, s))),
    }))
    // Promise.all over both halves so a failing batch never leaves a rejection unobserved
    const results = await Promise.all(
      pending.map(async (p) => {
        const [account, storage] = await Promise.all([p.account, p.storage])
        return { account, storage }
      }),
    )
    // code of accounts that came from the cache store (fresh upstream reads carry it already)
    await Promise.all(
      results.map(async (res, i) => {
        const a = res.account
        if (!reads[i]!.code || !a || a.code || isEmptyCodeHash(a.codeHash)) return
        res.account = { ...a, code: await this.fork.code(this.blockNumber, reads[i]!.address, a.codeHash, this.ttlSeconds, this.budget) }
      }),
    )
    return results
  }

  /**
   * Warms the cache for a cold run: asks the upstream `eth_createAccessList` for each call whose
   * hint is not held (one batch; skipped where the node lacks it), then reads every account
   * (balance, nonce, code) and every slot the hints name, plus from/to and `also` (coinbase), in
   * ONE more batch. What the calls' from/to, `also` and the hints already held name leaves in the
   * hints' batch; after it, only what the new hints name besides.
   */
  async prefetch(calls: PrefetchCall[], also: AccessList = [], knownLists?: (AccessList | undefined)[]): Promise<void> {
    const want = new Map<Hex, Set<Hex>>()
    /** whether the entry added anything not wanted yet */
    const add = (a: string | null | undefined, slots: string[] = []): boolean => {
      if (!a) return false
      const addr = a.toLowerCase() as Hex
      let set = want.get(addr)
      let grew = set === undefined
      if (!set) want.set(addr, (set = new Set<Hex>()))
      for (const s of slots) {
        const k = slotKeyFromHex(s)
        if (!set.has(k)) {
          set.add(k)
          grew = true
        }
      }
      return grew
    }
    const reads = () => [...want].map(([address, slots]) => ({ address, slots: [...slots], code: true }))
    for (const c of calls) {
      add(c.from)
      add(c.to)
    }
    for (const e of also) add(e.address, e.storageKeys)
    // hints the caller already asked for (even unanswered ones) are not asked again
    if (knownLists) {
      for (const list of knownLists) for (const e of list ?? []) add(e.address, e.storageKeys)
      if (!this.fork.holdsReads(this.blockNumber, reads())) await this.getMany(reads())
      return
    }
    // the hints held already name state that can be read now, in the batch that asks for the
    // missing hints (a mined transaction's replay: its own hint came with its block, the earlier
    // transactions' are asked here); what those name besides is read after, if anything
    const held = this.fork.hints.held(this.blockNumber, calls)
    for (const list of held) for (const e of list ?? []) add(e.address, e.storageKeys)
    // a warm run: every hint held, and everything they name too
    if (held.every((l) => l !== undefined) && this.fork.holdsReads(this.blockNumber, reads())) return
    const first = this.getMany(reads())
    // a failure is taken up by the await below; this only keeps it from going unobserved meanwhile
    first.catch(() => undefined)
    const lists = await this.fork.hints.get(this.blockNumber, calls, this.ttlSeconds, this.budget)
    await first
    let more = false
    for (const list of lists) for (const e of list) more = add(e.address, e.storageKeys) || more
    if (more) await this.getMany(reads())
  }
}

function decodeStored(read: Read, raw: Uint8Array): HotValue | undefined {
  if (read.kind === 'account') {
    const d = decodeAccount(raw)
    return d.ok ? { account: d.account } : undefined
  }
  if (read.kind === 'storage') return decodeSlot(raw)
  // content-addressed code: accept it only if it still hashes to its key
  return bytesToHex(codeHashOf(raw)) === read.codeHash ? raw : undefined
}
