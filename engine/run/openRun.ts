/**
 * openRun: the one way into a run of calls. It fixes the block (a fork reads the calls' state
 * ahead in the same round trip), opens a fresh per-request state after that block, writes the
 * state overrides into it and builds the execution context with the block overrides applied
 * (geth eth_call / debug_traceCall semantics: header of block N over the state after block N).
 *
 * `pending` runs on `latest` (engine/platform/blockRef.ts `stateBlock`; geth refuses to trace at pending,
 * interface §8 lists the tag as valid). A block named by hash is turned into its number here, once
 * (geth eth_call's words when there is none), so the fork resolves and prefetches by number.
 *
 * @example
 * const { header, state, ctx } = await openRun(deps.chain, { block, calls, stateOverrides, blockOverrides })
 * const res = await executeCall(ctx, withCallDefaults('trace', call, { blockGasLimit: ctx.block.gasLimit, gasCap }))
 */
import type { AlsoReads, BlockHeaderInfo, ChainSource, PrefetchCalls, SideReads } from '../chains/types.js'
import type { ExecutionContext } from '../execution/types.js'
import type { OverlayStateManager } from '../state/index.js'
import { stateBlock, type BlockRef, type BlockSelector } from '../platform/blockRef.js'
import type { BlockOverrides, StateOverrides } from '../vocabulary.js'
import { executionContext } from './blockEnvironment.js'
import { resolveBlockRef } from './openBlock.js'
import { resolveAndPrefetch } from './resolveAndPrefetch.js'
import type { NamedOverrideSources } from './namedOverrides.js'
import { applyStateOverrides } from './stateOverrides.js'

export interface RunRequest {
  /** default `latest` */
  block?: BlockRef
  /** the calls the run will make: a fork warms their state while it resolves the block */
  calls: PrefetchCalls
  stateOverrides?: StateOverrides
  blockOverrides?: BlockOverrides
  /** what the run will read after it ran, asked ahead with a cold fork's state batch */
  sideReads?: SideReads
  /** accounts and slots the run reads besides the calls', read with their state */
  also?: AlsoReads
  /** the known sources: the layouts of variables overridden by name */
  sources?: NamedOverrideSources['registry']
}

export interface OpenedRun {
  /** the resolved block, before block overrides */
  header: BlockHeaderInfo
  /** the run's own state (overrides applied); its writes vanish with the request */
  state: OverlayStateManager
  ctx: ExecutionContext
}

export async function openRun(chain: ChainSource, req: RunRequest): Promise<OpenedRun> {
  const header = await resolveAndPrefetch(chain, await byNumber(chain, req.block), req.calls, { sideReads: req.sideReads, also: req.also })
  const state = await chain.stateAfter(header.number)
  await applyStateOverrides(state, req.stateOverrides, { registry: req.sources, chainId: chain.chainId })
  return { header, state, ctx: executionContext(chain, header, state, req.blockOverrides) }
}

/** the block to resolve and prefetch at: a tag or a number, a hash made a number */
async function byNumber(chain: ChainSource, block: BlockRef | undefined): Promise<BlockSelector> {
  const at = stateBlock(block)
  return 'hash' in at ? { number: (await resolveBlockRef(chain, at, 'header for hash not found')).number } : at
}
