/**
 * prestateTracer: a port of go-ethereum v1.17 `eth/tracers/native/prestate.go` (+ gen_account_json.go).
 *
 * Default mode: `{addr: {balance, code, codeHash, nonce, storage}}`, the state of every account the
 * transaction touched, as it was before the transaction. Diff mode: `{post, pre}` holding only what
 * changed (processDiffState). Rules are spelled out in docs/geth-reference.md §1.4.
 *
 * Values are read through `ctx.state` at first touch: accounts named by the tx at onTxStart (called
 * before the gas purchase and the nonce bump), the rest at the opcode that touches them. Post values
 * are read at onTxEnd (after refunds and the coinbase payment).
 *
 * @example
 * const t = createPrestateTracer({ diffMode: true })
 * // ... fed by the execution adapter ...
 * t.result() // { post: {...}, pre: {...} }
 */
import { getContractAddress, keccak256, toHex, type Address, type Hex } from 'viem'
import { TracerError } from './tracerError.js'
import { normalizeWord, wordToAddress, wordToHash } from './evmWords.js'
import { OP } from './opcodes.js'
import type { OpcodeStep, StateReader, Tracer, TxContext } from './types.js'

export interface PrestateTracerConfig {
  diffMode?: boolean
  disableCode?: boolean
  disableStorage?: boolean
  includeEmpty?: boolean
}

/** One account as geth marshals it: keys in gen_account_json.go order, all omitempty. */
export interface PrestateAccountJson {
  balance?: Hex
  code?: Hex
  codeHash?: Hex
  nonce?: number
  storage?: Record<Hex, Hex>
}
export type PrestateMap = Record<Address, PrestateAccountJson>
export type PrestateResult = PrestateMap | { post: PrestateMap; pre: PrestateMap }

/** keccak256 of empty code (types.EmptyCodeHash) */
export const EMPTY_CODE_HASH: Hex = '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470'
const ZERO_WORD: Hex = `0x${'0'.repeat(64)}`

interface PreAccount {
  balance: bigint
  nonce: bigint
  /** undefined when disableCode (geth drops it after the emptiness check) */
  code: Hex | undefined
  /** undefined for accounts without code */
  codeHash: Hex | undefined
  /** undefined when disableStorage */
  storage: Map<Hex, Hex> | undefined
  /** nonce 0, no code, zero balance before the tx: dropped from `pre` unless includeEmpty */
  empty: boolean
}

interface PostAccount {
  balance?: bigint
  nonce?: bigint
  code?: Hex
  codeHash?: Hex
  storage: Map<Hex, Hex>
}

/** types.ParseDelegation: an EIP-7702 designator is 0xef0100 ++ address (23 bytes). */
export function parseDelegation(code: Hex): Address | undefined {
  if (code.length !== 2 + 46 || !code.toLowerCase().startsWith('0xef0100')) return undefined
  return `0x${code.slice(8).toLowerCase()}` as Address
}

/** geth tracers.memoryPadLimit: a CREATE2 whose init code lies further beyond memory is skipped */
const MEMORY_PAD_LIMIT = 1024n * 1024n

/**
 * geth GetMemoryCopyPadded: the slice with bytes beyond the current memory zero (memory is only
 * expanded after the step is reported); undefined past the padding limit.
 */
function memorySlice(memory: Uint8Array, offset: bigint, size: bigint): Uint8Array | undefined {
  if (offset + size - BigInt(memory.length) > MEMORY_PAD_LIMIT) return undefined
  const out = new Uint8Array(Number(size))
  const start = Number(offset)
  if (start < memory.length) out.set(memory.subarray(start, Math.min(memory.length, start + out.length)))
  return out
}

const codeHashOf = (code: Hex): Hex => (code === '0x' ? EMPTY_CODE_HASH : keccak256(code))

