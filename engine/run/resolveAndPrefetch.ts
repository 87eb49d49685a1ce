/**
 * The first step of every run on a chain: the block fixed, and the state the calls will read
 * warmed. A source that can do both in fewer round trips (the fork: block and access-list hints
 * in one batch) does; any other resolves, then prefetches.
 *
 * @example
 * const header = await resolveAndPrefetch(chain, { tag: 'latest' }, params.calls)
 */
import type { BlockSelector } from '../vocabulary.js'
import type { AlsoReads, BlockHeaderInfo, ChainSource, PrefetchCalls, SideReads } from '../chains/types.js'

export async function resolveAndPrefetch(
  chain: ChainSource,
  selector: BlockSelector,
  calls: PrefetchCalls,
  opts: { sideReads?: SideReads; also?: AlsoReads } = {},
): Promise<BlockHeaderInfo> {
  if (chain.resolveForCalls) return chain.resolveForCalls(selector, calls, opts)
  const header = await chain.resolveBlock(selector)
  await chain.prefetch?.(header.number, calls, opts.also && { also: [{ address: header.coinbase, storageKeys: [] }, ...opts.also(header)] })
  return header
}
