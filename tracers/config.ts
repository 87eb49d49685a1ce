/**
 * What a caller asks of the tracers, and what they answer: one entry per tracer name, as
 * decisions.md §8 names them (geth's tracer names; the struct logger is geth's default logger).
 * Validated and normalized by the HTTP layer; createTracers.ts builds the tracers from it.
 */
import type { Abi, Address } from 'viem'

/**
 * Our own tracer `callTree` (not geth's): the callTracer frames of the run, decoded by the engine
 * (engine/decoding/callTree) with these ABIs and labels, keyed by lowercase address.
 */
export interface CallTreeConfig {
  abis?: Record<Address, Abi>
  labels?: Record<Address, string>
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
  }
  '4byteTracer'?: boolean
  callTree?: CallTreeConfig
}
/** keyed by the tracer names requested */
export type TraceResult = Partial<Record<'callTracer' | 'prestateTracer' | 'structLogger' | '4byteTracer' | 'callTree', unknown>>

