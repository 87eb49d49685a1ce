/**
 * The decoded call tree (tracer `callTree`, /simulate `traceCalls`): geth's callTracer frames
 * (withLog), each kept field for field, plus what decoding adds. The added keys never reuse a
 * geth key: `error` stays geth's string, the decoded revert is `revert`.
 */
import type { Address, Hex } from 'viem'
import type { CallFrameJson, CallLogJson } from '../../../tracers/callTracer.js'
import type { TokenInfoReader } from '../tokenInfo.js'
import type { FrameSourceFacts } from '../../sources/frameFacts.js'

/** where a signature came from, in the order they are tried */
export type SignatureSource = 'abi' | 'bundled' | 'signatureDb'

/** decoded arguments: keyed by parameter name, or by position ("0", "1", …) when unnamed */
export type DecodedArgs = Record<string, unknown>

export interface DecodedFunction {
  name: string
  /** canonical, e.g. `transfer(address,uint256)` */
  signature: string
  args: DecodedArgs
  source: SignatureSource
  /** false when no candidate re-encodes to the exact calldata (trailing bytes, dirty padding) */
  exact?: false
  /** other signatures with the same selector that were not chosen */
  alternatives?: string[]
}

export interface DecodedRevert {
  name: string
  signature: string
  args: DecodedArgs
  source: SignatureSource | 'builtin'
  /** one line: the Error(string) message, the Panic text, or `Name(arg, …)` */
  reason: string
  alternatives?: string[]
}

export interface DecodedLogEvent {
  name: string
  signature: string
  args: DecodedArgs
  source: SignatureSource
  /** the one-line summary of the bundled event table (interface §4), when it knows the event */
  summary?: string
}

export interface DecodedCallLog extends CallLogJson {
  decoded?: DecodedLogEvent
}

export interface FrameLabels {
  from?: string
  to?: string
}

/** the contract a frame's code is, when the service knows its source */
export interface FrameContract {
  name: string
  /** the source file that declares it */
  file: string
}

/** where a failed frame stopped: the statement the source map gives for its last instruction */
export interface FrameSource {
  file: string
  /** 1-based */
  line: number
  /** 1-based, in bytes */
  column: number
  /** that line of the file */
  text: string
}

/** an internal function call (callTree `internal: true`), nested where it ran */
export interface DecodedInternalFrame {
  type: 'INTERNAL'
  /** the frame's address (the code's, under DELEGATECALL as for its frame) */
  to?: Address
  /** forge's: the gas from entering the function to leaving it (docs/decisions/0107) */
  gasUsed: Hex
  function: {
    name: string
    contract: string
    signature: string
    /** by parameter name (position when unnamed); value types from the stack, null when not decoded */
    args?: Record<string, unknown>
    result?: Record<string, unknown>
  }
  calls?: (DecodedCallFrame | DecodedInternalFrame)[]
  logs?: DecodedCallLog[]
  /** still open when its frame reverted: closed there and kept (docs/decisions/0107) */
  reverted?: true
}

/** one level of a reverted transaction's backtrace, innermost first, as forge's `Backtrace:` lists it */
export interface BacktraceEntry {
  /** the frame's contract name, else its address */
  contract: string
  /** the external function the frame ran, when decoded */
  function?: string
  file?: string
  line?: number
  column?: number
}

export interface DecodedCallFrame extends Omit<CallFrameJson, 'calls' | 'logs'> {
  calls?: (DecodedCallFrame | DecodedInternalFrame)[]
  logs?: DecodedCallLog[]
  labels?: FrameLabels
  /** a proxy frame: its first DELEGATECALL child runs this code with the same calldata */
  implementation?: Address
  function?: DecodedFunction
  /** the return data decoded with the chosen function's outputs (ABI sources only) */
  result?: DecodedArgs
  revert?: DecodedRevert
  contract?: FrameContract
  source?: FrameSource
  /** the top frame of a reverted transaction with known sources */
  backtrace?: BacktraceEntry[]
  /** the root frame: why verified sources are missing (the Sourcify-compatible service failed) */
  warnings?: string[]
}

/** the caller's part of the request: ABIs and labels per (lowercase) address */
export type { CallTreeConfig } from '../../../tracers/config.js'
import type { CallTreeConfig } from '../../../tracers/config.js'

export interface CallTreeOptions extends CallTreeConfig {
  /** token metadata on the traced state: a token's symbol labels its address */
  tokens?: TokenInfoReader
  /** each frame's source facts, in the order frames began (engine/execution/observers/sourceSteps.ts) */
  sources?: readonly FrameSourceFacts[]
}

export type { Hex }
