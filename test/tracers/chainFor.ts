/**
 * The chain source of the differential tests: our JSON-RPC fork over the test's Anvil. `latest` is
 * resolved on every request (`headMaxAgeMs: 0`): the tests trace at `latest` on both sides right
 * after mining, and a tracked head up to a second old would run ours a block behind Anvil's (head
 * tracking has its own tests).
 */
import { createMemoryCacheStore } from '../../host/cache/memoryCacheStore.js'
import { createRpcChain } from '../../engine/chains/remote/rpcChain.js'
import type { ChainSource } from '../../engine/chains/types.js'

export function anvilChainSource(url: string): Promise<ChainSource> {
  return createRpcChain({ url, timeoutMs: 10_000, cache: createMemoryCacheStore(), headMaxAgeMs: 0 })
}
