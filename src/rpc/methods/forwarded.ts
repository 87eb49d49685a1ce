/**
 * Every read method of the chain (the engine's allow-list, engine/operations/reads/readMethods.ts)
 * as an entry: the engine answers it — from its own state, the devnet's history, or the upstream
 * node with immutable answers cached. By-name params are refused by the door before this.
 */
import { READ_METHODS } from '../../../engine/types.js'
import { type AnyRpcMethod, method } from './table.js'

export const READ_ENTRIES: readonly AnyRpcMethod[] = [...READ_METHODS].map((name) =>
  method(
    [name],
    (params) => params,
    (params, ctx) => ctx.engine.readChain(name, params),
  ),
)
