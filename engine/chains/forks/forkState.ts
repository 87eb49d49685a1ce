/**
 * The state of a writable fork: the upstream (or devnet) state at the fork point, under the
 * fork's own changes. Each mined block (and each batch of cheats such as anvil_setBalance) is
 * one `DiffLayer` on top of its parent; a `ForkedStateSource` answers from the newest layer that
 * holds a value and asks the base source (the shared fork cache) only for what no layer holds,
 * in one batch.
 *
 * Unlike MemoryStateSource, a layer here lies over another source, so it keeps what hides the
 * base: a deleted account, an explicitly zero slot, a storage cleared by a self-destruct.
 *
 * Layers also travel as JSON (`diffToJson` / `diffFromJson`): that is how a block's state
 * changes are kept in the cache store and how anvil_dumpState exports them.
 *
 * @example
 * const head = DiffLayer.root().with(blockWrites)
 * const state = new OverlayStateManager(new ForkedStateSource(base, head))
 */
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import type { Hex } from 'viem'
import { EMPTY_BYTES } from '../../state/stateKeys.js'
import { toQuantity as q } from '../../platform/quantity.js'
import type { AccountRead, AccountReadResult, AccountState, SourceAccount, StateSource, StateWrites, StorageWrites } from '../../state/types.js'

const MAX_DEPTH = 32

export const emptyWrites = (): StateWrites => ({ accounts: new Map(), code: new Map(), storage: new Map() })

export function isEmptyWrites(w: StateWrites): boolean {
  return w.accounts.size === 0 && w.code.size === 0 && w.storage.size === 0
}

/** `top` applied over `bottom`, as one set of writes (neither is changed) */
export function mergeWrites(bottom: StateWrites, top: StateWrites): StateWrites {
  const out: StateWrites = {
    accounts: new Map(bottom.accounts),
    code: new Map(bottom.code),
    storage: new Map([...bottom.storage].map(([a, s]) => [a, { cleared: s.cleared, slots: new Map(s.slots) }])),
  }
  for (const [a, v] of top.accounts) {
    out.accounts.set(a, v && { ...v })
    // a deletion hides the code and storage below it
    if (v === null) {
      out.code.set(a, EMPTY_BYTES)
      out.storage.set(a, { cleared: true, slots: new Map() })
    }
  }
  for (const [a, c] of top.code) out.code.set(a, c)
  for (const [a, s] of top.storage) {
    const prior = out.storage.get(a)
    if (s.cleared || !prior) out.storage.set(a, { cleared: s.cleared, slots: new Map(s.slots) })
    else for (const [k, v] of s.slots) prior.slots.set(k, v)
  }
  return out
}

/** an immutable layer of writes over its parent (undefined parent: the base source) */
export class DiffLayer {
  private constructor(
    readonly parent: DiffLayer | undefined,
    readonly writes: StateWrites,
    readonly depth: number,
  ) {}

  static root(): DiffLayer {
    return new DiffLayer(undefined, emptyWrites(), 0)
  }

  /** a new layer with `writes` on top (empty writes: this layer itself) */
  with(writes: StateWrites): DiffLayer {
    if (isEmptyWrites(writes)) return this
    const layer = new DiffLayer(this, writes, this.depth + 1)
    return layer.depth > MAX_DEPTH ? layer.squash() : layer
  }

  /** every write from the root up, as one set */
  flatten(): StateWrites {
    const chain: DiffLayer[] = []
    for (let l: DiffLayer | undefined = this; l; l = l.parent) chain.unshift(l)
    return chain.reduce((acc, l) => mergeWrites(acc, l.writes), emptyWrites())
  }

  private squash(): DiffLayer {
    return new DiffLayer(undefined, this.flatten(), 1)
  }

  /** undefined: no layer says (ask the base); null: deleted */
  account(address: Hex): AccountState | null | undefined {
    for (let l: DiffLayer | undefined = this; l; l = l.parent) {
      const v = l.writes.accounts.get(address)
      if (v !== undefined) return v
    }
    return undefined
  }

  code(address: Hex): Uint8Array | undefined {
    for (let l: DiffLayer | undefined = this; l; l = l.parent) {
      const c = l.writes.code.get(address)
      if (c !== undefined) return c
      if (l.writes.accounts.get(address) === null) return EMPTY_BYTES
    }
    return undefined
  }

