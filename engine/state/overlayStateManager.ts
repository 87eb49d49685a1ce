/**
 * `OverlayStateManager`: the per-request state the ethereumjs VM runs on.
 *
 * Reads fall through to a fixed-block `StateSource` and are remembered for the life of the
 * request; every write (and every state override) lives in this object's own maps. Nested
 * checkpoints are an undo journal: a write under an open checkpoint records the value it replaced,
 * `revert()` replays those records backwards (accounts, code, slots, whole-storage clears and
 * deletions alike), `commit()` only drops the marker so an outer revert still undoes the inner
 * frame. Nothing is hashed and there is no trie: the hot path of a token transfer is map lookups.
 *
 * Why not the RPC-backed state manager of @ethereumjs/statemanager: its commit() keeps the
 * storage writes of reverted frames, it re-fetches after every revert and sends one HTTP request
 * per value, one at a time.
 *
 * @example
 * const state = new OverlayStateManager(source)
 * await state.applyOverrides({ [addr]: { balance: 10n ** 18n } })
 * const vm = await createVM({ common, stateManager: state })
 */
import type { AccountFields, StateManagerInterface } from '@ethereumjs/common'
import { Account, KECCAK256_NULL, KECCAK256_RLP, type Address } from '@ethereumjs/util'
import type { Hex } from 'viem'
import { EngineError } from '../platform/errors.js'
import type { StateOverrides } from '../vocabulary.js'
import {
  EMPTY_BYTES,
  codeFromHex,
  codeHashOf,
  sameBytes,
  isEmptyCodeHash,
  slotKeyFromBytes,
  slotKeyFromHex,
  storageValue,
  storageValueFromHex,
} from './stateKeys.js'
import type { AccountRead, AccountState, SourceAccount, StateSource, StateWrites, StorageWrites } from './types.js'

/**
 * What getStateRoot() answers. The overlay keeps no trie, so there is no real root; ethereumjs
 * asks for one only to fill pre-Byzantium receipts and block headers we never publish, so a fixed
 * 32-byte value (the empty-trie root) keeps those paths working instead of throwing.
 */
export const PLACEHOLDER_STATE_ROOT: Uint8Array = Uint8Array.from(KECCAK256_RLP)

/** one undo record; `prev` undefined = the overlay held nothing there (reads fall through) */
type Undo =
  | { kind: 'account'; address: Hex; prev: AccountState | null | undefined }
  | { kind: 'code'; address: Hex; prev: Uint8Array | undefined }
  | { kind: 'slot'; address: Hex; slot: Hex; prev: Uint8Array | undefined }
  | { kind: 'storage'; address: Hex; prev: StorageWrites | undefined }

export class OverlayStateManager implements StateManagerInterface {
  // net writes of the request: null account = deleted
  private readonly accounts = new Map<Hex, AccountState | null>()
  private readonly code = new Map<Hex, Uint8Array>()
  private readonly storage = new Map<Hex, StorageWrites>()
  // what the source answered, kept for the request (the source is at a fixed block)
  private readonly srcAccounts: Map<Hex, SourceAccount | undefined>
  private readonly srcCode: Map<Hex, Uint8Array>
  private readonly srcStorage: Map<string, Uint8Array>
  private readonly journal: Undo[] = []
  private readonly checkpoints: number[] = []
  /** value of each slot written in the current tx, as it was before the first write (EIP-2200) */
  private readonly txOriginal = new Map<string, Uint8Array>()
  /** storage of each account cleared/deleted in the current tx, as it was before the first clear */
  private readonly txCleared = new Map<Hex, { entry: StorageWrites | undefined; deleted: boolean }>()

  readonly originalStorageCache: StateManagerInterface['originalStorageCache']

  constructor(
    readonly source: StateSource,
    shared?: { accounts: Map<Hex, SourceAccount | undefined>; code: Map<Hex, Uint8Array>; storage: Map<string, Uint8Array> },
  ) {
    this.srcAccounts = shared?.accounts ?? new Map()
    this.srcCode = shared?.code ?? new Map()
    this.srcStorage = shared?.storage ?? new Map()
    // runTx clears this after every tx, so "original" = the value at the start of the current tx:
    // the first write of a slot in a tx records what it replaced, an untouched slot is current.
    this.originalStorageCache = {
      get: (address: Address, key: Uint8Array) => this.originalAt(address.toString() as Hex, slotKeyFromBytes(key)),
      clear: () => {
        this.txOriginal.clear()
        this.txCleared.clear()
      },
    }
  }

  // ---- accounts -------------------------------------------------------------------------------

  async getAccount(address: Address): Promise<Account | undefined> {
    const a = address.toString() as Hex
    const w = this.accounts.get(a)
    if (w !== undefined) return w === null ? undefined : toAccount(w)
    const s = await this.sourceAccount(a)
    return s && toAccount(s)
  }

