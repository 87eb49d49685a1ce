/**
 * applyStateOverrides: writes a trace request's `stateOverrides` (decisions.md §9, normalized to
 * `{address: {balance, nonce, code, state | stateDiff}}`) into the request's own state manager
 * before anything runs, like geth's `override.StateOverride.Apply` (addresses in sorted order).
 *
 * When the state manager offers `applyOverrides` (engine/state OverlayStateManager) it is used, so
 * the overlay can record "storage replaced" without reading upstream; otherwise the plain
 * ethereumjs StateManagerInterface calls do the same job.
 *
 * @example
 * await applyStateOverrides(state, { '0xab…': { balance: 10n ** 18n, stateDiff: { [slot]: value } } })
 */
import type { StateManagerInterface } from '@ethereumjs/common'
import { Account, createAddressFromString, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import type { Hex } from 'viem'
import { EngineError } from '../errors.js'
import type { StateOverrides } from '../types.js'

interface OverridableState {
  applyOverrides(overrides: StateOverrides): Promise<void>
}

const hasApplyOverrides = (s: unknown): s is OverridableState =>
  typeof (s as Partial<OverridableState>).applyOverrides === 'function'

/** 32-byte key/value from 0x-hex of up to 32 bytes; a longer one is a VALIDATION_ERROR */
function word(v: Hex, what: string): Uint8Array {
  const hex = v.length % 2 === 1 ? `0x0${v.slice(2)}` : v
  const bytes = hexToBytes(hex as `0x${string}`)
  if (bytes.length > 32) throw new EngineError('VALIDATION_ERROR', `state override ${what} ${v} is longer than 32 bytes`)
  return setLengthLeft(bytes, 32)
}

export async function applyStateOverrides(state: StateManagerInterface, overrides: StateOverrides | undefined): Promise<void> {
  if (!overrides || Object.keys(overrides).length === 0) return
  for (const [addr, o] of Object.entries(overrides)) {
    if (o.state && o.stateDiff) {
      throw new EngineError('VALIDATION_ERROR', `state override of ${addr}: give either state or stateDiff, not both`)
    }
  }
  if (hasApplyOverrides(state)) return state.applyOverrides(overrides)

  for (const addrHex of Object.keys(overrides).sort()) {
    const o = overrides[addrHex as keyof StateOverrides]
    const address = createAddressFromString(addrHex)
    const account = (await state.getAccount(address)) ?? new Account()
    if (o.balance !== undefined) account.balance = o.balance
    if (o.nonce !== undefined) account.nonce = o.nonce
    await state.putAccount(address, account)
    if (o.code !== undefined) await state.putCode(address, hexToBytes(o.code))
    if (o.state) {
      await state.clearStorage(address)
      for (const [k, v] of Object.entries(o.state)) await state.putStorage(address, word(k as Hex, 'slot'), word(v, 'value'))
    }
    if (o.stateDiff) {
      for (const [k, v] of Object.entries(o.stateDiff)) await state.putStorage(address, word(k as Hex, 'slot'), word(v, 'value'))
    }
  }
}
