/**
 * Every changed account's slots told by variable, each account read with its layout (layoutAt:
 * a proxy's with its implementation's). A slot not among the changes reads the state as the run
 * left it (unchanged, so the same before and after): a long string's data slots that stayed. An
 * account with no layout known and no EIP-1967 slot changed is left out.
 */
import type { StateManagerInterface } from '@ethereumjs/common'
import { createAddressFromString } from '@ethereumjs/util'
import type { Address, Hex } from 'viem'
import type { SourceIndex } from '../types.js'
import { type DecodedChange, decodeChanges, EIP1967_SLOTS, slotHex } from './decodeChanges.js'
import { layoutAt } from './layoutAt.js'
import type { Preimages } from './preimages.js'

/** address → slot → the slot's value before and after, 32-byte hex */
export type SlotChanges = Record<Address, Record<Hex, { before: Hex; after: Hex }>>

export async function decodeAccounts(
  changes: SlotChanges,
  preimages: Preimages,
  sources: SourceIndex,
  state: StateManagerInterface,
): Promise<Record<Address, DecodedChange[]>> {
  const decoded: Record<Address, DecodedChange[]> = {}
  for (const [address, slots] of Object.entries(changes) as [Address, SlotChanges[Address]][]) {
    const byKey = new Map(Object.entries(slots).map(([k, v]) => [BigInt(k), v]))
    if (byKey.size === 0) continue
    const layout = await layoutAt(address, sources, state)
    if (!layout && ![...byKey.keys()].some((s) => EIP1967_SLOTS[slotHex(s)])) continue
    const reader = async (slot: bigint, when: 'before' | 'after') => {
      const known = byKey.get(slot)
      if (known) return BigInt(known[when])
      const raw = await state.getStorage(createAddressFromString(address), Uint8Array.from(Buffer.from(slotHex(slot).slice(2), 'hex')))
      return raw.length === 0 ? 0n : BigInt(`0x${Buffer.from(raw).toString('hex')}`)
    }
    decoded[address] = await decodeChanges(layout, [...byKey.keys()], preimages, reader)
  }
  return decoded
}
