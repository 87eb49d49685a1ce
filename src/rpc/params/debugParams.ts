/**
 * The params of the debug_* tracing methods → typed values, strictly, with geth's rules and
 * progressive words (src/rpc/params/argReader.ts GETH): quantities are 0x-hex without leading
 * zeros, data is 0x-hex of whole bytes, a block is a tag, a number or an EIP-1898 object, and a
 * key nobody reads is refused (never silently dropped). Every failure is RpcError -32602
 * `invalid argument N: …` naming the field; the trace config is read by debugTraceConfig.ts.
 *
 * @example
 * traceCallParams([{ to, data }, 'latest', { tracer: 'callTracer' }], ctx) // { call, block, cfg }
 */
import type { Hex } from 'viem'
import type { BlockOverrides, BlockRef, BlockSelector, CallInput } from '../../../engine/types.js'
import { BLOB_FIELDS, CALL_FIELDS, type CallRules, parseCall } from '../../params/callObject.js'
import { readBlock } from '../../params/blockSelector.js'
import { absent, isObject, typeName } from '../../params/grammar.js'
import { RpcError } from '../rpcError.js'
import type { RpcContext } from '../types.js'
import { type ArgReader, argReader, arity, GETH } from './argReader.js'
import { parseBlockOverrides } from './blockOverrides.js'
import { type ParsedTraceCallConfig, type ParsedTraceConfig, parseTraceCallConfig, parseTraceConfig, type TraceConfigLimits } from './debugTraceConfig.js'

/** geth's TransactionArgs as the debug methods read it: no blob or EIP-7702 call can be traced here */
export const DEBUG_CALL: CallRules = {
  fields: CALL_FIELDS,
  refused: { fields: [...BLOB_FIELDS, 'authorizationList'], why: 'not supported by this endpoint (blob and EIP-7702 calls cannot be traced here)' },
  accessList: { keys: 'exact', strictEntries: true },
  feeChecks: 'feeMix',
  chainId: 'read',
  type: 'read',
}

const parseHash = (v: unknown, index: number, path: string): Hex => argReader(index, GETH).hash(v, path)

/** a block param that must be given: geth rpc.BlockNumber (`hash: false`) or rpc.BlockNumberOrHash */
function requiredBlock(v: unknown, index: number, path: string, opts: { hash?: boolean } = {}): BlockRef {
  const r: ArgReader = argReader(index, GETH)
  if (absent(v)) r.said(path, `expected a block number or tag string, got ${typeName(v)}`)
  return readBlock(r, v, path, opts)
}

const limits = (ctx: RpcContext): TraceConfigLimits => ({ maxTimeoutMs: ctx.config.server.request_timeout_ms })

/** geth refuses `pending` for calls: no miner to ask what the pending block would hold */
function refusePending(block: BlockRef): void {
  if ('tag' in block && block.tag === 'pending') throw new RpcError(-32000, 'tracing on top of pending is not supported')
}

/** debug_traceTransaction: `[hash, TraceConfig?]` */
export function traceTransactionParams(params: unknown[], ctx: RpcContext): { hash: Hex; cfg: ParsedTraceConfig } {
  arity(params, 1, 2)
  return { hash: parseHash(params[0], 0, 'transactionHash'), cfg: parseTraceConfig(params[1], 1, limits(ctx)) }
}

/** debug_traceCall: `[call, block, TraceCallConfig?]` */
export function traceCallParams(params: unknown[], ctx: RpcContext): { call: CallInput; block: BlockRef; cfg: ParsedTraceCallConfig } {
  arity(params, 2, 3)
  const call = parseCall(argReader(0, GETH), params[0], 'call', DEBUG_CALL)
  const block = requiredBlock(params[1], 1, 'block')
  refusePending(block)
  return { call, block, cfg: parseTraceCallConfig(params[2], 2, limits(ctx)) }
}

