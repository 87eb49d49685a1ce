/**
 * The access-list hint cache of a fork: what the upstream's `eth_createAccessList` says a call
 * touches at a block. A hint only tells the fork cache what to read ahead in one batch; it is
 * never state (at a tag the head may move between the hint and the block).
 *
 * Hints are kept like fork state: hot in process, then in the cache store (Redis shared between
 * instances), near-head entries with a TTL. An unanswered hint is not an empty list: it is asked
 * again next time, and a node that lacks the method is not asked again at all.
 *
 * @example
 * const hints = new AccessListHints({ rpc, chainId: 1, cache })
 * const lists = await hints.get(block, calls)      // cached, else one upstream batch
 */
import { LRUCache } from 'lru-cache'
import type { Hex } from 'viem'
import type { CacheStore } from './store/cacheStore.js'
import { ENTRY_OVERHEAD_BYTES, ownBytes } from './store/entrySize.js'
import type { RpcClient } from '../upstream/rpcClient.js'
import { forkKeys } from './forkCacheCodec.js'
import { accessListDigest, parseAccessList, type PrefetchCall } from './forkPrefetch.js'
import type { UpstreamBudget } from '../upstream/upstreamBudget.js'
import { toQuantity } from '../platform/quantity.js'

// made once: a TextEncoder or TextDecoder per hint read or written costs microseconds
const utf8Encoder = new TextEncoder()
const utf8Decoder = new TextDecoder()

/** EIP-2930 access list: canonical (lowercase addresses, 32-byte slots) */
export type AccessList = { address: Hex; storageKeys: Hex[] }[]

export interface AccessListHintsOptions {
  rpc: RpcClient
  chainId: number
  cache: CacheStore
  /** bound of the in-process layer in bytes (default 8 MiB) */
  hotMaxBytes?: number
}

export class AccessListHints {
  private readonly rpc: RpcClient
  private readonly chainId: number
  private readonly store: CacheStore
  private readonly hot: LRUCache<string, Uint8Array>
  /** the upstream answered "method not found" once: stop asking */
  private unsupported = false

  constructor(opts: AccessListHintsOptions) {
    this.rpc = opts.rpc
    this.chainId = opts.chainId
    this.store = opts.cache
    this.hot = new LRUCache<string, Uint8Array>({
      maxSize: opts.hotMaxBytes ?? 8 * 1024 * 1024,
      // real heap cost (engine/state/store/entrySize.ts)
      sizeCalculation: (v, k) => k.length + ENTRY_OVERHEAD_BYTES + v.byteLength,
    })
  }

  /** the calls' hints at `block` (cached, else asked in one batch); [] where the upstream cannot answer */
  async get(block: bigint, calls: PrefetchCall[], ttl?: number, budget?: UpstreamBudget): Promise<AccessList[]> {
    const keys = calls.map((c) => this.key(block, c))
    const out: (AccessList | undefined)[] = keys.map((k) => this.hotList(k))
    const missing = keys.map((_, i) => i).filter((i) => out[i] === undefined)
    if (!missing.length) return out as AccessList[]
    const stored = await this.store.getMany(missing.map((i) => keys[i]!)).catch(() => [] as (Uint8Array | undefined)[])
    const ask: number[] = []
    missing.forEach((i, j) => {
      const raw = stored[j]
      const list = raw && decodeList(raw)
      if (list) {
        out[i] = list
        // a stored value may be a view into a Redis reply: keep only its own bytes
        this.hot.set(keys[i]!, ownBytes(raw), ttl ? { ttl: ttl * 1000 } : undefined)
      } else ask.push(i)
    })
    if (ask.length) {
      const lists = await this.request(
        toQuantity(block),
        ask.map((i) => calls[i]!),
        budget,
      )
      ask.forEach((i, j) => (out[i] = lists[j]))
      this.remember(
        block,
        ask.map((i) => calls[i]!),
        lists,
        ttl,
      )
    }
    return out.map((l) => l ?? [])
  }

  /** the calls' hints at `block` from the hot layer or the store, never upstream; undefined if any is missing */
  async stored(block: bigint, calls: PrefetchCall[], ttl?: number): Promise<AccessList[] | undefined> {
    const keys = calls.map((c) => this.key(block, c))
    const out = keys.map((k) => this.hotList(k))
    const missing = keys.map((_, i) => i).filter((i) => out[i] === undefined)
    if (missing.length) {
      const raw = await this.store.getMany(missing.map((i) => keys[i]!)).catch(() => [] as (Uint8Array | undefined)[])
      missing.forEach((i, j) => {
        const list = raw[j] && decodeList(raw[j]!)
        if (!list) return
        out[i] = list
        this.hot.set(keys[i]!, raw[j]!, ttl ? { ttl: ttl * 1000 } : undefined)
      })
    }
    return out.every((l) => l !== undefined) ? (out as AccessList[]) : undefined
  }

  /** each call's hint at `block` if the hot layer holds it (no store, no upstream) */
  held(block: bigint, calls: PrefetchCall[]): (AccessList | undefined)[] {
    return calls.map((c) => this.hotList(this.key(block, c)))
  }

  /** whether every call's hint at `block` is in the hot layer (a warm run ahead) */
  has(block: bigint, calls: PrefetchCall[]): boolean {
    // only lists that decode are ever put in the hot layer (remember, stored): no need to decode
    return calls.every((c) => this.hot.has(this.key(block, c)))
  }

  /**
   * Asks the upstream for the calls' access lists at `tag` (a number or a tag such as 'latest'),
   * every request issued before the first await: they leave in the caller's JSON-RPC batch. Not
   * cached (see remember); undefined for a call the upstream cannot answer or run.
   */
  request(tag: string, calls: PrefetchCall[], budget?: UpstreamBudget): Promise<(AccessList | undefined)[]> {
    if (this.unsupported) return Promise.resolve(calls.map(() => undefined))
    return Promise.all(
      calls.map(async (c) => {
        const params: Record<string, string> = { from: c.from, data: c.data }
        if (c.to) params.to = c.to
        if (c.value) params.value = toQuantity(c.value)
        try {
          return parseAccessList(await this.rpc.request('eth_createAccessList', [params, tag], { budget }))
        } catch (e) {
          // a hint only: a node without the method, or a call it cannot run, still works
          if ((e as { details?: { rpcCode?: number } }).details?.rpcCode === -32601) this.unsupported = true
          return undefined
        }
      }),
    )
  }

  /** keeps the hints the upstream gave for `block` (hot layer and store) */
  remember(block: bigint, calls: PrefetchCall[], lists: (AccessList | undefined)[], ttl?: number): void {
    const writes: { key: string; value: Uint8Array; ttlSeconds?: number }[] = []
    calls.forEach((c, i) => {
      const list = lists[i]
      // no answer is not an empty list: ask again next time
      if (!list) return
      const key = this.key(block, c)
      const value = utf8Encoder.encode(JSON.stringify(list))
      this.hot.set(key, value, ttl ? { ttl: ttl * 1000 } : undefined)
      writes.push({ key, value, ttlSeconds: ttl })
    })
    if (writes.length) this.store.setMany(writes).catch(() => undefined)
  }

  private key(block: bigint, c: PrefetchCall): string {
    return forkKeys.accessList(this.chainId, block, accessListDigest(c))
  }

  private hotList(key: string): AccessList | undefined {
    const h = this.hot.get(key)
    return h ? decodeList(h) : undefined
  }
}

function decodeList(raw: Uint8Array): AccessList | undefined {
  try {
    return parseAccessList({ accessList: JSON.parse(utf8Decoder.decode(raw)) })
  } catch {
    return undefined
  }
}
