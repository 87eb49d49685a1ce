/**
 * What a caller asks of the tracers, and what they answer: one entry per tracer name, as
 * interface §8 names them (geth's tracer names; the struct logger is geth's default logger).
 * Validated and normalized by the HTTP layer; createTracers.ts builds the tracers from it.
 */
import type { Abi, Address } from 'viem'
import type { TracerName } from './createTracers.js'

/**
 * Our own tracer `callTree` (not geth's): the callTracer frames of the run, decoded by the engine
 * (engine/decoding/callTree) with these ABIs and labels, keyed by lowercase address.
 */
export interface CallTreeConfig {
  abis?: Record<Address, Abi>
  labels?: Record<Address, string>
  /** internal function calls as INTERNAL frames, where the service knows the frames' sources */
  internal?: boolean
}

export interface TracerConfig {
  callTracer?: { onlyTopCall?: boolean; withLog?: boolean }
  prestateTracer?: { diffMode?: boolean; disableCode?: boolean; disableStorage?: boolean; includeEmpty?: boolean }
  structLogger?: {
    cleanStructLogs?: boolean
    disableMemory?: boolean
    disableStack?: boolean
    disableStorage?: boolean
    enableReturnData?: boolean
    /** geth's `limit`: stop logging (no error) once the logs' JSON passed this many bytes; 0 = none */
    limit?: number
  }
  /**
   * `true`: our REST shape `{totalIdentifiers, identifiers}`; `{gethForm: true}`: geth's own
   * `{"0xsel-size": count}` (the JSON-RPC debug_* methods)
   */
  '4byteTracer'?: boolean | { gethForm?: boolean }
  /** geth's noopTracer: runs the transaction, answers `{}` */
  noopTracer?: boolean
  /** geth's flatCallTracer (Parity's flat frames; trace_* and debug_* with tracer flatCallTracer) */
  flatCallTracer?: { convertParityErrors?: boolean; includePrecompiles?: boolean; parity?: boolean }
  /** Parity's `stateDiff` as reth prints it (trace_* with the `stateDiff` trace type) */
  stateDiffTracer?: boolean
  /** Parity's `vmTrace` as reth prints it (trace_* with the `vmTrace` trace type) */
  vmTraceTracer?: boolean
  callTree?: CallTreeConfig
  /**
   * Our own tracer `gasProfile` (not geth's): gas by function (external, constructors, and internal
   * where sources are known) and by source line, with folded stacks and a speedscope document;
   * built by the engine (engine/execution/observers/gasProfile.ts)
   */
  gasProfile?: boolean
  /**
   * Our own tracer `frameSteps` (not geth's): one page of the steps of one external frame, each as
   * the struct logger prints it, with its source line and function where sources are known; built
   * by the engine (engine/execution/observers/frameSteps.ts)
   */
  frameSteps?: FrameStepsConfig
}

export interface FrameStepsConfig {
  /** the frame's path: indices into the callTracer `calls` arrays, `[]` the top frame */
  frame: number[]
  /** the first of the frame's own steps to give (default 0) */
  fromStep?: number
  /** how many steps at most (default 256) */
  maxSteps?: number
  /** the source files of the frame's contract, with their text (default false) */
  withFiles?: boolean
}

/** keyed by the tracer names requested */
export type TraceResult = Partial<Record<TracerName | 'callTree' | 'gasProfile' | 'frameSteps', unknown>>
