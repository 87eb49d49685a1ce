/**
 * The trace service behind /trace/tx, /trace/call and /trace/call-many (decisions.md §8). It works
 * over any ChainSource (embedded devnet or JSON-RPC fork) and needs no debug_* method upstream: a
 * mined transaction is replayed where it ran (engine/run/openReplay.ts), a call runs on a block
 * opened by engine/run/openRun.ts.
 *
 * Call semantics follow geth's debug_traceCall:
 * - block selector default `latest` (`pending` traces on `latest`, see openRun);
 * - gas defaults to the gas cap and is clamped to it (run/callDefaults.ts, `trace`);
 * - state overrides are written before execution, block overrides replace header fields;
 * - no nonce or fee validation (eth_call semantics), the value and gas*price still need funds;
 * - reverts are not errors: they show in the tracer output.
 *
 * @example
 * const traces = createTraceService(chain, { gasCap: 50_000_000n, maxStructLogSteps: 100_000 })
 * await traces.traceCall({ call, block: { tag: 'latest' }, tracerConfig: { callTracer: {} } })
 */
import type { Hex } from 'viem'
import type { ChainSource } from '../chain/types.js'
import { executeCall, executeSignedTx } from '../execution/executeTransaction.js'
import type { CallInput } from '../execution/types.js'
import { openReplay, openRun, withCallDefaults, type ReplayOverrides, type RunDeps } from '../run/index.js'
import type { BlockOverrides, BlockSelector, StateOverrides, TraceCallManyParams, TraceCallParams, TraceResult, TracerConfig } from '../types.js'
import { createTracers } from '../../tracers/createTracers.js'
import { createTraceSet } from './traceSet.js'

export type TraceServiceOptions = Pick<RunDeps, 'gasCap' | 'maxStructLogSteps'>

/** optional extras of /trace/tx: applied on top of the state the traced transaction starts from */
export type TraceTransactionOptions = ReplayOverrides

export interface TraceService {
  traceTransaction(hash: Hex, tracerConfig: TracerConfig, opts?: TraceTransactionOptions): Promise<TraceResult>
  traceCall(params: TraceCallParams): Promise<TraceResult>
  traceCallMany(params: TraceCallManyParams): Promise<TraceResult[][]>
}

export function createTraceService(chain: ChainSource, opts: TraceServiceOptions): TraceService {
  const tracerOpts = { maxStructLogSteps: opts.maxStructLogSteps }

  async function traceCalls(
    block: BlockSelector | undefined,
    bundles: CallInput[][],
    tracerConfig: TracerConfig,
    stateOverrides: StateOverrides | undefined,
    blockOverrides: BlockOverrides | undefined,
  ): Promise<TraceResult[][]> {
    // build the tracers' configs first: a bad tracer option fails before any state is read
    createTracers(tracerConfig, tracerOpts)
    const { ctx } = await openRun(chain, { block, calls: bundles.flat(), stateOverrides, blockOverrides })
    const limits = { blockGasLimit: ctx.block.gasLimit, gasCap: opts.gasCap }
    const out: TraceResult[][] = []
    for (const calls of bundles) {
      const results: TraceResult[] = []
      for (const call of calls) {
        // one tracer set per transaction; the state carries over to the next one
        const set = createTraceSet(tracerConfig, tracerOpts)
        await executeCall(ctx, withCallDefaults('trace', call, limits), { tracers: set.tracers, validation: false })
        results.push(await set.result(ctx, executeCall))
      }
      out.push(results)
    }
    return out
  }

  return {
    async traceTransaction(hash, tracerConfig, extra = {}) {
      createTracers(tracerConfig, tracerOpts)
      const replay = await openReplay(chain, hash, extra)
      const set = createTraceSet(tracerConfig, tracerOpts)
      await executeSignedTx(replay.ctx, replay.tx.tx, {
        tracers: set.tracers,
        validation: !extra.stateOverrides && !extra.blockOverrides,
        blockGasUsed: replay.blockGasUsed,
      })
      return set.result(replay.ctx, executeCall)
    },

    async traceCall(params) {
      const [[result]] = await traceCalls(params.block, [[params.call]], params.tracerConfig, params.stateOverrides, params.blockOverrides)
      return result
    },

    traceCallMany(params) {
      return traceCalls(params.block, params.bundles.map((b) => b.transactions), params.tracerConfig, params.stateOverrides, params.blockOverrides)
    },
  }
}
