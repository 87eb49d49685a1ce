/**
 * What every engine operation runs with: the chain source and the operator's limits. One object,
 * built once by createEngine (engine/index.ts), passed to simulate, access lists and traces alike.
 */
import type { CacheStore } from '../state/store/cacheStore.js'
import type { ChainSource } from '../chains/types.js'
import type { SourceRegistry } from '../sources/registry.js'

export interface RunDeps {
  chain: ChainSource
  /** stored simulations and token metadata */
  cache: CacheStore
  /** default and maximum gas of a call (geth's RPC gas cap) */
  gasCap: bigint
  simulationTtlSeconds: number
  /** the struct logger refuses longer traces */
  maxStructLogSteps: number
  /** the contracts whose sources are known (engine/sources/registry.ts); absent: none */
  sources?: SourceRegistry
}
