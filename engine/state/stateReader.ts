/**
 * `createStateReader`: the tracers' read-only view (tracers/types.ts StateReader) of the state
 * the EVM runs on. On an OverlayStateManager it reads by hex key straight from the overlay's maps
 * (no Address objects, no Account objects); any other StateManagerInterface works too.
 *
 * @example
 * const ctx: TxContext = { ..., state: createStateReader(overlay) }
 */
import type { StateManagerInterface } from '@ethereumjs/common'
import { bytesToHex, createAddressFromString, hexToBytes } from '@ethereumjs/util'
import type { Address, Hex } from 'viem'
import type { StateReader } from '../../tracers/types.js'
import { OverlayStateManager } from './overlayStateManager.js'
import { slotKeyFromHex } from './stateKeys.js'

const word = (v: Uint8Array): Hex => {
  const h = bytesToHex(v).slice(2)
  return `0x${h.padStart(64, '0')}` as Hex
}

export function createStateReader(state: StateManagerInterface): StateReader {
  if (state instanceof OverlayStateManager) {
    return {
      getBalance: async (a) => (await state.accountAt(lower(a)))?.balance ?? 0n,
      getNonce: async (a) => (await state.accountAt(lower(a)))?.nonce ?? 0n,
      getCode: async (a) => bytesToHex(await state.codeAt(lower(a))) as Hex,
      getStorage: async (a, slot) => word(await state.storageAt(lower(a), slotKeyFromHex(slot))),
      isEmpty: async (a) => {
        const acct = await state.accountAt(lower(a))
        if (!acct) return true
        return acct.nonce === 0n && acct.balance === 0n && (await state.codeAt(lower(a))).length === 0
      },
    }
  }
  return {
    getBalance: async (a) => (await state.getAccount(createAddressFromString(a)))?.balance ?? 0n,
    getNonce: async (a) => (await state.getAccount(createAddressFromString(a)))?.nonce ?? 0n,
    getCode: async (a) => bytesToHex(await state.getCode(createAddressFromString(a))) as Hex,
    getStorage: async (a, slot) => word(await state.getStorage(createAddressFromString(a), hexToBytes(slotKeyFromHex(slot)))),
    isEmpty: async (a) => {
      const acct = await state.getAccount(createAddressFromString(a))
      return acct === undefined || acct.isEmpty()
    },
  }
}

const lower = (a: Address): Hex => a.toLowerCase() as Hex
