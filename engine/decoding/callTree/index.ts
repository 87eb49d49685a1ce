/**
 * The decoded call tree (tracer `callTree`, /simulate `traceCalls`): callTracer frames with
 * functions, arguments, return values, reverts, events and labels decoded offline.
 */
export { decodeCallTree } from './decodeCallTree.js'
export { signatureDb, type SignatureDb } from './signatureDb.js'
export { bundledAbis } from './bundledAbis.js'
export type {
  CallTreeConfig,
  CallTreeOptions,
  DecodedCallFrame,
  DecodedCallLog,
  DecodedFunction,
  DecodedLogEvent,
  DecodedRevert,
  SignatureSource,
} from './types.js'
