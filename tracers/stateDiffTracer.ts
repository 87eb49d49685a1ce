/**
 * stateDiffTracer: Parity's `stateDiff` trace type as reth prints it — a port of revm-inspectors
 * `populate_state_diff` (src/tracing/builder/parity.rs) over our hooks. Result: address →
 * `{balance, code, nonce, storage}`, each a Delta: `"="` unchanged, `{"+": v}` born,
 * `{"*": {from, to}}` changed (reth never prints `"-"`: see below); storage holds only the slots
 * whose value changed. Addresses and slots in byte order (reth's BTreeMaps).
 *
 * Which accounts: every account the transaction touched (the prestateTracer's touch rules — the
 * sender, the recipient, the coinbase, EIP-7702 authorities, CALL/BALANCE/EXTCODE* targets,
 * CREATE addresses, SELFDESTRUCT beneficiaries, SLOAD/SSTORE slots), read before the transaction
 * and again after it (gas payment, refunds and the coinbase fee included), kept only when
 * something changed. reth's rules on top:
 * - an account created by this transaction (a CREATE/CREATE2 or the creation tx itself whose
 *   frame and every ancestor frame did not revert) that held no balance before: every field `+`
 *   (`{"+": "0x0"}` for a zero balance), its written slots `+`;
 * - created onto a pre-funded address: code `*` from `0x` (even when the new code is empty),
 *   nonce and balance `*`/`=` as they changed, slots `*`;
 * - created and selfdestructed in the same transaction: left out altogether;
 * - any other account: balance and nonce `*`/`=`, code always `=` (reth compares code only for
 *   created accounts, so an EIP-7702 delegation shows its nonce but not its code); kept when the
 *   balance, nonce or code hash changed, a slot changed, or (before Cancun) it selfdestructed.
 *   A value sent to a fresh address is `*` from `0x0`, not `+` (Erigon and OpenEthereum print `+`).
 * - before Cancun, a pre-existing contract that selfdestructs: balance `*` to 0, nonce and code
 *   `=`, no storage slots (its storage reads as empty once deleted; reth would list the slots the
 *   transaction wrote before the selfdestruct).
 *
 * @example
 * const t = createStateDiffTracer()
 * // ... fed by the execution adapter ...
 * t.result() // { '0xabc…': { balance: { '*': { from: '0x1', to: '0x0' } }, code: '=', nonce: '=', storage: {} } }
 */
import { toHex, type Address, type Hex } from 'viem'
import { normalizeWord } from './evmWords.js'
import { createPrestateTracer, type PrestateAccountJson, type PrestateMap } from './prestateTracer.js'
import type { EnterEvent, ExitEvent, OpcodeStep, StateReader, Tracer, TxContext } from './types.js'

export type Delta<T> = '=' | { '+': T } | { '-': T } | { '*': { from: T; to: T } }

/** reth's AccountDiff, fields in its serialization order */
export interface AccountDiff {
  balance: Delta<Hex>
  code: Delta<Hex>
  nonce: Delta<Hex>
  storage: Record<Hex, Delta<Hex>>
}
export type StateDiff = Record<Address, AccountDiff>

/** what a frame did that sticks only if it and every frame above it do not revert */
interface FrameEffects {
  created: Address[]
  destructed: Address[]
}

const changed = <T>(from: T, to: T): Delta<T> => ({ '*': { from, to } })
const compare = <T>(from: T, to: T): Delta<T> => (from === to ? '=' : changed(from, to))

export function createStateDiffTracer(): Tracer<StateDiff> {
  // the touch rules and the before-reads are the prestateTracer's (includeEmpty: an account that
  // did not exist before is exactly what a created account looks like)
  const touched = createPrestateTracer({ includeEmpty: true })
  const frames: FrameEffects[] = []
  const committed: FrameEffects = { created: [], destructed: [] }
  let ctx: TxContext | undefined
  let diff: StateDiff = {}

  async function accountDiff(addr: Address, before: PrestateAccountJson, state: StateReader): Promise<AccountDiff | undefined> {
    const created = committed.created.includes(addr)
    const destructed = committed.destructed.includes(addr) && (created || !ctx!.isActive('cancun'))
    if (created && destructed) return undefined
    const [balance, nonce, code] = await Promise.all([state.getBalance(addr), state.getNonce(addr), state.getCode(addr)])
    const pre = { balance: BigInt(before.balance ?? 0), nonce: BigInt(before.nonce ?? 0), code: (before.code ?? '0x').toLowerCase() as Hex }
    const post = { balance, nonce, code: (code ?? '0x').toLowerCase() as Hex }
    // the slots the transaction read or wrote; only those whose value changed are listed
    const slots: [Hex, Hex, Hex][] = []
    if (!destructed) {
      for (const [slot, value] of Object.entries(before.storage ?? {}) as [Hex, Hex][]) {
        const now = normalizeWord(await state.getStorage(addr, slot))
        if (now !== value) slots.push([slot, value, now])
      }
    }
    const storage: Record<Hex, Delta<Hex>> = {}
    if (created && pre.balance === 0n) {
      for (const [slot, , now] of slots) storage[slot] = { '+': now }
      return { balance: { '+': toHex(post.balance) }, code: { '+': post.code }, nonce: { '+': toHex(post.nonce) }, storage }
    }
    for (const [slot, was, now] of slots) storage[slot] = changed(was, now)
    // a selfdestructed account keeps its nonce in reth's state map until the block commits
    if (destructed) post.nonce = pre.nonce
    const same = slots.length === 0 && pre.balance === post.balance && pre.nonce === post.nonce && pre.code === post.code
    if (same && !destructed) return undefined
    return {
      balance: compare(toHex(pre.balance), toHex(post.balance)),
      code: created ? changed(pre.code, post.code) : '=',
      nonce: compare(toHex(pre.nonce), toHex(post.nonce)),
      storage,
    }
  }

  return {
    async onTxStart(c) {
      ctx = c
      await touched.onTxStart!(c)
    },
    onOpcode(step: OpcodeStep) {
      return touched.onOpcode!(step)
    },
    onEnter(e: EnterEvent) {
      const effects: FrameEffects = { created: [], destructed: [] }
      if (e.type === 'CREATE' || e.type === 'CREATE2') effects.created.push(e.to)
      // EIP-6780: from Cancun only an account created earlier in this transaction is deleted;
      // decided at the end, once the created set is final
      if (e.type === 'SELFDESTRUCT') effects.destructed.push(e.from)
      frames.push(effects)
    },
    onExit(e: ExitEvent) {
      const effects = frames.pop()
      if (!effects || e.reverted) return
      const parent = frames[frames.length - 1] ?? committed
      parent.created.push(...effects.created)
      parent.destructed.push(...effects.destructed)
    },
    async onTxEnd(e) {
      await touched.onTxEnd!(e)
      const before: PrestateMap = touched.result() as PrestateMap
      const out: StateDiff = {}
      for (const addr of Object.keys(before).sort() as Address[]) {
        const d = await accountDiff(addr, before[addr]!, ctx!.state)
        if (!d) continue
        const storage: Record<Hex, Delta<Hex>> = {}
        for (const slot of Object.keys(d.storage).sort() as Hex[]) storage[slot] = d.storage[slot]!
        out[addr] = { ...d, storage }
      }
      diff = out
    },
    result(): StateDiff {
      return diff
    },
  }
}
