/**
 * The storage a geth struct log prints (go-ethereum v1.17 eth/tracers/logger/logger.go
 * StructLogger.OnOpcode): per contract — the storage owner, the caller under DELEGATECALL — every
 * slot its SLOAD and SSTORE steps touched so far in the transaction, with the value last read or
 * written: an SLOAD's read from the state before the step runs, an SSTORE's from its stack.
 *
 * One book for every tracer that prints it (the struct logger, the engine's frame steps), so they
 * print the same slots.
 */
import type { Address, Hex } from 'viem'
import { normalizeWord, wordToHash } from './evmWords.js'
import { OP } from './opcodes.js'
import type { OpcodeStep, StateReader } from './types.js'

/** a step's slot, as the book holds it after the step: `seen` is everything its contract touched so far */
export interface TouchedSlot {
  seen: ReadonlyMap<string, string>
  slot: string
  value: string
}

export interface StorageBook {
  /**
   * An SLOAD's or SSTORE's slot, recorded (a promise when the value is read from `state`);
   * undefined for any other step, or one whose stack is too short to name a slot.
   */
  touch(step: OpcodeStep, state: StateReader): TouchedSlot | Promise<TouchedSlot> | undefined
  /** the slots a contract touched so far */
  of(address: Address): ReadonlyMap<string, string> | undefined
}

/** a stack word as geth prints a storage key or value */
export const toWord = (v: bigint): string => wordToHash(v)

/** the slots as geth prints them: keys sorted like a Go map's */
export function sortedSlots(seen: ReadonlyMap<string, string>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const k of [...seen.keys()].sort()) out[k] = seen.get(k)!
  return out
}

export function createStorageBook(): StorageBook {
  const storage = new Map<Address, Map<string, string>>()
  const record = (address: Address, slot: string, value: string): TouchedSlot => {
    let seen = storage.get(address)
    if (!seen) storage.set(address, (seen = new Map()))
    seen.set(slot, value)
    return { seen, slot, value }
  }
  return {
    touch(step, state) {
      const n = step.stack.length
      if (step.opcode === OP.SLOAD && n >= 1) {
        const slot = toWord(step.stack[n - 1]!)
        return state.getStorage(step.address, slot as Hex).then((value) => record(step.address, slot, normalizeWord(value)))
      }
      if (step.opcode === OP.SSTORE && n >= 2) return record(step.address, toWord(step.stack[n - 1]!), toWord(step.stack[n - 2]!))
      return undefined
    },
    of: (address) => storage.get(address),
  }
}
