/**
 * openReplay: the way into a run of a MINED transaction. The transaction is found, the state
 * after its parent block is opened, the block's start system calls (EIP-4788, EIP-2935) are
 * applied and every earlier transaction of its block is replayed on it, as geth's
 * `stateAtTransaction` does (then the caller's overrides, if any, on top) — so what follows equals debug_traceTransaction on an archive geth,
 * with no debug_* method upstream.
 *
 * @example
 * const replay = await openReplay(deps.chain, hash)
 * await executeSignedTx(replay.ctx, replay.tx.tx, { tracers, validation: true, blockGasUsed: replay.blockGasUsed })
 */
import type { Hex } from 'viem'
import type { BlockHeaderInfo, ChainSource, MinedTransaction } from '../chain/types.js'
import { EngineError, isEngineError } from '../errors.js'
import { executeSignedTx } from '../execution/executeTransaction.js'
import type { ExecutionContext } from '../execution/types.js'
import type { OverlayStateManager } from '../state/index.js'
import type { BlockOverrides, StateOverrides } from '../types.js'
import { executionContext } from './blockEnvironment.js'
import { applyStateOverrides } from './stateOverrides.js'
import { applyBlockSystemCalls } from './systemCalls.js'

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
}

/** what a caller may change on top of the state the transaction starts from (/trace/tx extras) */
export interface ReplayOverrides {
  stateOverrides?: StateOverrides
  blockOverrides?: BlockOverrides
}

export async function openReplay(chain: ChainSource, hash: Hex, overrides: ReplayOverrides = {}): Promise<OpenedReplay> {
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
  const ctx = executionContext(chain, header, state)
  await applyBlockSystemCalls(state, ctx.common, header)
  let blockGasUsed = 0n
  for (const prior of earlier) {
    try {
      const r = await executeSignedTx(ctx, prior.tx, { validation: true, blockGasUsed })
      blockGasUsed += r.gasUsed
    } catch (e) {
      // a mined transaction that does not replay means our state or rules differ from the chain's
      if (isEngineError(e) && e.code !== 'VALIDATION_ERROR' && e.code !== 'INSUFFICIENT_GAS') throw e
      throw new EngineError('INTERNAL_ERROR', `replaying transaction ${prior.hash} (index ${prior.index}) before ${hash} failed`, {
        cause: e instanceof Error ? e.message : String(e),
      })
    }
  }
  await applyStateOverrides(state, overrides.stateOverrides)
  const txCtx = overrides.blockOverrides ? executionContext(chain, header, state, overrides.blockOverrides) : ctx
  return { header, state, ctx: txCtx, tx: mined, blockGasUsed }
}
