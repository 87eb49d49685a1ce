/** The answer of tracer `frameSteps` (interface §8, docs/decisions/0134-frame-steps-paged-per-frame.md): one page of one external frame's own steps. */
import type { Address } from 'viem'
import type { CallType } from '../../../tracers/types.js'
import type { ContractSource } from '../../sources/types.js'

/** where a step is in its contract's source: a file of the compilation's input, 1-based line and column (bytes) */
export interface StepSource {
  file: string
  line: number
  column: number
}

/** one step: the struct logger's values of it, its place in the frame and, with sources, in the source */
export interface FrameStep {
  /** the index among the frame's own steps */
  step: number
  pc: number
  op: string
  gas: number
  gasCost: number
  stack: string[]
  memory: string[]
  /** every slot of the step's storage (the frame's, or its caller's under DELEGATECALL) touched so far in the transaction */
  storage: Record<string, string>
  /** with sources: null where the source map gives no line (compiler-generated code) */
  source?: StepSource | null
  /** with sources: the innermost function the step runs in, `Contract.function` */
  function?: string
  /** with sources: the internal calls open at the step, 0 in the external function (a recursion counts each) */
  functionDepth?: number
  /** on a step that opened a child frame: its index in this frame's `calls` */
  child?: number
  error?: string
}

export interface FrameStepsFrame {
  path: number[]
  type: Exclude<CallType, 'SELFDESTRUCT'>
  address: Address
  /** the struct log depth of its steps (the top frame: 1) */
  depth: number
  contract?: { name: string; file: string }
}

export interface FrameStepsFile {
  path: string
  /** null past the answer's cap on file text */
  content: string | null
}

export interface FrameSteps {
  frame: FrameStepsFrame
  totalSteps: number
  fromStep: number
  /** the first step of the next page; null when this page reaches the frame's end */
  nextStep: number | null
  steps: FrameStep[]
  files?: FrameStepsFile[]
}

/** what a run leaves (engine/execution/observers/frameSteps.ts), before it is checked and shaped */
export interface RawFrameSteps {
  /** the frame, when the run entered it */
  frame: { type: CallType; address: Address; depth: number; contract: ContractSource | undefined; creation: boolean } | undefined
  totalSteps: number
  steps: FrameStep[]
  /** the deepest frame on the path that ran (its path length) and how many calls it made: for the error naming a frame that is not there */
  reached: { length: number; calls: number }
}
