/**
 * The params of eth_simulateV1 and the trace_* methods, read strictly in the execution-apis'
 * words (src/rpc/params/argReader.ts SPEC), every failure a -32602 naming where in the param it
 * is (`invalid argument N: …`). Unknown keys are refused, never dropped.
 *
 * @example
 * readSimulateV1Params([{ blockStateCalls: [{ calls: [{ to }] }] }, 'latest'])
 */
import type { Hex } from 'viem'
import type { BlockSelector, CallInput, SimulateV1Block, SimulateV1Params, TracerConfig } from '../../../engine/types.js'
import { CALL_FIELDS, type CallRules, type ParsedCall, parseCall } from '../../params/callObject.js'
import { readBlock } from '../../params/blockSelector.js'
import { optional, UINT64_MAX } from '../../params/grammar.js'
import { type OverrideRules, parseStateOverrides } from '../../params/stateOverrides.js'
import { invalidArgument, RpcError } from '../rpcError.js'
import { type ArgReader, argReader, SPEC } from './argReader.js'
import { parseBlockOverrides } from './blockOverrides.js'

/**
 * geth's TransactionArgs as eth_simulateV1 reads it: blob transactions (their versioned hashes)
 * run, EIP-7702 ones do not; `chainId`, when given, is carried for the engine to check against the
 * chain's; `type`, when given, is checked against the fee fields (the type follows them, as geth
 * derives it).
 */
export const SIMULATE_CALL: CallRules = {
  fields: [...CALL_FIELDS, 'maxFeePerBlobGas', 'blobVersionedHashes', 'authorizationList'],
  toAbsent: 'omit',
  accessList: { keys: 'exact', strictEntries: true },
  feeChecks: 'none',
  chainId: 'carry',
  type: 'byFees',
  blobs: true,
  authorizations: { refuseNonEmpty: 'EIP-7702 transactions are not simulated by this endpoint yet' },
}

/** geth's OverrideAccount, with eth_simulateV1's movePrecompileToAddress */
export const SIMULATE_OVERRIDES: OverrideRules = { slots: 'padded', movePrecompile: 'read' }

/** a block tag or number (`latest` when absent); a block hash is refused by name */
export function blockParam(v: unknown, index: number): BlockSelector {
  return readBlock(argReader(index, SPEC), v, '', { hash: false }) as BlockSelector
}

const bool = (r: ArgReader, v: unknown, path: string): boolean => optional(v, (x) => r.bool(x, path)) ?? false

export function readSimulateV1Params(params: unknown[]): SimulateV1Params {
  if (params.length < 1) throw new RpcError(-32602, 'missing value for required argument 0')
  if (params.length > 2) throw new RpcError(-32602, `too many arguments, want at most 2`)
  const r = argReader(0, SPEC)
  const opts = r.object(params[0], '')
  r.onlyKeys(opts, ['blockStateCalls', 'traceTransfers', 'validation', 'returnFullTransactions'], '')
  const blockStateCalls: SimulateV1Block[] = r.array(opts.blockStateCalls ?? [], 'blockStateCalls').map((b, i) => {
    const p = `blockStateCalls[${i}]`
    const o = r.object(b, p)
    r.onlyKeys(o, ['blockOverrides', 'stateOverrides', 'calls'], p)
    const block: SimulateV1Block = {
      calls: r.array(o.calls ?? [], `${p}.calls`).map((c, j) => parseCall(r, c, `${p}.calls[${j}]`, SIMULATE_CALL)),
    }
    const blockOverrides = parseBlockOverrides(o.blockOverrides, 0, `${p}.blockOverrides`, { simulate: true })
    if (blockOverrides) block.blockOverrides = blockOverrides
    const stateOverrides = parseStateOverrides(r, o.stateOverrides, `${p}.stateOverrides`, SIMULATE_OVERRIDES)
    if (stateOverrides) block.stateOverrides = stateOverrides
    return block
  })
  return {
    blockStateCalls,
    block: blockParam(params[1], 1),
    traceTransfers: bool(r, opts.traceTransfers, 'traceTransfers'),
    validation: bool(r, opts.validation, 'validation'),
    returnFullTransactions: bool(r, opts.returnFullTransactions, 'returnFullTransactions'),
  }
}

