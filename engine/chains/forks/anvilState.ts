/**
 * anvil_dumpState / anvil_loadState in Anvil's format: hex of gzipped JSON of Anvil's
 * `SerializableState` (foundry crates/anvil/src/eth/backend/db.rs):
 *
 *   { block, best_block_number, accounts: { address: { nonce, balance, code, storage } }, blocks, transactions }
 *
 * with `nonce` a JSON number, `balance` and `code` hex, `storage` 32-byte slot → 32-byte value.
 * A dump holds every account the fork changed (mined or pending) as it is at the head, with the
 * storage slots the fork wrote; `block` is null and `blocks`/`transactions` empty (Anvil loads
 * such a dump, and a fork's history lives in its own blocks). Loading one (read by the HTTP layer:
 * src/rpc/params/devParams.ts) sets each account's nonce, balance, code and the listed slots, as
 * anvil_setBalance / setCode / setStorageAt would; blocks and transactions in the dump are not
 * replayed.
 */
import { gzipSync } from 'node:zlib'
import { bytesToHex } from '@ethereumjs/util'
import type { Address, Hex } from 'viem'
import { EngineError } from '../../platform/errors.js'
import { toQuantity as q } from '../../platform/quantity.js'
import type { OverlayStateManager, StateWrites } from '../../state/index.js'

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
