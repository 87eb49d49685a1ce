/**
 * A contract's storage layout read once from its source: solc's `storageLayout` checked into a
 * typed form, with the enums' member names.
 */
import type { ContractSource } from '../types.js'
import type { ContractLayout } from './decodeChanges.js'
import { parseStorageLayout } from './layout.js'

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
