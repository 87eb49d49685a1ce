/**
 * The method table of POST /v1/rpc, assembled in one place: the engine-served eth_ methods, the
 * forwarded reads, and each namespace's own table (debug_*, eth_simulateV1, trace_*,
 * alchemy_simulateAssetChanges join here).
 * A name in two tables is a bug: the assembly throws at start-up rather than pick one silently.
 */
import type { RpcMethodTable } from '../types.js'
import { alchemyMethods } from './alchemy.js'
import { debugMethods } from './debug.js'
import { ethMethods } from './eth.js'
import { forwardedMethods } from './forwarded.js'
import { simulateV1Methods } from './simulateV1.js'
import { traceMethods } from './trace.js'

export { isRefused, refusal } from './refused.js'

export function assembleMethods(...tables: RpcMethodTable[]): RpcMethodTable {
  const out: RpcMethodTable = {}
  for (const table of tables) {
    for (const [name, handler] of Object.entries(table)) {
      if (name in out) throw new Error(`JSON-RPC method ${name} is registered twice`)
      out[name] = handler
    }
  }
  return out
}

export const rpcMethods: RpcMethodTable = assembleMethods(forwardedMethods, ethMethods, debugMethods, simulateV1Methods, traceMethods, alchemyMethods)
