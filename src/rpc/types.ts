/**
 * The JSON-RPC front door's contract (POST /v1/rpc): a method is a handler from its positional
 * params to a JSON-ready result, built from the method's entry (`src/rpc/methods/table.ts`): its
 * parser reads the params (throwing RpcError -32602 naming the param), then one call into the
 * engine, and the answer shaped as geth (or the
 * execution-apis spec, or reth for `trace_*`) prints it. Like the REST routes, it never touches
 * the VM: the engine does the work and throws EngineError, which the door maps to a JSON-RPC error.
 */
import type { ServiceConfig } from '../../config/loadConfig.js'
import type { Engine, RunAt } from '../../engine/types.js'

export interface RpcContext {
  engine: Engine
  config: ServiceConfig
  /** where the request's methods run: its chain, its fork on a fork's endpoint, its stop */
  at: RunAt
}

/** `params` is the request's params array (an absent params is `[]`; a by-name object is refused by the door) */
export type RpcHandler = (params: unknown[], ctx: RpcContext) => Promise<unknown>

export type RpcMethodTable = Record<string, RpcHandler>