  async putAccount(address: Address, account?: Account): Promise<void> {
    const a = address.toString() as Hex
    this.setAccount(a, account === undefined ? null : { nonce: account.nonce, balance: account.balance, codeHash: account.codeHash })
  }

  /** the account, its code and its storage are gone (all undone by a revert) */
  async deleteAccount(address: Address): Promise<void> {
    const a = address.toString() as Hex
    this.noteClear(a)
    this.setAccount(a, null)
    this.setCode(a, EMPTY_BYTES)
    this.replaceStorage(a, { cleared: true, slots: new Map() })
  }

  async modifyAccountFields(address: Address, fields: AccountFields): Promise<void> {
    const account = (await this.getAccount(address)) ?? new Account()
    if (fields.nonce !== undefined) account.nonce = fields.nonce
    if (fields.balance !== undefined) account.balance = fields.balance
    if (fields.codeHash !== undefined) account.codeHash = fields.codeHash
    await this.putAccount(address, account)
  }

  // ---- code -----------------------------------------------------------------------------------

  async getCode(address: Address): Promise<Uint8Array> {
    return this.codeAt(address.toString() as Hex)
  }

  async getCodeSize(address: Address): Promise<number> {
    return (await this.codeAt(address.toString() as Hex)).length
  }

  /** sets the code and the account's codeHash (creating the account if needed) */
  async putCode(address: Address, value: Uint8Array): Promise<void> {
    const a = address.toString() as Hex
    const account = (await this.accountAt(a)) ?? { nonce: 0n, balance: 0n, codeHash: KECCAK256_NULL }
    this.setCode(a, value)
    this.setAccount(a, { nonce: account.nonce, balance: account.balance, codeHash: codeHashOf(value) })
  }

  // ---- storage --------------------------------------------------------------------------------

