/**
 * openBlock: the way into a run INSIDE a mined block — the state after its parent, the block's
 * start system calls (EIP-4788, EIP-2935) applied, its header as the execution context, and its
 * transactions. `replayUpTo` then applies the first N transactions untraced, as geth's
 * `stateAtTransaction` does, keeping the two running counts a later transaction depends on: the
 * block gas used (block gas limit check) and the logs emitted (geth's block-wide log counter,
 * which numbers a traced transaction's logs from the block start).
 *
 * Used by openReplay (one mined transaction), the block trace (every transaction in turn) and
 * calls at a transaction index (debug_traceCall `txIndex`, debug_traceCallMany `stateContext`).
 *
 * @example
 * const block = await openBlock(chain, header)
 * const progress = await replayUpTo(block, 3) // state before the block's 4th transaction
 */
import type { Hex } from 'viem'
import type { BlockHeaderInfo, ChainSource, MinedTransaction } from '../chains/types.js'
import { EngineError, isEngineError } from '../platform/errors.js'
import { executeSignedTx } from '../execution/executeTransaction.js'
import type { ExecutionContext, ExecutionResult } from '../execution/types.js'
import type { OverlayStateManager } from '../state/index.js'
import { stateBlock, type BlockRef } from '../platform/blockRef.js'
import { executionContext } from './blockEnvironment.js'
import { applyBlockSystemCalls, systemCallReads } from './systemCalls.js'

export interface OpenedBlock {
  header: BlockHeaderInfo
  /** the state the block's first transaction starts from (system calls applied) */
  state: OverlayStateManager
  ctx: ExecutionContext
  /** the block's transactions, in order */
  transactions: MinedTransaction[]
}

/** where a replay of a block's transactions stands: what the next transaction starts with */
export interface BlockProgress {
  /** transactions applied */
  applied: number
  blockGasUsed: bigint
  /** logs emitted so far in the block: the next transaction's first log index */
  logCount: number
}

export const blockStart = (): BlockProgress => ({ applied: 0, blockGasUsed: 0n, logCount: 0 })

/**
 * A block named by number, tag or hash → its header; geth's errors when it does not exist. The one
 * place a block hash is resolved. geth words a missing hash two ways: `block 0x… not found` (the
 * debug_* tracers, the default) and `header for hash not found` (eth_call and the state reads).
 */
export async function resolveBlockRef(chain: ChainSource, ref: BlockRef, notFound?: string): Promise<BlockHeaderInfo> {
  if ('hash' in ref) {
    const header = await chain.headerByHash(ref.hash.toLowerCase() as Hex)
    if (!header) throw new EngineError('BLOCK_NOT_FOUND', notFound ?? `block ${ref.hash} not found`, { blockHash: ref.hash })
    return header
  }
  return chain.resolveBlock(stateBlock(ref))
}

/**
 * `transactions`: the block's, when the caller already holds them; `prefetchUpTo`: how many of
 * them the run will execute (a fork warms their state in one batch).
 */
export async function openBlock(
  chain: ChainSource,
  header: BlockHeaderInfo,
  opts: { transactions?: MinedTransaction[]; prefetchUpTo?: number } = {},
): Promise<OpenedBlock> {
  if (header.number === 0n) throw new EngineError('VALIDATION_ERROR', 'genesis is not traceable', { blockNumber: '0x0' })
  const [state, fetched] = await Promise.all([
    chain.stateAfter(header.number - 1n),
    opts.transactions ? Promise.resolve(opts.transactions) : chain.getBlockTransactions(header.number),
  ])
  const transactions = [...fetched].sort((a, b) => a.index - b.index)
  const warm = transactions.slice(0, opts.prefetchUpTo ?? transactions.length)
  if (warm.length > 0) {
    await chain.prefetch?.(
      header.number - 1n,
      warm.map((t) => ({
        from: t.from,
        to: t.tx.to ? (t.tx.to.toString() as Hex) : null,
        data: `0x${Buffer.from(t.tx.data).toString('hex')}` as Hex,
        value: t.tx.value,
        // the block's fee recipient and start-of-block system calls are read too: in the same batch
      })),
      { also: [{ address: header.coinbase, storageKeys: [] }, ...systemCallReads(header)] },
    )
  }
  const ctx = executionContext(chain, header, state)
  await applyBlockSystemCalls(state, ctx.common, header)
  return { header, state, ctx, transactions }
}

/** counts a transaction that ran into the block's running totals */
export function advance(progress: BlockProgress, result: ExecutionResult): BlockProgress {
  return { applied: progress.applied + 1, blockGasUsed: progress.blockGasUsed + result.gasUsed, logCount: progress.logCount + result.logs.length }
}

/**
 * Applies the block's transactions from `from.applied` up to (not including) index `upTo`,
 * untraced. A mined transaction that does not replay means our state or rules differ from the
 * chain's: INTERNAL_ERROR naming it.
 */
export async function replayUpTo(block: OpenedBlock, upTo: number, from: BlockProgress = blockStart()): Promise<BlockProgress> {
  let progress = from
  for (const prior of block.transactions.slice(from.applied, upTo)) {
    try {
      progress = advance(progress, await executeSignedTx(block.ctx, prior.tx, { validation: true, blockGasUsed: progress.blockGasUsed }))
    } catch (e) {
      if (isEngineError(e) && e.code !== 'VALIDATION_ERROR' && e.code !== 'INSUFFICIENT_GAS') throw e
      throw new EngineError('INTERNAL_ERROR', `replaying transaction ${prior.hash} (index ${prior.index}) of block ${block.header.number} failed`, {
        cause: e instanceof Error ? e.message : String(e),
      })
    }
  }
  return progress
}
