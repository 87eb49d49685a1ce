/**
 * The JSON-RPC methods, one table of entries (src/rpc/methods/table.ts: names and aliases, the
 * params parser, the engine call), listed by namespace: the chain reads, the eth_ methods the
 * engine runs, debug_*, eth_simulateV1, trace_*, alchemy_simulateAssetChanges, and on a writable
 * fork the development methods (dev.ts), which take the place of a chain method of the same name.
 * A name given twice is a bug: building the table throws at start-up rather than pick one silently.
 */
import type { RpcMethodTable } from '../types.js'
import { ALCHEMY_METHODS } from './alchemy.js'
import { DEBUG_METHODS } from './debug.js'
import { DEV_METHODS } from './dev.js'
import { ETH_METHODS } from './eth.js'
import { READ_ENTRIES } from './forwarded.js'
import { SIMULATE_V1_METHODS } from './simulateV1.js'
import { type AnyRpcMethod, methodTable } from './table.js'
import { TRACE_METHODS } from './trace.js'

export { isRefused, refusal } from './refused.js'

/** what POST /v1/rpc answers */
export const RPC_METHODS: readonly AnyRpcMethod[] = [
  ...READ_ENTRIES,
  ...ETH_METHODS,
  ...DEBUG_METHODS,
  ...SIMULATE_V1_METHODS,
  ...TRACE_METHODS,
  ...ALCHEMY_METHODS,
]

const devNames = new Set(DEV_METHODS.flatMap((m) => m.names))

/** what POST /v1/forks/{forkId}/rpc answers: the development methods, and every other method of /v1/rpc on the fork's chain */
export const FORK_METHODS: readonly AnyRpcMethod[] = [...DEV_METHODS, ...RPC_METHODS.filter((m) => !m.names.some((n) => devNames.has(n)))]

export const rpcMethods: RpcMethodTable = methodTable(RPC_METHODS)
export const forkMethods: RpcMethodTable = methodTable(FORK_METHODS)
