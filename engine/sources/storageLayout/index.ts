/**
 * Storage by name: a contract's changed slots told as its Solidity variables, from the storage
 * layout solc wrote into the build-info (see decodeChanges), and variables written by name.
 */
import type { ContractSource } from '../types.js'
import type { ContractLayout } from './decodeChanges.js'
import { parseStorageLayout } from './layout.js'

export { type ContractLayout, type DecodedChange, decodeChanges, EIP1967_SLOTS, type SlotReader, slotHex } from './decodeChanges.js'
export { Preimages } from './preimages.js'
export { layoutAt } from './layoutAt.js'
export { decodeAccounts, type SlotChanges } from './decodeAccounts.js'
export { slotWritesOf, VariableError } from './writeVariables.js'

const layouts = new WeakMap<ContractSource, ContractLayout | null>()

/** the contract's layout, read once per contract; undefined when its compilation did not select storageLayout */
export function contractLayoutOf(source: ContractSource | undefined): ContractLayout | undefined {
  if (!source) return undefined
  let known = layouts.get(source)
  if (known === undefined) {
    const layout = source.storageLayout === undefined ? undefined : parseStorageLayout(source.storageLayout)
    known = layout ? { layout, enums: source.enums ?? {} } : null
    layouts.set(source, known)
  }
  return known ?? undefined
}
