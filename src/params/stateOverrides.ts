/**
 * State overrides, geth's StateOverride `{address: {balance, nonce, code, state | stateDiff}}`,
 * read once for eth_call and its kin, debug_traceCall, eth_simulateV1 (which adds
 * `movePrecompileToAddress`) and the REST API (which names geth's `stateDiff` `storage`, and sends
 * a list or a map: src/normalize/overrides.ts reads the container, this the account). `state`
 * replaces all storage, `stateDiff` patches slots; both on one account is refused. Slots and
 * values are 32-byte words (`OverrideRules.slots`: exactly, or left-padded).
 *
 * @example
 * parseStateOverrides(argReader(2, ETH), params[2], '', ETH_OVERRIDES) // { '0xab…': { balance: 1n } }
 */
import type { Address, Hex } from 'viem'
import type { AccountOverride } from '../../engine/types.js'
import { absent, at, type Reader, UINT64_MAX, type WordForm } from './grammar.js'

export interface OverrideRules {
  slots: WordForm
  /** movePrecompileToAddress: read (eth_simulateV1), or refused with the method's reason */
  movePrecompile: 'read' | { refused: string }
  /** the name of geth's `stateDiff` (the REST API's is `storage`) */
  stateDiff?: 'stateDiff' | 'storage'
  /** quantities with leading zeros (the REST API) */
  leadingZeros?: boolean
  /** the account's keys are checked by the container (the REST API's schema): none refused here */
  keysChecked?: boolean
}

export type AccountOverrideWithMove = AccountOverride & { movePrecompileToAddress?: Address }

/** an object keyed by address → one account override each; undefined when absent */
export function parseStateOverrides(r: Reader, v: unknown, path: string, rules: OverrideRules): Record<Address, AccountOverrideWithMove> | undefined {
  if (absent(v)) return undefined
  const o = r.object(v, path, 'stateOverrides')
  const out: Record<Address, AccountOverrideWithMove> = {}
  for (const [key, fields] of Object.entries(o)) {
    const address = r.address(key, r.keyPath(path, key))
    const p = at(path, key)
    if (out[address]) r.fail(p, { kind: 'conflict', conflict: 'twice', address })
    out[address] = parseAccountOverride(r, fields, p, address, rules)
  }
  return out
}

/** one account's override */
export function parseAccountOverride(r: Reader, v: unknown, path: string, address: Address, rules: OverrideRules): AccountOverrideWithMove {
  const o = r.object(v, path, 'accountOverride')
  const diffName = rules.stateDiff ?? 'stateDiff'
  if (typeof rules.movePrecompile === 'object' && o.movePrecompileToAddress !== undefined)
    r.said(at(path, 'movePrecompileToAddress'), rules.movePrecompile.refused)
  if (!rules.keysChecked) {
    r.onlyKeys(o, ['balance', 'nonce', 'code', 'state', diffName, ...(rules.movePrecompile === 'read' ? ['movePrecompileToAddress'] : [])], path)
  }
  if (!absent(o.state) && !absent(o[diffName])) r.fail(path, { kind: 'conflict', conflict: 'stateAndStateDiff', address })
  const lenient = { leadingZeros: rules.leadingZeros }
  const out: AccountOverrideWithMove = {}
  if (!absent(o.balance)) out.balance = r.quantity(o.balance, at(path, 'balance'), lenient)
  if (!absent(o.nonce)) out.nonce = r.quantity(o.nonce, at(path, 'nonce'), { ...lenient, max: UINT64_MAX })
  if (!absent(o.code)) out.code = r.data(o.code, at(path, 'code'))
  if (!absent(o.state)) out.state = parseSlots(r, o.state, at(path, 'state'), rules.slots)
  if (!absent(o[diffName])) out.stateDiff = parseSlots(r, o[diffName], at(path, diffName), rules.slots)
  if (rules.movePrecompile === 'read' && !absent(o.movePrecompileToAddress)) {
    out.movePrecompileToAddress = r.address(o.movePrecompileToAddress, at(path, 'movePrecompileToAddress'))
  }
  return out
}

/** slot → value, both 32-byte words */
export function parseSlots(r: Reader, v: unknown, path: string, form: WordForm): Record<Hex, Hex> {
  const o = r.object(v, path, 'slots')
  const out: Record<Hex, Hex> = {}
  for (const [slot, value] of Object.entries(o)) out[r.word(slot, r.keyPath(path, slot), form)] = r.word(value, r.valuePath(path, slot), form)
  return out
}
