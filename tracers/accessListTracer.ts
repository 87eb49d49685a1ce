/**
 * accessListTracer: port of geth's eth/tracers/logger/access_list_tracer.go on our hooks.
 *
 * - SLOAD/SSTORE: the slot under the storage owner (step.address; the caller under DELEGATECALL),
 *   never filtered by the exclusion set — so `to` shows up when its storage is touched.
 * - EXTCODECOPY/EXTCODEHASH/EXTCODESIZE/BALANCE/SELFDESTRUCT (stack top) and
 *   CALL/CALLCODE/DELEGATECALL/STATICCALL (stack[-2]) targets: the address, unless excluded.
 * - The exclusion set: from, to (or the created address), the fork's precompiles and the tx's
 *   7702 authorities (known at onTxStart).
 * - Seeded with the list the run used (geth NewAccessListTracer(acl, …)): an entry of an excluded
 *   address keeps its slots but not the bare address.
 */
import type { Address, Hex } from 'viem'
import { wordToAddress, wordToHash } from './evmWords.js'
import { OP } from './opcodes.js'
import type { OpcodeStep, Tracer, TxContext } from './types.js'

export type AccessListEntries = { address: Address; storageKeys: Hex[] }[]

const ADDRESS_AT_TOP = new Set<number>([OP.EXTCODECOPY, OP.EXTCODEHASH, OP.EXTCODESIZE, OP.BALANCE, OP.SELFDESTRUCT])
const CALLS = new Set<number>([OP.CALL, OP.CALLCODE, OP.DELEGATECALL, OP.STATICCALL])

export interface AccessListTracer extends Tracer<AccessListEntries> {
  onTxStart(ctx: TxContext): void
  onOpcode(step: OpcodeStep): void
}

export function createAccessListTracer(seed: AccessListEntries): AccessListTracer {
  const list = new Map<Address, Set<Hex>>()
  let excluded: (a: Address) => boolean = () => false
  const addAddress = (a: Address) => {
    if (!list.has(a)) list.set(a, new Set())
  }
  const addSlot = (a: Address, slot: Hex) => {
    addAddress(a)
    list.get(a)!.add(slot)
  }

  return {
    readsMemory: false,
    onTxStart(ctx) {
      const set = new Set<Address>([ctx.from, ...(ctx.to ? [ctx.to] : []), ...(ctx.createdAddress ? [ctx.createdAddress] : []), ...ctx.authorities])
      excluded = (a) => set.has(a) || ctx.isPrecompile(a)
      for (const e of seed) {
        const a = e.address.toLowerCase() as Address
        if (!excluded(a)) addAddress(a)
        for (const k of e.storageKeys) addSlot(a, k.toLowerCase() as Hex)
      }
    },
    onOpcode(step) {
      const n = step.stack.length
      if ((step.opcode === OP.SLOAD || step.opcode === OP.SSTORE) && n >= 1) {
        addSlot(step.address, wordToHash(step.stack[n - 1]!))
      } else if (ADDRESS_AT_TOP.has(step.opcode) && n >= 1) {
        const a = wordToAddress(step.stack[n - 1]!)
        if (!excluded(a)) addAddress(a)
      } else if (CALLS.has(step.opcode) && n >= 5) {
        const a = wordToAddress(step.stack[n - 2]!)
        if (!excluded(a)) addAddress(a)
      }
    },
    /** sorted by address, then slot; storageKeys always an array */
    result: () => [...list.keys()].sort().map((a) => ({ address: a, storageKeys: [...list.get(a)!].sort() })),
  }
}

/** the same addresses with the same slots (order-free, like geth's accessList.equal) */
export function sameAccessList(a: AccessListEntries, b: AccessListEntries): boolean {
  if (a.length !== b.length) return false
  return a.every((e, i) => e.address === b[i]!.address && e.storageKeys.join() === b[i]!.storageKeys.join())
}
