/**
 * The precompile table of one simulated block, changed by its state overrides as geth's
 * `StateOverride.Apply(state, precompiles)` changes it: an overridden precompile address stops
 * being a precompile; `movePrecompileToAddress` puts the precompile at the new address (which
 * must not itself be overridden in the same block). Every block starts again from the base
 * block's table (geth computes `activePrecompiles(sim.base)` per block).
 *
 * @example
 * const table = precompileTable(common)
 * table.apply({ '0x…01': { movePrecompileToAddress: '0x…123456' } }) // throws on a non-precompile
 */
import type { Common } from '@ethereumjs/common'
import { getActivePrecompiles } from '@ethereumjs/evm'
import { getAddress, type Address } from 'viem'
import type { SimulateV1Block } from '../../types.js'
import { simulateError } from './simulateErrors.js'

export interface PrecompileChange {
  removed: Address[]
  moved: { from: Address; to: Address }[]
}

export function precompileTable(common: Common) {
  const active = new Set([...getActivePrecompiles(common).keys()].map((k) => `0x${k}`.toLowerCase() as Address))
  /** moved-to address → the precompile it now runs */
  const movedTo = new Map<Address, Address>()
  const removed = new Set<Address>()
  const isPrecompile = (a: Address) => movedTo.has(a) || (active.has(a) && !removed.has(a))

  return {
    apply(overrides: SimulateV1Block['stateOverrides']): void {
      if (!overrides) return
      const dirty = new Set<Address>()
      for (const [raw, o] of Object.entries(overrides)) {
        const addr = raw.toLowerCase() as Address
        if (dirty.has(addr)) throw simulateError('invalidRequest', `account ${getAddress(addr)} has already been overridden by a precompile`)
        const precompile = isPrecompile(addr)
        const target = o.movePrecompileToAddress?.toLowerCase() as Address | undefined
        if (target !== undefined) {
          if (!precompile) throw simulateError('invalidRequest', `account ${getAddress(addr)} is not a precompile`)
          if (Object.keys(overrides).some((k) => k.toLowerCase() === target)) {
            throw simulateError('invalidRequest', `account ${getAddress(target)} is already overridden`)
          }
          movedTo.set(target, movedTo.get(addr) ?? addr)
          dirty.add(target)
        }
        if (precompile) {
          if (movedTo.has(addr)) movedTo.delete(addr)
          else removed.add(addr)
        }
      }
    },
    /** undefined while the table is the fork's own */
    change(): PrecompileChange | undefined {
      if (movedTo.size === 0 && removed.size === 0) return undefined
      return { removed: [...removed], moved: [...movedTo].map(([to, from]) => ({ from, to })) }
    },
  }
}