export function createPrestateTracer(config: PrestateTracerConfig = {}): Tracer<PrestateResult> {
  const diffMode = config.diffMode === true
  const disableCode = config.disableCode === true
  const disableStorage = config.disableStorage === true
  const includeEmpty = config.includeEmpty === true
  if (diffMode && includeEmpty) {
    throw new TracerError('VALIDATION_ERROR', 'cannot use diffMode with includeEmpty', { tracer: 'prestateTracer' })
  }

  const pre = new Map<Address, PreAccount>()
  const post = new Map<Address, PostAccount>()
  const created = new Set<Address>()
  const deleted = new Set<Address>()
  let ctx: TxContext | undefined
  let state: StateReader | undefined
  let done = false

  async function lookupAccount(addr: Address): Promise<void> {
    if (pre.has(addr) || !state) return
    const [balance, nonce, code] = await Promise.all([state.getBalance(addr), state.getNonce(addr), state.getCode(addr)])
    if (pre.has(addr)) return // hooks are awaited in order, but stay idempotent
    const codeHex = (code ?? '0x').toLowerCase() as Hex
    pre.set(addr, {
      balance,
      nonce,
      // the code is fetched even with disableCode: the emptiness check and codeHash need it
      code: disableCode ? undefined : codeHex,
      codeHash: codeHex === '0x' ? undefined : keccak256(codeHex),
      storage: disableStorage ? undefined : new Map(),
      empty: nonce === 0n && codeHex === '0x' && balance === 0n,
    })
  }

  async function lookupStorage(addr: Address, slot: Hex): Promise<void> {
    if (disableStorage || !state) return
    // geth assumes the account was looked up (it is the executing contract); be safe anyway
    if (!pre.has(addr)) await lookupAccount(addr)
    const storage = pre.get(addr)!.storage!
    if (storage.has(slot)) return
    const value = await state.getStorage(addr, slot)
    if (!storage.has(slot)) storage.set(slot, normalizeWord(value))
  }

  /** From Prague a CALL to a delegated EOA also loads the delegation target. */
  async function lookupDelegationTarget(addr: Address): Promise<void> {
    if (!ctx?.isActive('prague') || !state) return
    const target = parseDelegation(await state.getCode(addr))
    if (target) await lookupAccount(target)
  }

  async function onOpcode(step: OpcodeStep): Promise<void> {
    if (step.error || done) return
    const stack = step.stack
    const n = stack.length
    const op = step.opcode
    const caller = step.address
    if (n >= 1 && (op === OP.SLOAD || op === OP.SSTORE)) {
      await lookupStorage(caller, wordToHash(stack[n - 1]))
    } else if (n >= 1 && (op === OP.EXTCODECOPY || op === OP.EXTCODEHASH || op === OP.EXTCODESIZE || op === OP.BALANCE || op === OP.SELFDESTRUCT)) {
      await lookupAccount(wordToAddress(stack[n - 1]))
      if (op === OP.SELFDESTRUCT) {
        // EIP-6780 (Cancun): SELFDESTRUCT only deletes an account created in the same tx
        if (!ctx!.isActive('cancun') || created.has(caller)) deleted.add(caller)
      }
    } else if (n >= 5 && (op === OP.DELEGATECALL || op === OP.CALL || op === OP.STATICCALL || op === OP.CALLCODE)) {
      const addr = wordToAddress(stack[n - 2])
      await lookupAccount(addr)
      await lookupDelegationTarget(addr)
    } else if (op === OP.CREATE) {
      const nonce = await state!.getNonce(caller)
      const addr = getContractAddress({ opcode: 'CREATE', from: caller, nonce }).toLowerCase() as Address
      await lookupAccount(addr)
      created.add(addr)
    } else if (n >= 4 && op === OP.CREATE2) {
      const init = memorySlice(step.memory, stack[n - 2], stack[n - 3])
      if (!init) return
      const addr = getContractAddress({
        opcode: 'CREATE2',
        from: caller,
        salt: wordToHash(stack[n - 4]),
        bytecodeHash: keccak256(init),
      }).toLowerCase() as Address
      await lookupAccount(addr)
      created.add(addr)
    }
  }

  async function processDiffState(): Promise<void> {
    for (const [addr, acc] of pre) {
      // a deleted account's state is pruned from `post` but kept in `pre` as is
      if (deleted.has(addr)) continue
      let modified = false
      const p: PostAccount = { storage: new Map() }
      const [balance, nonce, code] = await Promise.all([state!.getBalance(addr), state!.getNonce(addr), state!.getCode(addr)])
      const newCode = (code ?? '0x').toLowerCase() as Hex
      if (balance !== acc.balance) {
        modified = true
        p.balance = balance
      }
      if (nonce !== acc.nonce) {
        modified = true
        p.nonce = nonce
      }
      // accounts without code carry no codeHash in pre: compare against the empty-code hash
      const newCodeHash = codeHashOf(newCode)
      if (newCodeHash !== (acc.codeHash ?? EMPTY_CODE_HASH)) {
        modified = true
        p.codeHash = newCodeHash
      }
      if (!disableCode && newCode !== acc.code) {
        modified = true
        p.code = newCode // '0x' when cleared (eip7702_deauth.json)
      }
      if (acc.storage) {
        for (const [slot, value] of [...acc.storage]) {
          // don't include the empty slot
          if (value === ZERO_WORD) acc.storage.delete(slot)
          const newValue = normalizeWord(await state!.getStorage(addr, slot))
          if (value === newValue) {
            acc.storage.delete(slot) // omit unchanged slots
          } else {
            modified = true
            if (newValue !== ZERO_WORD) p.storage.set(slot, newValue)
          }
        }
      }
      if (modified) post.set(addr, p)
      else pre.delete(addr) // not modified: no need to include it in pre either
    }
  }

  return {
    async onTxStart(c: TxContext) {
      ctx = c
      state = c.state
      const to = c.to ?? c.createdAddress
      if (c.to === null && c.createdAddress) created.add(c.createdAddress)
      await lookupAccount(c.from)
      if (to) await lookupAccount(to)
      await lookupAccount(c.coinbase)
      for (const a of c.feeRecipients ?? []) await lookupAccount(a)
      // authorities before their authorizations are applied
      for (const a of c.authorities) await lookupAccount(a)
      if (to) await lookupDelegationTarget(to)
    },
    onOpcode,
    async onTxEnd() {
      if (diffMode) await processDiffState()
      done = true
      // remove accounts that were empty before execution, unless asked to keep them
      if (!includeEmpty) for (const [addr, acc] of pre) if (acc.empty) pre.delete(addr)
    },
    result(): PrestateResult {
      const preJson = marshalPre(pre)
      if (!diffMode) return preJson
      // geth field order of the diff struct: post first, then pre
      return { post: marshalPost(post), pre: preJson }
    },
  }
}

