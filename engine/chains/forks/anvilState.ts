/**
 * anvil_dumpState / anvil_loadState in Anvil's format: hex of gzipped JSON of Anvil's
 * `SerializableState` (foundry crates/anvil/src/eth/backend/db.rs):
 *
 *   { block, best_block_number, accounts: { address: { nonce, balance, code, storage } }, blocks, transactions }
 *
 * with `nonce` a JSON number, `balance` and `code` hex, `storage` 32-byte slot → 32-byte value.
 * A dump holds every account the fork changed (mined or pending) as it is at the head, with the
 * storage slots the fork wrote; `block` is null and `blocks`/`transactions` empty (Anvil loads
 * such a dump, and a fork's history lives in its own blocks). Loading sets each account's nonce,
 * balance, code and the listed slots, as anvil_setBalance / setCode / setStorageAt would (a dump
 * Anvil wrote, or hex of the plain JSON, or the JSON object itself); blocks and transactions in
 * the dump are not replayed.
 */
import { gunzipSync, gzipSync } from 'node:zlib'
import { bytesToHex } from '@ethereumjs/util'
import type { Address, Hex } from 'viem'
import { EngineError } from '../../platform/errors.js'
import { toQuantity as q } from '../../platform/quantity.js'
import type { OverlayStateManager, StateWrites } from '../../state/index.js'
import type { StateOverrides } from '../../vocabulary.js'

export interface AnvilAccount {
  nonce: number
  balance: Hex
  code: Hex
  storage: Record<Hex, Hex>
}

export interface AnvilState {
  block: null
  best_block_number: number
  accounts: Record<Address, AnvilAccount>
  blocks: []
  transactions: []
}

const word = (b: Uint8Array): Hex => `0x${bytesToHex(b).slice(2).padStart(64, '0')}`
const hex32 = (n: bigint): Hex => `0x${n.toString(16).padStart(64, '0')}`

/** the changed accounts as they are in `state` (the head), as Anvil writes them */
export async function anvilStateOf(changed: StateWrites, state: OverlayStateManager, head: bigint): Promise<AnvilState> {
  const addresses = new Set<Hex>([...changed.accounts.keys(), ...changed.code.keys(), ...changed.storage.keys()])
  const accounts: Record<Address, AnvilAccount> = {}
  for (const address of [...addresses].sort()) {
    const account = await state.accountAt(address)
    // an account the fork deleted (self-destruct) is left out, as Anvil leaves out what is not there
    if (!account) continue
    const storage: Record<Hex, Hex> = {}
    for (const slot of [...(changed.storage.get(address)?.slots.keys() ?? [])].sort()) {
      storage[slot] = word(await state.storageAt(address, slot))
    }
    accounts[address as Address] = { nonce: Number(account.nonce), balance: q(account.balance), code: bytesToHex(await state.codeAt(address)) as Hex, storage }
  }
  return { block: null, best_block_number: Number(head), accounts, blocks: [], transactions: [] }
}

/** Anvil's answer: 0x-hex of the gzipped JSON */
export function encodeAnvilState(s: AnvilState): Hex {
  return `0x${gzipSync(Buffer.from(JSON.stringify(s))).toString('hex')}`
}

const bad = (i: number, why: string) =>
  new EngineError('VALIDATION_ERROR', `invalid argument ${i}: ${why}`, { rpcCode: -32602 }, "pass what anvil_dumpState answered (Anvil's or this service's)")

/** anvil_loadState's argument → the overrides that set what it holds */
export function parseAnvilState(v: unknown, i: number): StateOverrides {
  let o: unknown = v
  if (typeof v === 'string') {
    if (!/^0x([0-9a-fA-F]{2})*$/.test(v)) throw bad(i, 'hex of a state dump expected')
    let bytes = Buffer.from(v.slice(2), 'hex')
    try {
      if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes, { maxOutputLength: 256 * 2 ** 20 })
      o = JSON.parse(bytes.toString('utf8'))
    } catch {
      throw bad(i, 'Failed to decode state dump')
    }
  }
  const accounts = (o as { accounts?: unknown } | null)?.accounts
  if (accounts === null || typeof accounts !== 'object' || Array.isArray(accounts)) throw bad(i, 'Failed to decode state dump: no accounts')
  const out: StateOverrides = {}
  for (const [address, raw] of Object.entries(accounts as Record<string, unknown>)) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw bad(i, `accounts: ${address} is not an address`)
    const a = raw as Partial<Record<keyof AnvilAccount, unknown>> | null
    if (a === null || typeof a !== 'object') throw bad(i, `accounts.${address}: object expected`)
    const at = `accounts.${address}`
    const override: StateOverrides[Address] = {}
    if (a.nonce !== undefined) override.nonce = quantity(a.nonce, i, `${at}.nonce`)
    if (a.balance !== undefined) override.balance = quantity(a.balance, i, `${at}.balance`)
    if (a.code !== undefined) {
      if (typeof a.code !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(a.code)) throw bad(i, `${at}.code: hex expected`)
      override.code = a.code.toLowerCase() as Hex
    }
    if (a.storage !== undefined && a.storage !== null) {
      if (typeof a.storage !== 'object') throw bad(i, `${at}.storage: object expected`)
      const diff: Record<Hex, Hex> = {}
      for (const [slot, value] of Object.entries(a.storage as Record<string, unknown>)) {
        diff[hex32(quantity(slot, i, `${at}.storage`))] = hex32(quantity(value, i, `${at}.storage.${slot}`))
      }
      override.stateDiff = diff
    }
    out[address.toLowerCase() as Address] = override
  }
  return out
}

function quantity(v: unknown, i: number, at: string): bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v)
  if (typeof v === 'string' && /^0x[0-9a-fA-F]{1,64}$/.test(v)) return BigInt(v)
  throw bad(i, `${at}: a number or hex quantity expected`)
}
