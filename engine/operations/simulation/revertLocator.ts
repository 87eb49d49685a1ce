/**
 * revertLocator: a tiny tracer that finds the contract a failure came from (interface §4
 * `details.contractAddress`): the innermost frame whose failure propagated to the top. A child
 * failure counts as the origin when its parent fails right after with the same output (Solidity
 * bubbles revert data up unchanged); a caught child failure is forgotten when a new frame starts
 * or its parent returns normally.
 */
import type { Address, Hex } from 'viem'
import type { EnterEvent, ExitEvent, Tracer } from '../../../tracers/types.js'

export interface RevertLocator extends Tracer<Address | undefined> {
  onEnter(e: EnterEvent): void
  onExit(e: ExitEvent): void
}

export function createRevertLocator(): RevertLocator {
  const frames: Address[] = []
  let origin: { depth: number; address: Address; output: Hex } | undefined
  return {
    onEnter(e) {
      if (origin && origin.depth >= e.depth) origin = undefined
      frames.push(e.to)
    },
    onExit(e) {
      const address = frames.pop()
      if (!e.error) {
        if (origin && origin.depth > e.depth) origin = undefined
        return
      }
      if (origin && origin.depth === e.depth + 1 && origin.output === e.output) origin.depth = e.depth
      else if (address) origin = { depth: e.depth, address, output: e.output }
    },
    result: () => (origin?.depth === 0 ? origin.address : undefined),
  }
}
