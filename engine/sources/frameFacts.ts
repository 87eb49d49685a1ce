/**
 * What a traced run learned of each frame's source (engine/execution/observers/sourceSteps.ts
 * finds it, engine/decoding/callTree shows it): the contract a frame runs, where it stopped, and
 * the internal function calls inside it in the order they ran among its calls and logs.
 */
import type { DecodedValue, InternalFunction } from './internalFunction.js'
import type { ContractSource } from './types.js'

/** an internal call as found */
export interface InternalCall {
  fn: InternalFunction
  args: DecodedValue[] | undefined
  result: DecodedValue[] | undefined
  gasUsed: bigint
  /** still open when its frame reverted (docs/decisions/0107) */
  reverted: boolean
}

/** what happened inside one frame, in order: its child calls, its logs, internal calls opening and closing */
export type FrameEvent = { kind: 'call' } | { kind: 'log' } | { kind: 'open'; call: InternalCall } | { kind: 'close' }

export interface FrameSourceFacts {
  contract: ContractSource | undefined
  /** which of the contract's codes the frame runs */
  code: 'runtime' | 'creation'
  /** pc of the last instruction the frame ran (where a failed frame stopped) */
  lastPc: number | undefined
  failed: boolean
  /** with internal calls asked for, and the contract known */
  events?: FrameEvent[]
}