  async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    return this.storageAt(address.toString() as Hex, slotKeyFromBytes(key))
  }

  async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    const a = address.toString() as Hex
    const k = slotKeyFromBytes(key)
    const id = a + k
    // outside a transaction (no checkpoint: a block's system calls, state overrides) a write
    // happens before the next transaction starts, so it is that transaction's original value, as
    // geth's Finalise between system calls makes it; nothing to record, and nothing to read (a
    // writable fork's every block would otherwise read a history-contract slot from the upstream)
    if (this.checkpoints.length > 0 && !this.txOriginal.has(id)) this.txOriginal.set(id, await this.originalAt(a, k))
    this.setSlot(a, k, storageValue(value))
  }

  async clearStorage(address: Address): Promise<void> {
    const a = address.toString() as Hex
    this.noteClear(a)
    this.replaceStorage(a, { cleared: true, slots: new Map() })
  }

  /**
   * Before the first clear of an account's storage in a tx, keep what its storage was, so the
   * original value of a slot never written before the clear is still the tx-start value. The kept
   * object may be restored by a revert and written again, but every such write records the slot
   * in txOriginal first, which wins.
   */
  private noteClear(a: Hex): void {
    if (!this.txCleared.has(a)) this.txCleared.set(a, { entry: this.storage.get(a), deleted: this.accounts.get(a) === null })
  }

  /** the slot's value at the start of the current tx */
  private originalAt(a: Hex, k: Hex): Promise<Uint8Array> {
    const v = this.txOriginal.get(a + k)
    if (v !== undefined) return Promise.resolve(v)
    const c = this.txCleared.get(a)
    return c ? this.storageBefore(c, a, k) : this.storageAt(a, k)
  }

  private storageBefore(c: { entry: StorageWrites | undefined; deleted: boolean }, a: Hex, k: Hex): Promise<Uint8Array> {
    const v = c.entry?.slots.get(k)
    if (v !== undefined) return Promise.resolve(v)
    if (c.entry?.cleared || c.deleted) return Promise.resolve(EMPTY_BYTES)
    return this.sourceStorage(a, k)
  }

  // ---- checkpoints ----------------------------------------------------------------------------

  async checkpoint(): Promise<void> {
    this.checkpoints.push(this.journal.length)
  }

  async commit(): Promise<void> {
    if (this.checkpoints.pop() === undefined) throw new EngineError('INTERNAL_ERROR', 'state commit without a checkpoint')
    // the outermost commit makes the writes final: nothing left to undo
    if (this.checkpoints.length === 0) this.journal.length = 0
  }

  async revert(): Promise<void> {
    const mark = this.checkpoints.pop()
    if (mark === undefined) throw new EngineError('INTERNAL_ERROR', 'state revert without a checkpoint')
    for (let i = this.journal.length - 1; i >= mark; i--) this.undo(this.journal[i]!)
    this.journal.length = mark
  }

  // ---- state root (not tracked, see PLACEHOLDER_STATE_ROOT) -------------------------------------

  async getStateRoot(): Promise<Uint8Array> {
    return PLACEHOLDER_STATE_ROOT.slice()
  }

  async setStateRoot(root: Uint8Array): Promise<void> {
    if (!sameBytes(root, PLACEHOLDER_STATE_ROOT)) {
      throw new EngineError('INTERNAL_ERROR', 'the overlay state keeps no trie and cannot move to another state root')
    }
  }

  async hasStateRoot(root: Uint8Array): Promise<boolean> {
    return sameBytes(root, PLACEHOLDER_STATE_ROOT)
  }

  /** reads of the fixed-block source stay valid for the whole request: nothing to drop */
  clearCaches(): void {}

  /** a new overlay on the same source, starting from this one's net writes, with no checkpoints */
  shallowCopy(): OverlayStateManager {
    const copy = new OverlayStateManager(this.source, { accounts: this.srcAccounts, code: this.srcCode, storage: this.srcStorage })
    copy.load(this.flatten())
    return copy
  }

  // ---- engine API -----------------------------------------------------------------------------

  /**
   * State overrides (geth semantics) as the base of the overlay: not revertible by any frame.
   * `state` replaces all storage (unlisted slots read zero, never from the source); `stateDiff`
   * patches. Must run before execution (no open checkpoint).
   */
  async applyOverrides(overrides: StateOverrides): Promise<void> {
    if (this.checkpoints.length) throw new EngineError('INTERNAL_ERROR', 'state overrides applied during execution')
    for (const [addr, o] of Object.entries(overrides)) {
      const a = addr.toLowerCase() as Hex
      if (!/^0x[0-9a-f]{40}$/.test(a)) throw new EngineError('VALIDATION_ERROR', `state override: invalid address ${addr}`)
      if (o.state && o.stateDiff) {
        throw new EngineError('VALIDATION_ERROR', `state override for ${a}: use either state or stateDiff, not both`)
      }
      if (o.balance !== undefined || o.nonce !== undefined || o.code !== undefined) {
        const cur = (await this.accountAt(a)) ?? { nonce: 0n, balance: 0n, codeHash: KECCAK256_NULL }
        const next: AccountState = { nonce: o.nonce ?? cur.nonce, balance: o.balance ?? cur.balance, codeHash: cur.codeHash }
        if (o.code !== undefined) {
          let code: Uint8Array
          try {
            code = codeFromHex(o.code)
          } catch {
            throw new EngineError('VALIDATION_ERROR', `state override for ${a}: invalid code hex`)
          }
          this.setCode(a, code)
          next.codeHash = codeHashOf(code)
        }
        this.setAccount(a, next)
      }
      const slots = o.state ?? o.stateDiff
      if (slots) {
        const parsed = new Map<Hex, Uint8Array>()
        for (const [k, v] of Object.entries(slots)) {
          try {
            parsed.set(slotKeyFromHex(k), storageValueFromHex(v))
          } catch (e) {
            throw new EngineError('VALIDATION_ERROR', `state override for ${a}: ${(e as Error).message}`)
          }
        }
        if (o.state) this.replaceStorage(a, { cleared: true, slots: parsed })
        else for (const [k, v] of parsed) this.setSlot(a, k, v)
      }
    }
  }

  /** warm the request's read caches with one batched source read (e.g. before a cold run) */
  async warm(reads: AccountRead[]): Promise<void> {
    const todo = reads.filter((r) => !this.srcAccounts.has(r.address) || (r.slots ?? []).some((s) => !this.srcStorage.has(r.address + s)))
    if (!todo.length) return
    const results = await this.source.getMany(todo)
    results.forEach((res, i) => {
      const r = todo[i]!
      this.srcAccounts.set(r.address, res.account)
      if (res.account?.code) this.srcCode.set(r.address, res.account.code)
      r.slots?.forEach((s, j) => this.srcStorage.set(r.address + s, res.storage[j]!))
    })
  }

  /**
   * Addresses whose code this overlay holds a write for: code overrides, creations, deletions
   * (self-destructs) and EIP-7702 delegations, net of the frames that reverted (their writes are
   * undone, so a failed creation leaves nothing here). On an overlay opened without overrides,
   * an empty answer means every address still has the block's code.
   */
  codeWritten(): Hex[] {
    return [...this.code.keys()]
  }

  /** the net writes so far (copies), e.g. for the devnet to commit a block as a new layer */
  flatten(): StateWrites {
    const accounts = new Map<Hex, AccountState | null>()
    for (const [a, v] of this.accounts) accounts.set(a, v && { ...v })
    const storage = new Map<Hex, StorageWrites>()
    for (const [a, s] of this.storage) storage.set(a, { cleared: s.cleared, slots: new Map(s.slots) })
    return { accounts, code: new Map(this.code), storage }
  }

  /** the account as the source holds it (before this request and its overrides) */
  async sourceAccount(address: Hex): Promise<SourceAccount | undefined> {
    if (this.srcAccounts.has(address)) return this.srcAccounts.get(address)
    const s = await this.source.getAccount(address)
    this.srcAccounts.set(address, s)
    if (s?.code) this.srcCode.set(address, s.code)
    return s
  }

  /** the slot as the source holds it (before this request and its overrides); slot 32-byte hex */
  async sourceStorage(address: Hex, slot: Hex): Promise<Uint8Array> {
    const id = address + slot
    const hit = this.srcStorage.get(id)
    if (hit !== undefined) return hit
    const v = await this.source.getStorage(address, slot)
    this.srcStorage.set(id, v)
    return v
  }

  async sourceCode(address: Hex): Promise<Uint8Array> {
    const hit = this.srcCode.get(address)
    if (hit !== undefined) return hit
    const acct = await this.sourceAccount(address)
    if (!acct || isEmptyCodeHash(acct.codeHash)) return EMPTY_BYTES
    const c = this.srcCode.get(address) ?? (await this.source.getCode(address))
    this.srcCode.set(address, c)
    return c
  }

  /** current value of a slot by hex key (tracers, asset changes) */
  async storageAt(address: Hex, slot: Hex): Promise<Uint8Array> {
    const s = this.storage.get(address)
    if (s) {
      const v = s.slots.get(slot)
      if (v !== undefined) return v
      if (s.cleared) return EMPTY_BYTES
    }
    if (this.accounts.get(address) === null) return EMPTY_BYTES
    return this.sourceStorage(address, slot)
  }

  /** current account by hex address */
  async accountAt(address: Hex): Promise<AccountState | undefined> {
    const w = this.accounts.get(address)
    if (w !== undefined) return w ?? undefined
    return this.sourceAccount(address)
  }

  /** current code by hex address */
  async codeAt(address: Hex): Promise<Uint8Array> {
    const c = this.code.get(address)
    if (c !== undefined) return c
    const w = this.accounts.get(address)
    if (w === null) return EMPTY_BYTES
    if (w !== undefined && isEmptyCodeHash(w.codeHash)) return EMPTY_BYTES
    return this.sourceCode(address)
  }

  // ---- journaled primitives -------------------------------------------------------------------

  private get journaling(): boolean {
    return this.checkpoints.length > 0
  }

  private setAccount(a: Hex, v: AccountState | null): void {
    if (this.journaling) this.journal.push({ kind: 'account', address: a, prev: this.accounts.get(a) })
    this.accounts.set(a, v)
  }

  private setCode(a: Hex, v: Uint8Array): void {
    if (this.journaling) this.journal.push({ kind: 'code', address: a, prev: this.code.get(a) })
    this.code.set(a, v)
  }

  private replaceStorage(a: Hex, s: StorageWrites): void {
    // the replaced object is never mutated again, so restoring the reference restores its slots
    if (this.journaling) this.journal.push({ kind: 'storage', address: a, prev: this.storage.get(a) })
    this.storage.set(a, s)
  }

  private setSlot(a: Hex, k: Hex, v: Uint8Array): void {
    let s = this.storage.get(a)
    if (!s) {
      s = { cleared: false, slots: new Map() }
      this.replaceStorage(a, s)
    }
    if (this.journaling) this.journal.push({ kind: 'slot', address: a, slot: k, prev: s.slots.get(k) })
    s.slots.set(k, v)
  }

  private undo(u: Undo): void {
    switch (u.kind) {
      case 'account':
        restore(this.accounts, u.address, u.prev)
        break
      case 'code':
        restore(this.code, u.address, u.prev)
        break
      case 'storage':
        restore(this.storage, u.address, u.prev)
        break
      case 'slot': {
        // later replacements of this account's storage were undone first: same object as then
        const s = this.storage.get(u.address)!
        restore(s.slots, u.slot, u.prev)
        break
      }
    }
  }

  /** replace the net writes by `w` (shallowCopy) */
  private load(w: StateWrites): void {
    for (const [a, v] of w.accounts) this.accounts.set(a, v)
    for (const [a, c] of w.code) this.code.set(a, c)
    for (const [a, s] of w.storage) this.storage.set(a, s)
  }
}

function restore<K, V>(map: Map<K, V>, key: K, prev: V | undefined): void {
  if (prev === undefined) map.delete(key)
  else map.set(key, prev)
}

function toAccount(s: AccountState): Account {
  return new Account(s.nonce, s.balance, undefined, s.codeHash)
}
