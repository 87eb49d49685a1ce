/**
 * The upstream time budget of one engine call: every upstream wait the call causes — each HTTP
 * attempt, each retry and its backoff, each sequential phase (block, then hints, then state) —
 * draws from ONE deadline, so a node that accepts connections and never answers costs a request
 * at most the budget (the engine sets about 1.5 × rpc_timeout_ms), never a multiple of it.
 *
 * The budget travels with the call's async context (AsyncLocalStorage): the RpcClient reads it
 * when a JSON-RPC call is requested, so no engine function needs a new parameter. Code that
 * queues work for later (the fork cache's per-tick batch) captures it and re-enters it.
 *
 * @example
 * await withUpstreamBudget(15_000, () => simulate(deps, params)) // every upstream call inside
 *                                                                // ends by the deadline
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { EngineError } from '../errors.js'

export interface UpstreamBudget {
  /** epoch ms after which no upstream answer is waited for */
  readonly deadline: number
  /** the whole budget, ms (for the error text) */
  readonly ms: number
}

const current = new AsyncLocalStorage<UpstreamBudget>()

/** runs `fn` with a fresh budget of `ms` for every upstream call it causes */
export function withUpstreamBudget<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  return current.run({ deadline: Date.now() + ms, ms }, fn)
}

/** the budget of the running engine call; undefined outside one (start-up) */
export function currentUpstreamBudget(): UpstreamBudget | undefined {
  return current.getStore()
}

/** runs `fn` inside a budget captured earlier (or outside any, when there was none) */
export function inUpstreamBudget<T>(budget: UpstreamBudget | undefined, fn: () => T): T {
  return budget ? current.run(budget, fn) : current.exit(fn)
}

/** the budget of a request: about 1.5 × the per-attempt timeout (one attempt and half a retry) */
export function upstreamBudgetMs(rpcTimeoutMs: number): number {
  return Math.round(rpcTimeoutMs * 1.5)
}

export function upstreamOutOfTime(budget: UpstreamBudget, what: string): EngineError {
  return new EngineError(
    'STATE_ACCESS_ERROR',
    `upstream RPC did not answer within the request's upstream time budget of ${budget.ms} ms (${what})`,
    { budgetMs: budget.ms },
    'check that the upstream node is reachable and healthy',
  )
}
