/**
 * State and block overrides → the engine's maps (interface §9). Both request forms (simulation
 * array, trace object) land in one `StateOverrides` map keyed by lowercase address; `storage` is
 * geth's `stateDiff`, `state` a full replacement; slots and values left-padded to 32 bytes.
 */
import type { Hex } from 'viem'
import type { AccountOverride, BlockOverrides, StateOverrides } from '../../engine/types.js'
import { joinPath, validationError } from '../errors/apiError.js'
import { isAcceptableAddress } from '../schemas/primitives.js'
import { toAddress, toData, toQuantity, toWord, UINT64_MAX } from './quantities.js'

interface AccountFields {
  balance?: string
  nonce?: string
  code?: string
  storage?: Record<string, string>
  state?: Record<string, string>
}

export function fromOverrideList(list: (AccountFields & { address: string })[] | undefined, path: string): StateOverrides | undefined {
  if (list === undefined) return undefined
  const out: StateOverrides = {}
  list.forEach((entry, i) => {
    const at = `${path}[${i}]`
    const address = toAddress(entry.address)
    if (out[address]) throw validationError([{ path: joinPath(at, 'address'), message: `address ${address} is overridden twice` }])
    out[address] = toAccountOverride(entry, at)
  })
  return out
}

export function fromOverrideMap(map: Record<string, AccountFields> | undefined, path: string): StateOverrides | undefined {
  if (map === undefined) return undefined
  const out: StateOverrides = {}
  for (const [key, fields] of Object.entries(map)) {
    const at = joinPath(path, key)
    if (!isAcceptableAddress(key)) throw validationError([{ path: at, message: 'key is not an address (or has an invalid EIP-55 checksum)' }])
    const address = toAddress(key)
    if (out[address]) throw validationError([{ path: at, message: `address ${address} is overridden twice (keys differ only in case)` }])
    out[address] = toAccountOverride(fields, at)
  }
  return out
}

function toAccountOverride(fields: AccountFields, path: string): AccountOverride {
  if (fields.storage !== undefined && fields.state !== undefined) {
    throw validationError(
      [{ path: joinPath(path, 'state'), message: 'both state and storage are set' }],
      'use storage to patch slots or state to replace all storage, not both',
    )
  }
  const out: AccountOverride = {}
  if (fields.balance !== undefined) out.balance = toQuantity(fields.balance, joinPath(path, 'balance'))
  if (fields.nonce !== undefined) out.nonce = toQuantity(fields.nonce, joinPath(path, 'nonce'), UINT64_MAX)
  if (fields.code !== undefined) out.code = toData(fields.code)
  if (fields.storage !== undefined) out.stateDiff = toSlots(fields.storage, joinPath(path, 'storage'))
  if (fields.state !== undefined) out.state = toSlots(fields.state, joinPath(path, 'state'))
  return out
}

function toSlots(slots: Record<string, string>, path: string): Record<Hex, Hex> {
  const out: Record<Hex, Hex> = {}
  for (const [slot, value] of Object.entries(slots)) {
    if (!/^0x[0-9a-fA-F]+$/.test(slot)) throw validationError([{ path: joinPath(path, slot), message: 'slot is not a hex quantity' }])
    out[toWord(slot, joinPath(path, slot))] = toWord(value, joinPath(path, slot))
  }
  return out
}

export interface BlockOverridesInput {
  number?: string | number
  time?: string | number
  baseFee?: string | number
  gasLimit?: string | number
  coinbase?: string
  prevRandao?: string
  blobBaseFee?: string | number
}

export function toBlockOverrides(input: BlockOverridesInput | undefined, path: string): BlockOverrides | undefined {
  if (input === undefined) return undefined
  const q = (key: keyof BlockOverridesInput, max?: bigint) => toQuantity(input[key]!, joinPath(path, key), max)
  const out: BlockOverrides = {}
  if (input.number !== undefined) out.number = q('number', UINT64_MAX)
  if (input.time !== undefined) out.time = q('time', UINT64_MAX)
  if (input.baseFee !== undefined) out.baseFee = q('baseFee')
  if (input.gasLimit !== undefined) out.gasLimit = q('gasLimit', UINT64_MAX)
  if (input.coinbase !== undefined) out.coinbase = toAddress(input.coinbase)
  if (input.prevRandao !== undefined) out.prevRandao = toData(input.prevRandao)
  if (input.blobBaseFee !== undefined) out.blobBaseFee = q('blobBaseFee')
  return out
}
