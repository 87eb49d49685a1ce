/** The chain source of the differential tests: our JSON-RPC fork over the test's Anvil. */
import { createMemoryCacheStore } from '../../engine/cache/memoryCacheStore.js'
import { createRpcChain } from '../../engine/chain/rpcChain.js'
import type { ChainSource } from '../../engine/chain/types.js'

export function anvilChainSource(url: string): Promise<ChainSource> {
  return createRpcChain({ url, timeoutMs: 10_000, cache: createMemoryCacheStore() })
}
