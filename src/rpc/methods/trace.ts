/**
 * The Parity `trace_*` family, in the shape reth and Erigon print: flat call frames from the
 * engine's flatCallTracer in its `parity` form — Parity's error names, calls into precompiles
 * left out as reth leaves them out (a call moving no value into a precompile of the block's fork:
 * no frame, no subtrace, no place in traceAddress), the top frame's gas what execution got and
 * used, `"result": null` where none. `trace_transaction` / `trace_get` print localized frames (with block
 * and transaction fields); `trace_call` / `trace_callMany` / `trace_replayTransaction` print
 * reth's TraceResults `{ output, stateDiff, trace, vmTrace }` with bare frames, and
 * `trace_replayBlockTransactions` one of those per transaction with its `transactionHash`.
 *
 * Trace types: `trace`, `stateDiff` (tracers/stateDiffTracer.ts, reth's populate_state_diff) and
 * `vmTrace` (tracers/vmTraceTracer.ts, revm-inspectors' vm_trace); anything else is -32602. A
 * type not asked for prints as reth prints it: `trace: []`, `stateDiff: null`, `vmTrace: null`.
 * One difference from reth on purpose: trace_replayBlockTransactions fills each vmTrace's `code`
 * as reth's trace_replayTransaction and Anvil's trace_replayBlockTransactions do (reth's block
 * replay leaves it `0x`).
 */
import type { BlockTraceEntry, TraceResult, TracerConfig } from '../../../engine/types.js'
import type { FlatCallFrame } from '../../../tracers/flatCallTracer.js'
import type { StateDiff } from '../../../tracers/stateDiffTracer.js'
import type { VmTrace } from '../../../tracers/vmTraceTracer.js'
import {
  PARITY,
  type TraceType,
  traceBlockParams,
  traceCallManyParams,
  traceCallParams,
  traceGetParams,
  traceReplayBlockParams,
  traceReplayTransactionParams,
  traceTransactionParams,
} from '../params/simulateV1Params.js'
import { RpcError } from '../rpcError.js'
import { method, methodTable } from './table.js'

/** the engine's tracers for a set of trace types: the flat frames always (the output comes from them) */
function tracersFor(types: TraceType[]): TracerConfig {
  return { ...PARITY, ...(types.includes('stateDiff') ? { stateDiffTracer: true } : {}), ...(types.includes('vmTrace') ? { vmTraceTracer: true } : {}) }
}

/** a frame without the block/transaction fields (trace_call, trace_replay*) */
function bare(f: FlatCallFrame): Record<string, unknown> {
  const { blockHash: _h, blockNumber: _n, transactionHash: _t, transactionPosition: _p, ...rest } = f
  return rest
}

/** reth's TraceResults, in its field order */
function traceResults(result: TraceResult, types: TraceType[]): Record<string, unknown> {
  const frames = result.flatCallTracer as FlatCallFrame[]
  const top = frames[0]
  return {
    output: top?.result?.output ?? top?.result?.code ?? '0x',
    stateDiff: types.includes('stateDiff') ? (result.stateDiffTracer as StateDiff) : null,
    trace: types.includes('trace') ? frames.map(bare) : [],
    vmTrace: types.includes('vmTrace') ? (result.vmTraceTracer as VmTrace) : null,
  }
}

/** a block's flat frames, all in one list; a mined transaction that does not replay is the engine's failure, not the caller's */
function blockFrames(entries: BlockTraceEntry[]): FlatCallFrame[] {
  return entries.flatMap((e) => {
    if ('error' in e) throw new RpcError(-32000, `transaction ${e.txHash}: ${e.error}`)
    return e.result.flatCallTracer as FlatCallFrame[]
  })
}

/** reth's TraceResultsWithTransactionHash per transaction: the TraceResults fields, then the hash */
function blockResults(entries: BlockTraceEntry[], types: TraceType[]): Record<string, unknown>[] {
  return entries.map((e) => {
    if ('error' in e) throw new RpcError(-32000, `transaction ${e.txHash}: ${e.error}`)
    return { ...traceResults(e.result, types), transactionHash: e.txHash }
  })
}

/** the frame at a position in the transaction's flat trace list */
function frameAt(result: TraceResult, index: number): FlatCallFrame | null {
  return (result.flatCallTracer as FlatCallFrame[])[index] ?? null
}

export const TRACE_METHODS = [
  method(['trace_transaction'], traceTransactionParams, async ({ hash }, ctx) => (await ctx.engine.traceTransaction(ctx.at, hash, PARITY)).flatCallTracer),
  method(['trace_block'], traceBlockParams, async ({ block }, ctx) => blockFrames(await ctx.engine.traceBlock(ctx.at, { block, tracerConfig: PARITY }))),
  // reth: exactly one index, else null
  method(['trace_get'], traceGetParams, async ({ hash, indices }, ctx) =>
    indices.length !== 1 ? null : frameAt(await ctx.engine.traceTransaction(ctx.at, hash, PARITY), indices[0]!),
  ),
  method(['trace_call'], traceCallParams, async ({ call, types, block }, ctx) =>
    traceResults(await ctx.engine.traceCall(ctx.at, { call, block, tracerConfig: tracersFor(types) }), types),
  ),
  method(['trace_callMany'], traceCallManyParams, async ({ items, block }, ctx) => {
    const tracerConfig = tracersFor(items.flatMap((item) => item.types))
    const [results] = await ctx.engine.traceCallMany(ctx.at, { bundles: [{ transactions: items.map((item) => item.call) }], block, tracerConfig })
    return (results ?? []).map((res, i) => traceResults(res, items[i]!.types))
  }),
  method(['trace_replayTransaction'], traceReplayTransactionParams, async ({ hash, types }, ctx) =>
    traceResults(await ctx.engine.traceTransaction(ctx.at, hash, tracersFor(types)), types),
  ),
  method(['trace_replayBlockTransactions'], traceReplayBlockParams, async ({ block, types }, ctx) =>
    blockResults(await ctx.engine.traceBlock(ctx.at, { block, tracerConfig: tracersFor(types) }), types),
  ),
]

export const traceMethods = methodTable(TRACE_METHODS)
