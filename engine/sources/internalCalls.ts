/**
 * forge's two rules for the internal calls of a frame's steps (foundry v1.7.1
 * crates/evm/traces/src/debug/mod.rs DebugStepsWalker), written once for every observer that
 * follows them (the call tree's source steps, the gas profile, the frame steps' function names):
 *
 * - jump_in: a JUMP the source map marks `i`, landing on a JUMPDEST whose source range is a
 *   function definition (not the JUMP's own range: that is the external function's dispatch),
 *   enters that function;
 * - jump_out: a JUMP marked `o` closes the innermost open call whose entering JUMP has the range of
 *   the JUMPDEST it lands on, or whose first JUMPDEST has the range of this JUMP.
 */
import { internalFunctionAt, type InternalFunction } from './internalFunction.js'
import { sameElement, type SourceElement } from './sourceMap.js'
import type { ContractSource } from './types.js'

/** an open internal call: the range of its entering JUMP and of the JUMPDEST it landed on */
export interface OpenedCall {
  jump: SourceElement
  dest: SourceElement
}

/** jump_in: the function a JUMP marked `i` (range `jump`) enters at the JUMPDEST `dest`, if any */
export function enteredFunction(contract: ContractSource, jump: SourceElement, dest: SourceElement): InternalFunction | undefined {
  return sameElement(dest, jump) ? undefined : internalFunctionAt(contract, dest)
}

/** jump_out: the index in `open` of the call a JUMP marked `o` (range `exit`) landing on `dest` closes; -1 none */
export function closedCallIndex(open: readonly OpenedCall[], dest: SourceElement, exit: SourceElement | undefined): number {
  let i = open.length - 1
  while (i >= 0 && !sameElement(open[i]!.jump, dest) && !sameElement(open[i]!.dest, exit)) i--
  return i
}
