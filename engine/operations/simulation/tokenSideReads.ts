/**
 * Token metadata read ahead. A simulation's log summaries need `symbol()` and `decimals()` of every
 * token that emitted a Transfer, read after the run; on a cold fork those reads reach storage
 * nothing has fetched (the symbol's slots), which cost one more round trip after the run. The
 * access-list hints name every contract whose storage the calls touch — every token they move
 * included — so both calls are asked of the upstream for those contracts at the block, in the
 * cold run's state batch, and their answers kept where the metadata reader of the same scope
 * (`${chainId}:${block}`, simulate.ts) looks first. A cold two-hop swap then costs 2 round trips.
 * Tokens whose metadata that scope keeps already are not asked again: a new route over them at a
 * block whose state is held would otherwise send these reads in a round trip of their own.
 *
 * An answer the node gives as a revert is "no such method" (a pool, a router); any other failure
 * keeps nothing, and the reader reads that token itself after the run.
 */
import { toHex, type Address, type Hex } from 'viem'
import type { CacheStore } from '../../state/store/cacheStore.js'
import type { SideReads } from '../../chains/types.js'
import { keptTokenInfo, rememberTokenInfo, tokenInfoOf, TOKEN_INFO_SELECTORS } from '../../decoding/index.js'
import { isEngineError } from '../../platform/errors.js'

/** a call touching more contracts than this (a big multicall) reads the rest after the run */
const MAX_TOKENS_AHEAD = 16

export function tokenMetadataSideReads(store: CacheStore, chainId: number, senders: Address[]): SideReads {
  const skip = new Set(senders.map((a) => a.toLowerCase()))
  return async (block, hints) => {
    const contracts = new Set<Address>()
    for (const list of hints)
      for (const e of list ?? []) {
        const address = e.address.toLowerCase() as Address
        if (e.storageKeys.length > 0 && !skip.has(address) && contracts.size < MAX_TOKENS_AHEAD) contracts.add(address)
      }
    const cache = { store, scope: tokenScope(chainId, block) }
    // metadata kept at this block already (the same tokens on another route) is not asked again
    const kept = await keptTokenInfo(cache, [...contracts])
    const tokens = [...contracts].filter((_, i) => !kept[i])
    if (tokens.length === 0) return undefined
    const tag = toHex(block)
    return (ask) =>
      Promise.all(
        tokens.map(async (token) => {
          const read = (data: Hex) =>
            (ask('eth_call', [{ to: token, data }, tag]) as Promise<Hex>).then(
              (out) => ({ out }),
              (e: unknown) => (reverted(e) ? { out: undefined } : undefined),
            )
          const [symbol, decimals, name] = await Promise.all([
            read(TOKEN_INFO_SELECTORS.symbol),
            read(TOKEN_INFO_SELECTORS.decimals),
            read(TOKEN_INFO_SELECTORS.name),
          ])
          if (symbol && decimals && name) await rememberTokenInfo(cache, token, tokenInfoOf(symbol.out, decimals.out, name.out))
        }),
      ).then(() => undefined)
  }
}

/** the scope of metadata read on the block's own code (simulate.ts shares it only then) */
export const tokenScope = (chainId: number, block: bigint) => `${chainId}:${block}`

/** the node ran the call and it reverted: the contract has no such method */
function reverted(e: unknown): boolean {
  if (!isEngineError(e)) return false
  const d = e.details as { rpcCode?: unknown; rpcMessage?: unknown } | undefined
  return d?.rpcCode === 3 || (typeof d?.rpcMessage === 'string' && /revert/i.test(d.rpcMessage))
}
