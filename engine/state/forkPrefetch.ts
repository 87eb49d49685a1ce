/**
 * The prefetch hint of a cold fork run: which calls to ask `eth_createAccessList` about, how a
 * call is keyed in the cache, and a strict reading of the node's answer.
 */
import { keccak256, toHex, type Hex } from 'viem'
import { EngineError } from '../errors.js'
import { slotKeyFromHex } from './stateKeys.js'

export interface PrefetchCall {
  from: Hex
  to?: Hex | null
  data: Hex
  value?: bigint
}

/** the same call at the same block always names the same state: cache its list under a digest */
export function accessListDigest(c: PrefetchCall): string {
  const id = `${c.from.toLowerCase()}|${(c.to ?? '').toLowerCase()}|${(c.value ?? 0n).toString(16)}|${c.data.toLowerCase()}`
  return keccak256(toHex(id)).slice(2, 34)
}

/** `{ accessList: [{ address, storageKeys }] }` → canonical entries; anything else throws */
export function parseAccessList(result: unknown): { address: Hex; storageKeys: Hex[] }[] {
  const list = (result as { accessList?: unknown } | null)?.accessList
  if (!Array.isArray(list)) throw new EngineError('STATE_ACCESS_ERROR', 'upstream returned a malformed eth_createAccessList result')
  return list.map((e: { address?: unknown; storageKeys?: unknown }) => {
    if (typeof e?.address !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(e.address)) {
      throw new EngineError('STATE_ACCESS_ERROR', 'upstream returned a malformed eth_createAccessList entry')
    }
    const keys = Array.isArray(e.storageKeys) ? e.storageKeys : []
    return {
      address: e.address.toLowerCase() as Hex,
      storageKeys: keys.map((k) => {
        if (typeof k !== 'string') throw new EngineError('STATE_ACCESS_ERROR', 'upstream returned a malformed storage key')
        return slotKeyFromHex(k)
      }),
    }
  })
}
