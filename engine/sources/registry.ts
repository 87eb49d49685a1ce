/**
 * The contracts the service knows, kept in the cache store so that every worker, process and
 * instance on one store knows what any of them was given (with Redis, every instance).
 *
 * The store has no key listing, so registrations are numbered: `sources:count` is a counter
 * (`increment`, atomic in the store), and registration n is one value, `sources:entry:<n>`,
 * written whole once the number is taken. Two instances registering at once take two numbers and
 * lose nothing; a reader sees a registration whole or not at all. Each process keeps the entries
 * it has read and its index over them; `index()` reads the counter (one small round trip) and
 * fetches only entries numbered past what it holds, so it is cheap when nothing changed.
 *
 * The cap (`sources.max_mb`) bounds what is registered in the store together, counted as the
 * entries' JSON (about what a process holds decoded): `sources:bytes`, reserved before the entry
 * is written and given back when the reservation passes the cap (PAYLOAD_TOO_LARGE, nothing kept).
 *
 * Contracts are found by code (sourceIndex.ts); verified sources by address come from a
 * Sourcify-compatible service on first need (`resolve`, verifiedSources.ts).
 */
import type { Address, Hex } from 'viem'
import { bytesToHex } from 'viem'
import { EngineError } from '../platform/errors.js'
import { keccak256 } from '../platform/keccak.js'
import type { CacheStore } from '../state/store/cacheStore.js'
import { contractsOfBuildInfo } from './buildInfo.js'
import { decodeEntry, encodeEntry } from './sourceEntries.js'
import { createSourceIndex } from './sourceIndex.js'
import type { ContractSource, RegisteredContract, SourceIndex } from './types.js'
import type { VerifiedSources } from './verifiedSources.js'

export interface SourceRegistry {
  /** the known contracts' index: this process's, refreshed when the store says another registered more */
  index(): Promise<SourceIndex>
  register(buildInfo: unknown): Promise<RegisteredContract[]>
  list(): Promise<RegisteredContract[]>
  /** a Sourcify-compatible service is configured: only then can `resolve` find more */
  readonly asksVerified: boolean
  /**
   * the index enlarged by the verified sources of the frames whose code it does not match (when a
   * Sourcify-compatible service is configured); `added` when it grew, `warnings` when the service failed
   */
  resolve(chainId: number, frames: { address: Address; code: Uint8Array }[]): Promise<{ index: SourceIndex; added: boolean; warnings: string[] }>
}

export interface SourceRegistryOptions {
  cache: CacheStore
  /** sources.max_mb in bytes */
  maxBytes: number
  /** verified sources by address; absent: none are asked for */
  verified?: VerifiedSources
}

const COUNT_KEY = 'sources:count'
const BYTES_KEY = 'sources:bytes'
const entryKey = (n: number) => `sources:entry:${n}`
const knownKey = (identity: Hex) => `sources:known:${identity}`
/** counters that never reset (the store's counters are windows: this one outlives any deployment) */
const FOREVER_SECONDS = 100 * 365 * 86_400
/** a number taken whose entry never came (its writer died between the two): stop asking after this */
const ABANDONED_MS = 60_000

export const registeredOf = (c: ContractSource): RegisteredContract => ({
  name: c.name,
  file: c.file,
  runtimeCodeHash: c.runtimeCodeHash,
  creationCodeHash: c.creationCodeHash,
})

export function createSourceRegistry(opts: SourceRegistryOptions): SourceRegistry {
  return new StoredRegistry(opts)
}

class StoredRegistry implements SourceRegistry {
  /** the highest registration number read, and numbers taken whose entry was not there yet (since when) */
  #loaded = 0
  readonly #pending = new Map<number, number>()
  #registered: ContractSource[] = []
  #verified: ContractSource[] = []
  #current: SourceIndex = createSourceIndex([])
  #refreshing: Promise<SourceIndex> | undefined

  constructor(private readonly opts: SourceRegistryOptions) {}

  get asksVerified(): boolean {
    return this.opts.verified !== undefined
  }