/** debug_traceBlockByNumber: `[number, TraceConfig?]` */
export function traceBlockByNumberParams(params: unknown[], ctx: RpcContext): { block: BlockRef; cfg: ParsedTraceConfig } {
  arity(params, 1, 2)
  const block = requiredBlock(params[0], 0, 'blockNumber', { hash: false }) as BlockSelector
  return { block, cfg: parseTraceConfig(params[1], 1, limits(ctx)) }
}

/** debug_traceBlockByHash: `[hash, TraceConfig?]` */
export function traceBlockByHashParams(params: unknown[], ctx: RpcContext): { block: BlockRef; cfg: ParsedTraceConfig } {
  arity(params, 1, 2)
  const block = { hash: parseHash(params[0], 0, 'blockHash') }
  return { block, cfg: parseTraceConfig(params[1], 1, limits(ctx)) }
}

/** Erigon/reth stateContext: `{blockNumber, transactionIndex}`; -1 or absent index = after the whole block */
function parseStateContext(v: unknown, index: number): { block: BlockRef; txIndex?: number } {
  if (absent(v)) return { block: { tag: 'latest' } }
  const r: ArgReader = argReader(index, GETH)
  if (!isObject(v)) return r.said('stateContext', 'expected {blockNumber, transactionIndex}')
  r.onlyKeys(v, ['blockNumber', 'transactionIndex'], 'stateContext')
  const block = absent(v.blockNumber) ? ({ tag: 'latest' } as BlockRef) : requiredBlock(v.blockNumber, index, 'stateContext.blockNumber')
  const ti = v.transactionIndex
  if (ti === undefined || ti === null || ti === -1 || ti === '-0x1') return { block }
  if (typeof ti === 'number') {
    if (!Number.isSafeInteger(ti) || ti < -1) r.said('stateContext.transactionIndex', 'expected an integer ≥ -1')
    return { block, txIndex: ti }
  }
  if (typeof ti === 'string' && /^0x[0-9a-fA-F]+$/.test(ti)) return { block, txIndex: Number(BigInt(ti)) }
  return r.said('stateContext.transactionIndex', 'expected an integer (-1: after the whole block)')
}

export interface TraceCallManyRequest {
  bundles: { transactions: CallInput[]; blockOverrides?: BlockOverrides }[]
  block: BlockRef
  txIndex?: number
  cfg: ParsedTraceCallConfig
}

/** debug_traceCallMany (Erigon/reth): `[bundles, stateContext?, TraceCallConfig?]` */
export function traceCallManyParams(params: unknown[], ctx: RpcContext): TraceCallManyRequest {
  arity(params, 1, 3)
  const r: ArgReader = argReader(0, GETH)
  const rawBundles = params[0]
  if (!Array.isArray(rawBundles)) r.said('bundles', 'expected an array of {transactions, blockOverride}')
  const maxCalls = ctx.config.limits.max_calls_per_simulation
  let total = 0
  const bundles = rawBundles.map((b, i) => {
    const path = `bundles[${i}]`
    if (!isObject(b)) r.said(path, 'expected {transactions, blockOverride}')
    r.onlyKeys(b, ['transactions', 'blockOverride'], path)
    if (!Array.isArray(b.transactions)) r.said(`${path}.transactions`, 'expected an array of call objects')
    total += b.transactions.length
    if (total > maxCalls) r.said('bundles', `more than ${maxCalls} transactions in all (limits.max_calls_per_simulation)`)
    const blockOverrides = parseBlockOverrides(b.blockOverride, 0, `${path}.blockOverride`)
    return {
      transactions: b.transactions.map((t, j) => parseCall(r, t, `${path}.transactions[${j}]`, DEBUG_CALL)),
      ...(blockOverrides && { blockOverrides }),
    }
  })
  const { block, txIndex } = parseStateContext(params[1], 1)
  refusePending(block)
  const cfg = parseTraceCallConfig(params[2], 2, limits(ctx))
  if (cfg.txIndex !== undefined) argReader(2, GETH).said('txIndex', 'give the transaction index in stateContext.transactionIndex')
  return { bundles, block, ...(txIndex !== undefined && { txIndex }), cfg }
}
