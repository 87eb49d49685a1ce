/**
 * `MemoryStateSource`: state held in process (the embedded devnet, genesis alloc, tests).
 *
 * Layered copy-on-write: `withWrites(writes)` returns a NEW source = this + the writes of one
 * block, sharing this one untouched, so the devnet keeps the state after every block for the cost
 * of that block's writes. Reads walk the layers top-down; when a chain grows deeper than
 * `MAX_DEPTH` it is squashed into one flat layer (devnet state is small, so the copy is cheap and
 * rare) to keep a miss bounded.
 *
 * @example
 * const genesis = MemoryStateSource.fromAlloc({ '0xf39f…': { balance: 10n ** 22n } })
 * const block1 = genesis.withWrites(overlay.flatten())
 */
import type { Hex } from 'viem'
import { EMPTY_BYTES, codeFromHex, codeHashOf, slotKeyFromHex, storageValueFromHex } from './stateKeys.js'
import type { AccountRead, AccountReadResult, AccountState, SourceAccount, StateSource, StateWrites, StorageWrites } from './types.js'

const MAX_DEPTH = 32

export interface GenesisAccount {
  balance?: bigint
  nonce?: bigint
  code?: Hex
  /** slot → value, any 0x-hex up to 32 bytes */
  storage?: Record<string, string>
}

export class MemoryStateSource implements StateSource {
  private constructor(
    private readonly parent: MemoryStateSource | undefined,
    /** null = deleted in this layer (with its code and storage) */
    private readonly accounts: Map<Hex, AccountState | null>,
    private readonly code: Map<Hex, Uint8Array>,
    private readonly storage: Map<Hex, StorageWrites>,
    readonly depth: number,
  ) {}

  static empty(): MemoryStateSource {
    return new MemoryStateSource(undefined, new Map(), new Map(), new Map(), 0)
  }

  /** genesis state from an alloc (addresses any case; storage slots/values any 0x-hex) */
  static fromAlloc(alloc: Record<string, GenesisAccount>): MemoryStateSource {
    const writes: StateWrites = { accounts: new Map(), code: new Map(), storage: new Map() }
    for (const [addr, a] of Object.entries(alloc)) {
      const address = addr.toLowerCase() as Hex
      const code = a.code ? codeFromHex(a.code) : EMPTY_BYTES
      writes.accounts.set(address, { nonce: a.nonce ?? 0n, balance: a.balance ?? 0n, codeHash: codeHashOf(code) })
      if (code.length) writes.code.set(address, code)
      if (a.storage) {
        const slots = new Map<Hex, Uint8Array>()
        for (const [k, v] of Object.entries(a.storage)) slots.set(slotKeyFromHex(k), storageValueFromHex(v))
        writes.storage.set(address, { cleared: true, slots })
      }
    }
    return MemoryStateSource.empty().withWrites(writes)
  }

  /** a new layer: this state plus `writes` (which it copies, so the caller may keep mutating) */
  withWrites(writes: StateWrites): MemoryStateSource {
    const accounts = new Map<Hex, AccountState | null>()
    const code = new Map<Hex, Uint8Array>()
    const storage = new Map<Hex, StorageWrites>()
    for (const [a, v] of writes.accounts) {
      accounts.set(a, v && { ...v })
      // a deletion takes code and storage with it; later writes of the same layer win below
      if (v === null) {
        code.set(a, EMPTY_BYTES)
        storage.set(a, { cleared: true, slots: new Map() })
      }
    }
    for (const [a, c] of writes.code) code.set(a, c)
    for (const [a, s] of writes.storage) {
      const prior = storage.get(a)
      storage.set(a, { cleared: s.cleared || (prior?.cleared ?? false), slots: new Map(s.slots) })
    }
    const layer = new MemoryStateSource(this, accounts, code, storage, this.depth + 1)
    return layer.depth > MAX_DEPTH ? layer.squash() : layer
  }