  index(): Promise<SourceIndex> {
    // a store out of reach leaves the index as it was: sources never fail a trace
    this.#refreshing ??= this.#refresh()
      .catch(() => this.#current)
      .finally(() => {
        this.#refreshing = undefined
      })
    return this.#refreshing
  }

  async register(buildInfo: unknown): Promise<RegisteredContract[]> {
    const { cache } = this.opts
    const contracts = contractsOfBuildInfo(buildInfo)
    const listed = contracts.map(registeredOf)
    if (contracts.length === 0) return listed
    const { bytes, jsonBytes } = encodeEntry(contracts)
    // the same entry, byte for byte (its sources' text and source maps included), is stored once
    const identity = bytesToHex(keccak256(bytes))
    if (!(await cache.get(knownKey(identity)))) {
      await this.#reserve(jsonBytes)
      try {
        const n = (await cache.increment(COUNT_KEY, FOREVER_SECONDS, 1)).count
        await cache.set(entryKey(n), bytes)
        await cache.set(knownKey(identity), new TextEncoder().encode(String(n)))
      } catch (e) {
        await cache.increment(BYTES_KEY, FOREVER_SECONDS, -jsonBytes).catch(() => undefined)
        throw e
      }
    }
    await this.index()
    return listed
  }

  async list(): Promise<RegisteredContract[]> {
    await this.index()
    const seen = new Set<string>()
    return this.#registered.map(registeredOf).filter((r) => {
      const key = `${r.file}:${r.name}:${r.runtimeCodeHash}:${r.creationCodeHash}`
      return seen.has(key) ? false : (seen.add(key), true)
    })
  }

  async resolve(chainId: number, frames: { address: Address; code: Uint8Array }[]) {
    const known = await this.index()
    const { verified } = this.opts
    const unknown = frames.filter((f) => f.code.length > 0 && !known.matchRuntime(f.code))
    if (!verified || unknown.length === 0) return { index: known, added: false, warnings: [] }
    const { contracts, warnings } = await verified.lookup(chainId, unknown)
    const fresh = contracts.filter((c) => !this.#verified.includes(c))
    if (fresh.length === 0) return { index: known, added: false, warnings }
    this.#verified = verified.keep([...this.#verified, ...fresh])
    this.#rebuild()
    return { index: this.#current, added: true, warnings }
  }

  #rebuild(): void {
    // registered contracts after verified ones: what the project gave wins over what a service found
    this.#current = createSourceIndex([...this.#verified, ...this.#registered])
  }

  /** entries numbered past those held, and those taken but not yet written when last asked */
  async #refresh(): Promise<SourceIndex> {
    const { cache } = this.opts
    const count = (await cache.increment(COUNT_KEY, FOREVER_SECONDS, 0)).count
    const numbers = [...this.#pending.keys()]
    for (let n = this.#loaded + 1; n <= count; n++) numbers.push(n)
    this.#loaded = Math.max(this.#loaded, count)
    if (numbers.length === 0) return this.#current
    const values = await cache.getMany(numbers.map(entryKey))
    const now = Date.now()
    let added = false
    numbers.forEach((n, i) => {
      const bytes = values[i]
      const since = this.#pending.get(n) ?? now
      this.#pending.delete(n)
      if (bytes) {
        this.#registered.push(...decodeEntry(bytes))
        added = true
      } else if (now - since < ABANDONED_MS) this.#pending.set(n, since)
    })
    if (added) this.#rebuild()
    return this.#current
  }

  /** takes the entry's bytes from the cap, or refuses (PAYLOAD_TOO_LARGE) having taken nothing */
  async #reserve(jsonBytes: number): Promise<void> {
    const { cache, maxBytes } = this.opts
    const mb = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`
    const tooLarge = (message: string) =>
      new EngineError(
        'PAYLOAD_TOO_LARGE',
        message,
        { limit: 'sources.max_mb', maxBytes },
        'register fewer contracts (one build-info per project), or raise sources.max_mb',
      )
    if (jsonBytes > maxBytes) throw tooLarge(`the build-info's contracts take ${mb(jsonBytes)}, past sources.max_mb (${mb(maxBytes)})`)
    const total = (await cache.increment(BYTES_KEY, FOREVER_SECONDS, jsonBytes)).count
    if (total > maxBytes) {
      await cache.increment(BYTES_KEY, FOREVER_SECONDS, -jsonBytes)
      throw tooLarge(`the registered sources would take ${mb(total)}, past sources.max_mb (${mb(maxBytes)}); nothing was registered`)
    }
  }
}
