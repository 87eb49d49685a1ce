/**
 * The decoded call tree (tracer `callTree`, /simulate `traceCalls`): geth's callTracer frames
 * (withLog), each kept field for field, plus what decoding adds. The added keys never reuse a
 * geth key: `error` stays geth's string, the decoded revert is `revert`.
 */
import type { Address, Hex } from 'viem'
import type { CallFrameJson, CallLogJson } from '../../../tracers/callTracer.js'
import type { TokenInfoReader } from '../tokenInfo.js'

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

export interface DecodedCallFrame extends Omit<CallFrameJson, 'calls' | 'logs'> {
  calls?: DecodedCallFrame[]
  logs?: DecodedCallLog[]
  labels?: FrameLabels
  /** a proxy frame: its first DELEGATECALL child runs this code with the same calldata */
  implementation?: Address
  function?: DecodedFunction
  /** the return data decoded with the chosen function's outputs (ABI sources only) */
  result?: DecodedArgs
  revert?: DecodedRevert
}

/** the caller's part of the request: ABIs and labels per (lowercase) address */
export type { CallTreeConfig } from '../../../tracers/config.js'
import type { CallTreeConfig } from '../../../tracers/config.js'

export interface CallTreeOptions extends CallTreeConfig {
  /** token metadata on the traced state: a token's symbol labels its address */
  tokens?: TokenInfoReader
}

export type { Hex }
