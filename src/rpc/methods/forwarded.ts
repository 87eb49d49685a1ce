/**
 * Every read method of the chain (the engine's allow-list, engine/operations/reads/readMethods.ts) as a
 * handler: the engine answers it — from its own state, the devnet's history, or the upstream
 * node with immutable answers cached. By-name params are refused by the door before this.
 */
import { READ_METHODS } from '../../../engine/types.js'
import type { RpcMethodTable } from '../types.js'

export const forwardedMethods: RpcMethodTable = Object.fromEntries(
  [...READ_METHODS].map((method) => [method, (params: unknown[], ctx) => ctx.engine.readChain(ctx.at, method, params)]),
) as RpcMethodTable