  storage(address: Hex, slot: Hex): Uint8Array | undefined {
    for (let l: DiffLayer | undefined = this; l; l = l.parent) {
      const s = l.writes.storage.get(address)
      if (s) {
        const v = s.slots.get(slot)
        if (v !== undefined) return v
        if (s.cleared) return EMPTY_BYTES
      }
      if (l.writes.accounts.get(address) === null) return EMPTY_BYTES
    }
    return undefined
  }
}

/** the base source at the fork point under a fork's layers */
export class ForkedStateSource implements StateSource {
  constructor(
    private readonly base: StateSource,
    private readonly top: DiffLayer,
  ) {}

  async getAccount(address: Hex): Promise<SourceAccount | undefined> {
    return (await this.getMany([{ address }]))[0]!.account
  }

  async getCode(address: Hex): Promise<Uint8Array> {
    return this.top.code(address) ?? this.base.getCode(address)
  }

  async getStorage(address: Hex, slot: Hex): Promise<Uint8Array> {
    return this.top.storage(address, slot) ?? this.base.getStorage(address, slot)
  }

  async getMany(reads: AccountRead[]): Promise<AccountReadResult[]> {
    // what the layers answer; the rest goes to the base in one batch
    const local = reads.map((r) => ({
      account: this.top.account(r.address),
      storage: (r.slots ?? []).map((s) => this.top.storage(r.address, s)),
    }))
    const asks: AccountRead[] = []
    const askIndex: number[] = []
    reads.forEach((r, i) => {
      const l = local[i]!
      const slots = (r.slots ?? []).filter((_, j) => l.storage[j] === undefined)
      if (l.account === undefined || slots.length > 0) {
        asks.push({ address: r.address, slots, ...(r.code && { code: true }) })
        askIndex.push(i)
      }
    })
    const fetched = asks.length ? await this.base.getMany(asks) : []
    const baseOf = new Map(askIndex.map((i, k) => [i, { read: asks[k]!, result: fetched[k]! }]))
    return reads.map((r, i) => {
      const l = local[i]!
      const b = baseOf.get(i)
      let account: SourceAccount | undefined
      if (l.account === null) account = undefined
      else if (l.account !== undefined) {
        const code = this.top.code(r.address)
        account = { ...l.account, ...(code !== undefined && { code }) }
      } else account = b?.result.account
      const storage = (r.slots ?? []).map((s, j) => {
        const v = l.storage[j]
        if (v !== undefined) return v
        const k = b!.read.slots!.indexOf(s)
        return b!.result.storage[k] ?? EMPTY_BYTES
      })
      return { account, storage }
    })
  }
}

// ---- JSON form (cache store, anvil_dumpState) ----

export interface WritesJson {
  /** address → account, or null when deleted */
  accounts: Record<string, { nonce: Hex; balance: Hex; codeHash: Hex } | null>
  code: Record<string, Hex>
  storage: Record<string, { cleared: boolean; slots: Record<string, Hex> }>
}

export function writesToJson(w: StateWrites): WritesJson {
  const accounts: WritesJson['accounts'] = {}
  for (const [a, v] of w.accounts) accounts[a] = v && { nonce: q(v.nonce), balance: q(v.balance), codeHash: bytesToHex(v.codeHash) as Hex }
  const code: WritesJson['code'] = {}
  for (const [a, c] of w.code) code[a] = bytesToHex(c) as Hex
  const storage: WritesJson['storage'] = {}
  for (const [a, s] of w.storage) {
    const slots: Record<string, Hex> = {}
    for (const [k, v] of s.slots) slots[k] = bytesToHex(v) as Hex
    storage[a] = { cleared: s.cleared, slots }
  }
  return { accounts, code, storage }
}

export function writesFromJson(j: WritesJson): StateWrites {
  const w = emptyWrites()
  for (const [a, v] of Object.entries(j.accounts ?? {})) {
    w.accounts.set(a as Hex, v && { nonce: BigInt(v.nonce), balance: BigInt(v.balance), codeHash: hexToBytes(v.codeHash) })
  }
  for (const [a, c] of Object.entries(j.code ?? {})) w.code.set(a as Hex, c === '0x' ? EMPTY_BYTES : hexToBytes(c))
  for (const [a, s] of Object.entries(j.storage ?? {})) {
    const slots = new Map<Hex, Uint8Array>()
    for (const [k, v] of Object.entries(s.slots)) slots.set(k as Hex, v === '0x' ? EMPTY_BYTES : hexToBytes(v))
    w.storage.set(a as Hex, { cleared: s.cleared, slots } satisfies StorageWrites)
  }
  return w
}