// ---- trace_* ----

export type TraceType = 'trace' | 'stateDiff' | 'vmTrace'

/** reth's parity traces: Parity's error names, precompile calls left out, Parity's top-frame gas */
export const PARITY: TracerConfig = { flatCallTracer: { convertParityErrors: true, parity: true } }

/** reth's and Erigon's argument count rules: the first `min` given, at most `max` */
function arity(params: unknown[], min: number, max: number): void {
  if (params.length < min) throw new RpcError(-32602, `missing value for required argument ${params.length}`)
  if (params.length > max) throw new RpcError(-32602, `too many arguments, want at most ${max}`)
}

function traceTypes(v: unknown, index: number): TraceType[] {
  const r = argReader(index, SPEC)
  return r.array(v, '').map((t, i): TraceType => {
    if (t !== 'trace' && t !== 'stateDiff' && t !== 'vmTrace') return r.said(`[${i}]`, `unknown trace type ${JSON.stringify(t)} (trace, stateDiff, vmTrace)`)
    return t
  })
}

const txHash = (v: unknown, index: number): Hex => argReader(index, SPEC).hash(v, '')

/** a call object without the chain id eth_simulateV1 carries */
function call(r: ArgReader, v: unknown, path: string): CallInput {
  const { chainId: _c, ...c }: ParsedCall = parseCall(r, v, path, SIMULATE_CALL)
  return c
}

/** trace_transaction: `[hash]` */
export function traceTransactionParams(params: unknown[]): { hash: Hex } {
  arity(params, 1, 1)
  return { hash: txHash(params[0], 0) }
}

/** trace_block: `[block]` */
export function traceBlockParams(params: unknown[]): { block: BlockSelector } {
  arity(params, 1, 1)
  return { block: blockParam(params[0], 0) }
}

/** trace_get: `[hash, indices]` */
export function traceGetParams(params: unknown[]): { hash: Hex; indices: number[] } {
  arity(params, 2, 2)
  const hash = txHash(params[0], 0)
  const r = argReader(1, SPEC)
  return { hash, indices: r.array(params[1], '').map((x, i) => Number(r.quantity(x, `[${i}]`, { max: UINT64_MAX }))) }
}

/** trace_call: `[call, traceTypes, block?]` */
export function traceCallParams(params: unknown[]): { call: CallInput; types: TraceType[]; block: BlockSelector } {
  arity(params, 2, 3)
  const types = traceTypes(params[1], 1)
  return { call: call(argReader(0, SPEC), params[0], ''), types, block: blockParam(params[2], 2) }
}

/** trace_callMany: `[[call, traceTypes][], block?]` */
export function traceCallManyParams(params: unknown[]): { items: { call: CallInput; types: TraceType[] }[]; block: BlockSelector } {
  arity(params, 1, 2)
  const r = argReader(0, SPEC)
  const items = r.array(params[0], '').map((item, i) => {
    const pair = r.array(item, `[${i}]`)
    if (pair.length !== 2) throw invalidArgument(0, `[${i}]: expected [call, traceTypes]`)
    return { call: call(r, pair[0], `[${i}][0]`), types: traceTypes(pair[1], 0) }
  })
  return { items, block: blockParam(params[1], 1) }
}

/** trace_replayTransaction: `[hash, traceTypes]` */
export function traceReplayTransactionParams(params: unknown[]): { hash: Hex; types: TraceType[] } {
  arity(params, 2, 2)
  const hash = txHash(params[0], 0)
  return { hash, types: traceTypes(params[1], 1) }
}

/** trace_replayBlockTransactions: `[block, traceTypes]` */
export function traceReplayBlockParams(params: unknown[]): { block: BlockSelector; types: TraceType[] } {
  arity(params, 2, 2)
  const block = blockParam(params[0], 0)
  return { block, types: traceTypes(params[1], 1) }
}
