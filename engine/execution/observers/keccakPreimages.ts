/**
 * The input of every KECCAK256 a run computed: the preimages that name mapping keys when storage
 * changes are told by variable (engine/sources/storageLayout). Bounded per run: past the limits
 * further hashes are not kept (their slots stay unnamed, never misnamed).
 */
import type { OpcodeStep, Tracer } from '../../../tracers/types.js'

const KECCAK256 = 0x20

/** at most this many inputs, and this many bytes in all, are kept per run */
const MAX_INPUTS = 65_536
const MAX_BYTES = 8 * 1024 * 1024
/** a longer input is not a mapping slot's (a key of a few hundred bytes at most, plus the slot) */
const MAX_INPUT = 4096

export function createKeccakPreimages(): Tracer<Uint8Array[]> {
  const inputs: Uint8Array[] = []
  let bytes = 0
  return {
    readsMemory: true,
    onOpcode(step: OpcodeStep) {
      if (step.opcode !== KECCAK256 || inputs.length >= MAX_INPUTS) return
      const stack = step.stack
      const [offset, size] = [stack[stack.length - 1], stack[stack.length - 2]]
      if (size < 32n || size > BigInt(MAX_INPUT) || bytes + Number(size) > MAX_BYTES) return
      const input = new Uint8Array(Number(size))
      // bytes past the memory in use read as zeros, as KECCAK256 sees them
      if (offset < BigInt(step.memory.length)) input.set(step.memory.subarray(Number(offset), Number(offset + size)))
      inputs.push(input)
      bytes += input.length
    },
    result: () => inputs,
  }
}
