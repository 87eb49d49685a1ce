/**
 * openReplay: the way into a run of a MINED transaction. The transaction is found, its block
 * opened (engine/run/openBlock.ts: state after the parent, start system calls) and every earlier
 * transaction of the block replayed on it, as geth's `stateAtTransaction` does (then the caller's
 * overrides, if any, on top) — so what follows equals debug_traceTransaction on an archive geth,
 * with no debug_* method upstream.
 *
 * @example
 * const replay = await openReplay(deps.chain, hash)
 * await executeSignedTx(replay.ctx, replay.tx.tx, { tracers, validation: true, blockGasUsed: replay.blockGasUsed, logIndexBase: replay.logIndexBase })
 */
import type { Hex } from 'viem'
import type { BlockHeaderInfo, ChainSource, MinedTransaction } from '../chains/types.js'
import { EngineError } from '../platform/errors.js'
import type { ExecutionContext } from '../execution/types.js'
import type { OverlayStateManager } from '../state/index.js'
import type { BlockOverrides, StateOverrides } from '../vocabulary.js'
import { executionContext } from './blockEnvironment.js'
import { openBlock, replayUpTo } from './openBlock.js'
import type { NamedOverrideSources } from './namedOverrides.js'
import { applyStateOverrides } from './stateOverrides.js'

export interface OpenedReplay {
  /** the transaction's own block */
  header: BlockHeaderInfo
  /** the state the transaction starts from (overrides applied) */
  state: OverlayStateManager
  /** the block's context (block overrides applied) */
  ctx: ExecutionContext
  tx: MinedTransaction
  /** gas the earlier transactions of the block used (for the block gas limit check) */
  blockGasUsed: bigint
  /** logs the earlier transactions emitted: the traced transaction's first log index (geth) */
  logIndexBase: number
}

/** what a caller may change on top of the state the transaction starts from (/trace/tx extras) */
export interface ReplayOverrides {
  stateOverrides?: StateOverrides
  blockOverrides?: BlockOverrides
  /** the known sources: the layouts of variables overridden by name */
  sources?: NamedOverrideSources['registry']
}

export async function openReplay(chain: ChainSource, hash: Hex, overrides: ReplayOverrides = {}): Promise<OpenedReplay> {
  const mined = await chain.getTransaction(hash)
  if (!mined) {
    throw new EngineError(
      'TRANSACTION_NOT_FOUND',
      `transaction ${hash} was not found (unknown, or not mined yet)`,
      { transactionHash: hash },
      'check the hash and that the service is connected to the chain the transaction was mined on',
    )
  }
  const header = await chain.resolveBlock({ number: mined.blockNumber })
  if (header.number === 0n) {
    throw new EngineError('VALIDATION_ERROR', 'genesis is not traceable', { transactionHash: hash })
  }
  const block = await openBlock(chain, header, { prefetchUpTo: mined.index + 1 })
  const progress = await replayUpTo(block, block.transactions.filter((t) => t.index < mined.index).length)
  await applyStateOverrides(block.state, overrides.stateOverrides, { registry: overrides.sources, chainId: chain.chainId })
  const ctx = overrides.blockOverrides ? executionContext(chain, header, block.state, overrides.blockOverrides) : block.ctx
  return { header, state: block.state, ctx, tx: mined, blockGasUsed: progress.blockGasUsed, logIndexBase: progress.logCount }
}
