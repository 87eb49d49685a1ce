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
import type { Hex } from 'viem'
import type { CallInput, TraceResult, TracerConfig } from '../../../engine/types.js'
import type { FlatCallFrame } from '../../../tracers/flatCallTracer.js'
import type { StateDiff } from '../../../tracers/stateDiffTracer.js'
import type { VmTrace } from '../../../tracers/vmTraceTracer.js'
import { invalidArgument, RpcError } from '../rpcError.js'
import type { RpcMethodTable } from '../types.js'
import { blockParam, callParam, paramReader } from '../params/simulateV1Params.js'

/** reth's parity traces: Parity's error names, precompile calls left out, Parity's top-frame gas */
const PARITY: TracerConfig = { flatCallTracer: { convertParityErrors: true, parity: true } }

type TraceType = 'trace' | 'stateDiff' | 'vmTrace'

function traceTypes(v: unknown, index: number): TraceType[] {
  const r = paramReader(index)
  const types = r.array(v, '').map((t, i) => {
    if (t !== 'trace' && t !== 'stateDiff' && t !== 'vmTrace') throw r.fail(`[${i}]`, `unknown trace type ${JSON.stringify(t)} (trace, stateDiff, vmTrace)`)
    return t as TraceType
  })
  return types
}

/** the engine's tracers for a set of trace types: the flat frames always (the output comes from them) */
function tracersFor(types: TraceType[]): TracerConfig {
  return { ...PARITY, ...(types.includes('stateDiff') ? { stateDiffTracer: true } : {}), ...(types.includes('vmTrace') ? { vmTraceTracer: true } : {}) }
}

function txHash(v: unknown, index: number): Hex {
  return paramReader(index).hash(v, '')
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

function arity(params: unknown[], min: number, max: number): void {
  if (params.length < min) throw new RpcError(-32602, `missing value for required argument ${params.length}`)
  if (params.length > max) throw new RpcError(-32602, `too many arguments, want at most ${max}`)
}

function call(v: unknown, index: number): CallInput {
  const { chainId: _c, ...c } = callParam(paramReader(index), v, '')
  return c
}

export const traceMethods: RpcMethodTable = {
  async trace_transaction(params, ctx) {
    arity(params, 1, 1)
    const result = await ctx.engine.traceTransaction(ctx.at, txHash(params[0], 0), PARITY)
    return result.flatCallTracer
  },

  async trace_block(params, ctx) {
    arity(params, 1, 1)
    const entries = await ctx.engine.traceBlock(ctx.at, { block: blockParam(params[0], 0), tracerConfig: PARITY })
    return entries.flatMap((e) => {
      // a mined transaction that does not replay is the engine's failure, not the caller's
      if ('error' in e) throw new RpcError(-32000, `transaction ${e.txHash}: ${e.error}`)
      return e.result.flatCallTracer as FlatCallFrame[]
    })
  },

  async trace_get(params, ctx) {
    arity(params, 2, 2)
    const hash = txHash(params[0], 0)
    const r = paramReader(1)
    const indices = r.array(params[1], '').map((x, i) => Number(r.quantity(x, `[${i}]`, r.UINT64_MAX)))
    // reth: exactly one index, the position in the transaction's flat trace list
    if (indices.length !== 1) return null
    const frames = (await ctx.engine.traceTransaction(ctx.at, hash, PARITY)).flatCallTracer as FlatCallFrame[]
    return frames[indices[0]!] ?? null
  },

  async trace_call(params, ctx) {
    arity(params, 2, 3)
    const types = traceTypes(params[1], 1)
    const result = await ctx.engine.traceCall(ctx.at, { call: call(params[0], 0), block: blockParam(params[2], 2), tracerConfig: tracersFor(types) })
    return traceResults(result, types)
  },

  async trace_callMany(params, ctx) {
    arity(params, 1, 2)
    const r = paramReader(0)
    const items = r.array(params[0], '').map((item, i) => {
      const pair = r.array(item, `[${i}]`)
      if (pair.length !== 2) throw invalidArgument(0, `[${i}]: expected [call, traceTypes]`)
      return { call: callParam(r, pair[0], `[${i}][0]`), types: traceTypes(pair[1], 0) }
    })
    const calls = items.map(({ call: { chainId: _c, ...c } }) => c)
    const tracerConfig = tracersFor(items.flatMap((item) => item.types))
    const [results] = await ctx.engine.traceCallMany(ctx.at, { bundles: [{ transactions: calls }], block: blockParam(params[1], 1), tracerConfig })
    return (results ?? []).map((res, i) => traceResults(res, items[i]!.types))
  },

  async trace_replayTransaction(params, ctx) {
    arity(params, 2, 2)
    const hash = txHash(params[0], 0)
    const types = traceTypes(params[1], 1)
    const result = await ctx.engine.traceTransaction(ctx.at, hash, tracersFor(types))
    return traceResults(result, types)
  },

  async trace_replayBlockTransactions(params, ctx) {
    arity(params, 2, 2)
    const block = blockParam(params[0], 0)
    const types = traceTypes(params[1], 1)
    const entries = await ctx.engine.traceBlock(ctx.at, { block, tracerConfig: tracersFor(types) })
    return entries.map((e) => {
      // a mined transaction that does not replay is the engine's failure, not the caller's
      if ('error' in e) throw new RpcError(-32000, `transaction ${e.txHash}: ${e.error}`)
      // reth's TraceResultsWithTransactionHash: the TraceResults fields, then the hash
      return { ...traceResults(e.result, types), transactionHash: e.txHash }
    })
  },
}
