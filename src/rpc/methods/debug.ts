/**
 * The debug_* tracing methods, geth's (eth/tracers/api.go) on top of any plain node: the engine
 * replays what geth would trace, so the upstream needs no debug API.
 *
 * - debug_traceTransaction(hash, TraceConfig?)
 * - debug_traceCall(call, block, TraceCallConfig?) — TraceConfig + stateOverrides, blockOverrides, txIndex
 * - debug_traceBlockByNumber(number, TraceConfig?) / debug_traceBlockByHash(hash, TraceConfig?):
 *   `[{txHash, result}]`, `{txHash, error}` for a transaction that cannot be traced
 * - debug_traceCallMany(bundles, stateContext?, TraceConfig?) in the Erigon/reth shape: bundles
 *   `{transactions, blockOverride}` run in order with state carried over, `stateContext`
 *   `{blockNumber, transactionIndex}` (-1 or absent: after the whole block); answers `[[result]]`.
 *
 * TraceConfig → engine tracers and back: src/rpc/params/debugTraceConfig.ts. Params: strict, geth's
 * words (src/rpc/params/debugParams.ts, read before the method runs). Engine failures propagate as EngineError (the front door maps
 * them), except where geth's own text is part of the answer: an unknown transaction is
 * `transaction not found`, a missing block `block #N not found` / `block 0x… not found`.
 *
 * @example
 * const result = await debugMethods.debug_traceTransaction!([hash, { tracer: 'callTracer' }], ctx)
 */
import { isEngineError } from '../../../engine/types.js'
import type { BlockRef, BlockTraceEntry, TraceResult } from '../../../engine/types.js'
import { traceBlockByHashParams, traceBlockByNumberParams, traceCallManyParams, traceCallParams, traceTransactionParams } from '../params/debugParams.js'
import type { ParsedTraceConfig } from '../params/debugTraceConfig.js'
import { RpcError } from '../rpcError.js'
import { method, methodTable } from './table.js'

/** geth's texts where the answer is the node's own words */
async function withGethNotFound<T>(run: () => Promise<T>, block?: BlockRef): Promise<T> {
  try {
    return await run()
  } catch (e) {
    if (isEngineError(e) && e.code === 'TRANSACTION_NOT_FOUND') throw new RpcError(-32000, 'transaction not found')
    if (isEngineError(e) && e.code === 'BLOCK_NOT_FOUND' && block) {
      if ('hash' in block) throw new RpcError(-32000, `block ${block.hash} not found`)
      if ('number' in block) throw new RpcError(-32000, `block #${block.number} not found`)
    }
    throw e
  }
}

function shapeBlock(entries: BlockTraceEntry[], cfg: ParsedTraceConfig): unknown[] {
  return entries.map((e) => ('error' in e ? { txHash: e.txHash, error: e.error } : { txHash: e.txHash, result: cfg.shape(e.result) }))
}

/** a block's traces, each in the shape its config asks */
const traceBlock = async ({ block, cfg }: { block: BlockRef; cfg: ParsedTraceConfig }, ctx: import('../types.js').RpcContext) =>
  shapeBlock(await withGethNotFound(() => ctx.engine.traceBlock(ctx.at, { block, tracerConfig: cfg.tracerConfig, timeoutMs: cfg.timeoutMs }), block), cfg)

export const DEBUG_METHODS = [
  method(['debug_traceTransaction'], traceTransactionParams, async ({ hash, cfg }, ctx) =>
    cfg.shape(await withGethNotFound(() => ctx.engine.traceTransaction(ctx.at, hash, cfg.tracerConfig, { timeoutMs: cfg.timeoutMs }))),
  ),
  method(['debug_traceCall'], traceCallParams, async ({ call, block, cfg }, ctx) =>
    cfg.shape(
      await withGethNotFound(
        () =>
          ctx.engine.traceCall(ctx.at, {
            call,
            block,
            tracerConfig: cfg.tracerConfig,
            timeoutMs: cfg.timeoutMs,
            ...(cfg.stateOverrides && { stateOverrides: cfg.stateOverrides }),
            ...(cfg.blockOverrides && { blockOverrides: cfg.blockOverrides }),
            ...(cfg.txIndex !== undefined && { txIndex: cfg.txIndex }),
          }),
        block,
      ),
    ),
  ),
  method(['debug_traceBlockByNumber'], traceBlockByNumberParams, traceBlock),
  method(['debug_traceBlockByHash'], traceBlockByHashParams, traceBlock),
  method(['debug_traceCallMany'], traceCallManyParams, async ({ bundles, block, txIndex, cfg }, ctx) => {
    const results = await withGethNotFound(
      () =>
        ctx.engine.traceCallMany(ctx.at, {
          bundles,
          block,
          tracerConfig: cfg.tracerConfig,
          timeoutMs: cfg.timeoutMs,
          ...(txIndex !== undefined && { txIndex }),
          ...(cfg.stateOverrides && { stateOverrides: cfg.stateOverrides }),
          ...(cfg.blockOverrides && { blockOverrides: cfg.blockOverrides }),
        }),
      block,
    )
    return results.map((bundle: TraceResult[]) => bundle.map((r) => cfg.shape(r)))
  }),
]

export const debugMethods = methodTable(DEBUG_METHODS)
