/** The answer of tracer `gasProfile` (interface §8, docs/decisions/0130): gas as JSON numbers. */
import type { ProfileNode } from './profileTree.js'
import type { SpeedscopeFile } from './speedscope.js'

/** a source line's gas as the run counts it */
export interface LineCost {
  file: string
  line: number
  gas: number
  /** times the run came to the line from another line of the same frame */
  hits: number
}

/** what a run leaves (engine/execution/observers/gasProfile.ts): the tree of frame stacks and the lines */
export interface RawGasProfile {
  root: ProfileNode | undefined
  /** the transaction's intrinsic gas (its gas limit less the gas its execution started with) */
  intrinsicGas: number
  /** the top frame's execution gas: first step to last, before refunds */
  executionGas: number
  lines: LineCost[]
}

export interface ProfiledFunction {
  /** the contract's name where its sources are known, else the address its code ran at */
  contract: string
  /** the function's name; a selector nothing names; `fallback`, `constructor`, `precompile` */
  function: string
  kind: 'external' | 'internal' | 'constructor'
  /** activations */
  calls: number
  /** gas spent in the function outside its callees */
  selfGas: number
  /** gas from entering to leaving, each activation once (an activation inside another of the same function is not counted again) */
  totalGas: number
}

export interface ProfiledLine {
  file: string
  line: number
  gas: number
  /** times execution came to the line from another line of the same frame */
  hits: number
}

export interface GasProfile {
  /** the transaction's intrinsic gas, apart from the profile */
  intrinsicGas: number
  /** the top frame's execution gas, first step to last, before refunds: the top function's totalGas, the sum of every selfGas */
  executionGas: number
  /** costliest total first */
  functions: ProfiledFunction[]
  /** with sources: costliest first */
  lines: ProfiledLine[]
  /** `frame;frame;frame gas`, one stack a line, as flamegraph.pl and inferno read it */
  folded: string
  /** a speedscope document, one profile sampled by gas */
  speedscope: SpeedscopeFile
  /** why sources that were looked for are missing (the verified-sources service failed) */
  warnings?: string[]
}
