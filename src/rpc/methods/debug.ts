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
 * words (src/rpc/params/debugParams.ts). Engine failures propagate as EngineError (the front door maps
 * them), except where geth's own text is part of the answer: an unknown transaction is
 * `transaction not found`, a missing block `block #N not found` / `block 0x… not found`.
 *
 * @example
 * const result = await debugMethods.debug_traceTransaction!([hash, { tracer: 'callTracer' }], ctx)
 */
import { isEngineError } from '../../../engine/types.js'
import type { BlockRef, TraceResult } from '../../../engine/types.js'
import type { BlockTraceEntry } from '../../../engine/types.js'
import { invalidArgument, RpcError } from '../rpcError.js'
import type { RpcContext, RpcMethodTable } from '../types.js'
import { parseBlockOverrides } from '../params/blockOverrides.js'
import { isObject, onlyKeys, parseBlockNumber, parseBlockRef, parseCallObject, parseHash } from '../params/debugParams.js'
import { parseTraceCallConfig, parseTraceConfig, type ParsedTraceConfig } from '../params/debugTraceConfig.js'

/** geth's argument count rules: required ones present, no extra ones */
function arity(params: unknown[], required: number, max: number): void {
  if (params.length > max) throw new RpcError(-32602, `too many arguments, want at most ${max}`)
  for (let i = 0; i < required; i++) {
    if (params[i] === undefined || params[i] === null) throw new RpcError(-32602, `missing value for required argument ${i}`)
  }
}

const limits = (ctx: RpcContext) => ({ maxTimeoutMs: ctx.config.server.request_timeout_ms })

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

/** geth refuses `pending` for calls: no miner to ask what the pending block would hold */
function refusePending(block: BlockRef): void {
  if ('tag' in block && block.tag === 'pending') throw new RpcError(-32000, 'tracing on top of pending is not supported')
}

async function traceTransaction(params: unknown[], ctx: RpcContext): Promise<unknown> {
  arity(params, 1, 2)
  const hash = parseHash(params[0], 0, 'transactionHash')
  const cfg = parseTraceConfig(params[1], 1, limits(ctx))
  const result = await withGethNotFound(() => ctx.engine.traceTransaction(ctx.at, hash, cfg.tracerConfig, { timeoutMs: cfg.timeoutMs }))
  return cfg.shape(result)
}

async function traceCall(params: unknown[], ctx: RpcContext): Promise<unknown> {
  arity(params, 2, 3)
  const call = parseCallObject(params[0], 0, 'call')
  const block = parseBlockRef(params[1], 1)
  refusePending(block)
  const cfg = parseTraceCallConfig(params[2], 2, limits(ctx))
  const result = await withGethNotFound(
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
  )
  return cfg.shape(result)
}

async function traceBlock(block: BlockRef, rawConfig: unknown, ctx: RpcContext): Promise<unknown> {
  const cfg = parseTraceConfig(rawConfig, 1, limits(ctx))
  const entries = await withGethNotFound(() => ctx.engine.traceBlock(ctx.at, { block, tracerConfig: cfg.tracerConfig, timeoutMs: cfg.timeoutMs }), block)
  return shapeBlock(entries, cfg)
}

async function traceBlockByNumber(params: unknown[], ctx: RpcContext): Promise<unknown> {
  arity(params, 1, 2)
  return traceBlock(parseBlockNumber(params[0], 0, 'blockNumber'), params[1], ctx)
}

async function traceBlockByHash(params: unknown[], ctx: RpcContext): Promise<unknown> {
  arity(params, 1, 2)
  return traceBlock({ hash: parseHash(params[0], 0, 'blockHash') }, params[1], ctx)
}

/** Erigon/reth stateContext: `{blockNumber, transactionIndex}`; -1 or absent index = after the whole block */
function parseStateContext(v: unknown, index: number): { block: BlockRef; txIndex?: number } {
  if (v === undefined || v === null) return { block: { tag: 'latest' } }
  if (!isObject(v)) throw invalidArgument(index, 'stateContext: expected {blockNumber, transactionIndex}')
  onlyKeys(v, ['blockNumber', 'transactionIndex'], index, 'stateContext')
  const block =
    v.blockNumber === undefined || v.blockNumber === null ? ({ tag: 'latest' } as BlockRef) : parseBlockRef(v.blockNumber, index, 'stateContext.blockNumber')
  const ti = v.transactionIndex
  if (ti === undefined || ti === null || ti === -1 || ti === '-0x1') return { block }
  if (typeof ti === 'number') {
    if (!Number.isSafeInteger(ti) || ti < -1) throw invalidArgument(index, 'stateContext.transactionIndex: expected an integer ≥ -1')
    return { block, txIndex: ti }
  }
  if (typeof ti === 'string' && /^0x[0-9a-fA-F]+$/.test(ti)) return { block, txIndex: Number(BigInt(ti)) }
  throw invalidArgument(index, 'stateContext.transactionIndex: expected an integer (-1: after the whole block)')
}

async function traceCallMany(params: unknown[], ctx: RpcContext): Promise<unknown> {
  arity(params, 1, 3)
  const rawBundles = params[0]
  if (!Array.isArray(rawBundles)) throw invalidArgument(0, 'bundles: expected an array of {transactions, blockOverride}')
  const maxCalls = ctx.config.limits.max_calls_per_simulation
  let total = 0
  const bundles = rawBundles.map((b, i) => {
    const path = `bundles[${i}]`
    if (!isObject(b)) throw invalidArgument(0, `${path}: expected {transactions, blockOverride}`)
    onlyKeys(b, ['transactions', 'blockOverride'], 0, path)
    if (!Array.isArray(b.transactions)) throw invalidArgument(0, `${path}.transactions: expected an array of call objects`)
    total += b.transactions.length
    if (total > maxCalls) throw invalidArgument(0, `bundles: more than ${maxCalls} transactions in all (limits.max_calls_per_simulation)`)
    const blockOverrides = parseBlockOverrides(b.blockOverride, 0, `${path}.blockOverride`)
    return {
      transactions: b.transactions.map((t, j) => parseCallObject(t, 0, `${path}.transactions[${j}]`)),
      ...(blockOverrides && { blockOverrides }),
    }
  })
  const { block, txIndex } = parseStateContext(params[1], 1)
  refusePending(block)
  const cfg = parseTraceCallConfig(params[2], 2, limits(ctx))
  if (cfg.txIndex !== undefined) throw invalidArgument(2, 'txIndex: give the transaction index in stateContext.transactionIndex')
  const stateOverrides = cfg.stateOverrides
  const results = await withGethNotFound(
    () =>
      ctx.engine.traceCallMany(ctx.at, {
        bundles,
        block,
        tracerConfig: cfg.tracerConfig,
        timeoutMs: cfg.timeoutMs,
        ...(txIndex !== undefined && { txIndex }),
        ...(stateOverrides && { stateOverrides }),
        ...(cfg.blockOverrides && { blockOverrides: cfg.blockOverrides }),
      }),
    block,
  )
  return results.map((bundle: TraceResult[]) => bundle.map((r) => cfg.shape(r)))
}

export const debugMethods: RpcMethodTable = {
  debug_traceTransaction: traceTransaction,
  debug_traceCall: traceCall,
  debug_traceBlockByNumber: traceBlockByNumber,
  debug_traceBlockByHash: traceBlockByHash,
  debug_traceCallMany: traceCallMany,
}
