/**
 * The trace service behind /trace/tx, /trace/call and /trace/call-many (decisions.md §8). It works
 * over any ChainSource (embedded devnet or JSON-RPC fork) and needs no debug_* method upstream:
 * a mined transaction is replayed on the state after its parent block, with the block's start
 * system calls (EIP-4788, EIP-2935) and every earlier transaction of its block applied first,
 * which equals debug_traceTransaction on an archive geth.
 *
 * Call semantics follow geth's debug_traceCall:
 * - block selector default `latest`. geth rejects `pending` ("tracing on top of pending is not
 *   supported"); our API lists it as a valid tag (decisions §8), and with no mempool of our own the
 *   pending block's state is the latest block's, so `pending` traces on `latest`.
 * - gas defaults to the gas cap and is clamped to it (geth RPCGasCap);
 * - state overrides are written before execution, block overrides replace header fields;
 * - no nonce or fee validation (eth_call semantics), the value and gas*price still need funds;
 * - reverts are not errors: they show in the tracer output.
 *
 * @example
 * const traces = createTraceService(chain, { gasCap: 50_000_000n, maxStructLogSteps: 100_000 })
 * await traces.traceCall({ call, block: { tag: 'latest' }, tracerConfig: { callTracer: {} } })
 */
import type { Hex } from 'viem'
import { resolveAndPrefetch } from '../chain/resolveAndPrefetch.js'
import type { BlockHeaderInfo, ChainSource, PrefetchCalls } from '../chain/types.js'
import { EngineError, isEngineError } from '../errors.js'
import { executeCall, executeSignedTx } from '../execution/executeTransaction.js'
import type { CallInput, ExecuteCall, ExecuteSignedTx } from '../execution/types.js'
import type { BlockOverrides, BlockSelector, StateOverrides, TraceCallManyParams, TraceCallParams, TraceResult, TracerConfig } from '../types.js'
import { createTracers } from '../../tracers/createTracers.js'
import { createTraceSet } from './traceSet.js'
import { executionContext } from './blockEnvironment.js'
import { applyStateOverrides } from './stateOverrides.js'
import { applyBlockSystemCalls } from './systemCalls.js'

export interface TraceServiceOptions {
  /** default and maximum gas of a traced call (EngineOptions.gasCap) */
  gasCap: bigint
  /** struct logger refusal threshold (EngineOptions.maxStructLogSteps) */
  maxStructLogSteps: number
  /** the execution layer; defaults to engine/execution (override only to wrap it, e.g. timing) */
  execute?: { call: ExecuteCall; signedTx: ExecuteSignedTx }
}

/** optional extras of /trace/tx: applied on top of the state the traced transaction starts from */
export interface TraceTransactionOptions {
  stateOverrides?: StateOverrides
  blockOverrides?: BlockOverrides
}

export interface TraceService {
  traceTransaction(hash: Hex, tracerConfig: TracerConfig, opts?: TraceTransactionOptions): Promise<TraceResult>
  traceCall(params: TraceCallParams): Promise<TraceResult>
  traceCallMany(params: TraceCallManyParams): Promise<TraceResult[][]>
}

export function createTraceService(chain: ChainSource, opts: TraceServiceOptions): TraceService {
  const run = opts.execute ?? { call: executeCall, signedTx: executeSignedTx }
  const tracerOpts = { maxStructLogSteps: opts.maxStructLogSteps }

  /** a trace runs on a fixed block: `pending` has no state of its own here, see the header */
  function resolve(block: BlockSelector | undefined, calls: PrefetchCalls): Promise<BlockHeaderInfo> {
    const selector: BlockSelector = !block ? { tag: 'latest' } : 'tag' in block && block.tag === 'pending' ? { tag: 'latest' } : block
    return resolveAndPrefetch(chain, selector, calls)
  }

  /** geth CallDefaults: gas defaults to the cap and is clamped to it */
  function withGas(call: CallInput): CallInput {
    const gas = call.gas === undefined || call.gas > opts.gasCap ? opts.gasCap : call.gas
    return { ...call, gas }
  }

  async function traceCalls(
    block: BlockSelector | undefined,
    bundles: CallInput[][],
    tracerConfig: TracerConfig,
    stateOverrides: StateOverrides | undefined,
    blockOverrides: BlockOverrides | undefined,
  ): Promise<TraceResult[][]> {
    // build the tracers' configs first: a bad tracer option fails before any state is read
    createTracers(tracerConfig, tracerOpts)
    const header = await resolve(block, bundles.flat())
    const state = await chain.stateAfter(header.number)
    await applyStateOverrides(state, stateOverrides)
    const ctx = executionContext(chain, header, state, blockOverrides)
    const out: TraceResult[][] = []
    for (const calls of bundles) {
      const results: TraceResult[] = []
      for (const call of calls) {
        // one tracer set per transaction; the state carries over to the next one
        const set = createTraceSet(tracerConfig, tracerOpts)
        await run.call(ctx, withGas(call), { tracers: set.tracers, validation: false })
        results.push(await set.result(ctx, run.call))
      }
      out.push(results)
    }
    return out
  }

  return {
    async traceTransaction(hash, tracerConfig, extra = {}) {
      createTracers(tracerConfig, tracerOpts)
      const mined = await chain.getTransaction(hash)
      if (!mined) {
        throw new EngineError('TRANSACTION_NOT_FOUND', `transaction ${hash} was not found (unknown, or not mined yet)`, { transactionHash: hash },
          'check the hash and that the service is connected to the chain the transaction was mined on')
      }
      const header = await chain.resolveBlock({ number: mined.blockNumber })
      if (header.number === 0n) {
        throw new EngineError('VALIDATION_ERROR', 'genesis is not traceable', { transactionHash: hash })
      }
      const [state, blockTxs] = await Promise.all([chain.stateAfter(header.number - 1n), chain.getBlockTransactions(header.number)])
      const earlier = blockTxs.filter((t) => t.index < mined.index).sort((a, b) => a.index - b.index)
      await chain.prefetch?.(header.number - 1n, [...earlier, mined].map((t) => ({
        from: t.from,
        to: t.tx.to ? (t.tx.to.toString() as Hex) : null,
        data: `0x${Buffer.from(t.tx.data).toString('hex')}` as Hex,
        value: t.tx.value,
      })))
      const replayCtx = executionContext(chain, header, state)
      await applyBlockSystemCalls(state, replayCtx.common, header)
      let blockGasUsed = 0n
      for (const prior of earlier) {
        try {
          const r = await run.signedTx(replayCtx, prior.tx, { validation: true, blockGasUsed })
          blockGasUsed += r.gasUsed
        } catch (e) {
          // a mined transaction that does not replay means our state or rules differ from the chain's
          if (isEngineError(e) && e.code !== 'VALIDATION_ERROR' && e.code !== 'INSUFFICIENT_GAS') throw e
          throw new EngineError('INTERNAL_ERROR', `replaying transaction ${prior.hash} (index ${prior.index}) before ${hash} failed`, {
            cause: e instanceof Error ? e.message : String(e),
          })
        }
      }
      await applyStateOverrides(state, extra.stateOverrides)
      const ctx = extra.blockOverrides ? executionContext(chain, header, state, extra.blockOverrides) : replayCtx
      const set = createTraceSet(tracerConfig, tracerOpts)
      await run.signedTx(ctx, mined.tx, { tracers: set.tracers, validation: !extra.stateOverrides && !extra.blockOverrides, blockGasUsed })
      return set.result(ctx, run.call)
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
