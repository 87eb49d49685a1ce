/**
 * The layout an account's storage is read and written with: the layout of the implementation its
 * EIP-1967 slot names when that is known (a proxy's storage is its implementation's), else the
 * layout of its own code.
 */
import type { StateManagerInterface } from '@ethereumjs/common'
import { createAddressFromString } from '@ethereumjs/util'
import type { Address } from 'viem'
import type { SourceIndex } from '../types.js'
import { type ContractLayout, EIP1967_SLOTS, slotHex } from './decodeChanges.js'
import { contractLayoutOf } from './contractLayout.js'

const IMPLEMENTATION_SLOT = BigInt(Object.keys(EIP1967_SLOTS)[0])

export async function layoutAt(address: Address, sources: SourceIndex, state: StateManagerInterface): Promise<ContractLayout | undefined> {
  const codeAt = async (at: string) => sources.matchRuntime(await state.getCode(createAddressFromString(at)))
  const raw = await state.getStorage(createAddressFromString(address), Uint8Array.from(Buffer.from(slotHex(IMPLEMENTATION_SLOT).slice(2), 'hex')))
  const implementation = raw.length === 0 ? 0n : BigInt(`0x${Buffer.from(raw).toString('hex')}`)
  const behind = implementation === 0n ? undefined : contractLayoutOf(await codeAt(`0x${implementation.toString(16).padStart(40, '0')}`))
  return behind ?? contractLayoutOf(await codeAt(address))
}
