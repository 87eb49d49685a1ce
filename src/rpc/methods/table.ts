/**
 * The shape every JSON-RPC method is written in, as Foundry's anvil writes its `EthRequest`
 * (one typed entry per method, aliases beside the name) and its `execute` (one line per method
 * calling a named function): an entry names the method and its aliases, the parser of its
 * positional params into typed values, and the one call into the engine with the answer's shape.
 * The parser is the only place a param is read: every -32602 comes from it, and `run` receives
 * typed values only.
 *
 * The namespace files (eth.ts, debug.ts, …) each list their entries; `methodTable` turns entries
 * into the name → handler table the door dispatches on (src/rpc/dispatch.ts), one handler per
 * entry shared by all its names, and refuses a name given twice.
 *
 * @example
 * method(['anvil_mine', 'hardhat_mine'], mineParams, (p, ctx) => dev(ctx, p).then(() => null))
 */
import type { RpcContext, RpcHandler, RpcMethodTable } from '../types.js'

export interface RpcMethod<P = unknown> {
  /** the method's name, then its aliases (the same params and the same answer) */
  readonly names: readonly [string, ...string[]]
  /** the positional params → typed values; may read the context (the config's limits, the chain's id), never change anything */
  readonly params: (params: unknown[], ctx: RpcContext) => P | Promise<P>
  /** the engine call and the answer's shape */
  readonly run: (p: P, ctx: RpcContext) => Promise<unknown>
}

/** an entry of any params' type, as a list of a namespace's entries holds it */
export interface AnyRpcMethod {
  readonly names: readonly [string, ...string[]]
  readonly params: (params: unknown[], ctx: RpcContext) => unknown
  readonly run: (p: never, ctx: RpcContext) => Promise<unknown>
}

/** an entry, its params' type inferred from its parser */
export function method<P>(names: readonly [string, ...string[]], params: RpcMethod<P>['params'], run: RpcMethod<P>['run']): RpcMethod<P> {
  return { names, params, run }
}

/** a handler that runs an entry; the entry it runs is on it, for whoever asks which entry a name has */
export type EntryHandler = RpcHandler & { readonly entry: AnyRpcMethod }

function handlerOf(entry: AnyRpcMethod): EntryHandler {
  const handler = async (params: unknown[], ctx: RpcContext) => entry.run((await entry.params(params, ctx)) as never, ctx)
  return Object.assign(handler, { entry })
}

/** entries → the dispatch table, every name and alias of an entry to its one handler */
export function methodTable(...lists: readonly (readonly AnyRpcMethod[])[]): RpcMethodTable {
  const out: Record<string, EntryHandler> = {}
  for (const entry of lists.flat()) {
    const handler = handlerOf(entry)
    for (const name of entry.names) {
      if (Object.hasOwn(out, name)) throw new Error(`JSON-RPC method ${name} is registered twice`)
      out[name] = handler
    }
  }
  return out
}

/** the entry a table runs for `name`, if any */
export function entryOf(table: RpcMethodTable, name: string): AnyRpcMethod | undefined {
  return Object.hasOwn(table, name) ? (table[name] as Partial<EntryHandler>).entry : undefined
}