  /** one flat root layer with the same contents */
  squash(): MemoryStateSource {
    const layers: MemoryStateSource[] = []
    for (let l: MemoryStateSource | undefined = this; l; l = l.parent) layers.unshift(l)
    const accounts = new Map<Hex, AccountState | null>()
    const code = new Map<Hex, Uint8Array>()
    const storage = new Map<Hex, StorageWrites>()
    for (const l of layers) {
      for (const [a, v] of l.accounts) {
        if (v === null) {
          accounts.delete(a)
          code.delete(a)
          storage.delete(a)
        } else accounts.set(a, v)
      }
      for (const [a, c] of l.code) c.length ? code.set(a, c) : code.delete(a)
      for (const [a, s] of l.storage) {
        const target = s.cleared ? new Map<Hex, Uint8Array>() : new Map(storage.get(a)?.slots)
        for (const [k, v] of s.slots) v.length ? target.set(k, v) : target.delete(k)
        storage.set(a, { cleared: true, slots: target })
      }
    }
    return new MemoryStateSource(undefined, accounts, code, storage, 0)
  }

  /**
   * every live account with its code and non-zero slots (the state trie of a chain imported with
   * real roots is built from this: engine/state/stateRoot.ts)
   */
  allAccounts(): { address: Hex; account: AccountState; code: Uint8Array; storage: Map<Hex, Uint8Array> }[] {
    const flat = this.depth === 0 ? this : this.squash()
    return [...flat.accounts].flatMap(([address, account]) =>
      account
        ? [{ address, account, code: flat.code.get(address) ?? EMPTY_BYTES, storage: flat.storage.get(address)?.slots ?? new Map<Hex, Uint8Array>() }]
        : [],
    )
  }

  async getAccount(address: Hex): Promise<SourceAccount | undefined> {
    return this.accountSync(address)
  }

  async getCode(address: Hex): Promise<Uint8Array> {
    return this.codeSync(address)
  }

  async getStorage(address: Hex, slot: Hex): Promise<Uint8Array> {
    return this.storageSync(address, slot)
  }

  async getMany(reads: AccountRead[]): Promise<AccountReadResult[]> {
    return reads.map((r) => ({
      account: this.accountSync(r.address),
      storage: (r.slots ?? []).map((s) => this.storageSync(r.address, s)),
    }))
  }

  accountSync(address: Hex): SourceAccount | undefined {
    for (let l: MemoryStateSource | undefined = this; l; l = l.parent) {
      const v = l.accounts.get(address)
      if (v !== undefined) return v === null ? undefined : { ...v }
    }
    return undefined
  }

  codeSync(address: Hex): Uint8Array {
    for (let l: MemoryStateSource | undefined = this; l; l = l.parent) {
      const c = l.code.get(address)
      if (c !== undefined) return c
      if (l.accounts.get(address) === null) return EMPTY_BYTES
    }
    return EMPTY_BYTES
  }

  storageSync(address: Hex, slot: Hex): Uint8Array {
    for (let l: MemoryStateSource | undefined = this; l; l = l.parent) {
      const s = l.storage.get(address)
      if (s) {
        const v = s.slots.get(slot)
        if (v !== undefined) return v
        if (s.cleared) return EMPTY_BYTES
      }
      if (l.accounts.get(address) === null) return EMPTY_BYTES
    }
    return EMPTY_BYTES
  }

  /** every non-zero slot of an account (dumpStorage, prestate of small devnet contracts) */
  storageOf(address: Hex): Map<Hex, Uint8Array> {
    const layers: MemoryStateSource[] = []
    for (let l: MemoryStateSource | undefined = this; l; l = l.parent) layers.unshift(l)
    let out = new Map<Hex, Uint8Array>()
    for (const l of layers) {
      if (l.accounts.get(address) === null) out = new Map()
      const s = l.storage.get(address)
      if (!s) continue
      if (s.cleared) out = new Map()
      for (const [k, v] of s.slots) v.length ? out.set(k, v) : out.delete(k)
    }
    return out
  }
}