/** Go's encoding/json sorts map keys; build objects in sorted key order. */
function sortedStorage(storage: Map<Hex, Hex> | undefined): Record<Hex, Hex> | undefined {
  if (!storage || storage.size === 0) return undefined
  const out: Record<Hex, Hex> = {}
  for (const slot of [...storage.keys()].sort()) out[slot] = storage.get(slot)!
  return out
}

function marshalPre(pre: Map<Address, PreAccount>): PrestateMap {
  const out: PrestateMap = {}
  for (const addr of [...pre.keys()].sort()) {
    const a = pre.get(addr)!
    const j: PrestateAccountJson = { balance: toHex(a.balance) }
    if (a.code !== undefined && a.code !== '0x') j.code = a.code
    if (a.codeHash) j.codeHash = a.codeHash
    if (a.nonce !== 0n) j.nonce = Number(a.nonce)
    const storage = sortedStorage(a.storage)
    if (storage) j.storage = storage
    out[addr] = j
  }
  return out
}

function marshalPost(post: Map<Address, PostAccount>): PrestateMap {
  const out: PrestateMap = {}
  for (const addr of [...post.keys()].sort()) {
    const a = post.get(addr)!
    const j: PrestateAccountJson = {}
    if (a.balance !== undefined) j.balance = toHex(a.balance)
    if (a.code !== undefined) j.code = a.code
    if (a.codeHash !== undefined) j.codeHash = a.codeHash
    if (a.nonce !== undefined && a.nonce !== 0n) j.nonce = Number(a.nonce)
    const storage = sortedStorage(a.storage)
    if (storage) j.storage = storage
    out[addr] = j
  }
  return out
}
