/**
 * The upstream time budget of one engine call: every upstream wait the call causes — each HTTP
 * attempt, each retry and its backoff, each sequential phase (block, then hints, then state) —
 * draws from ONE deadline, so a node that accepts connections and never answers costs a request
 * at most the budget (the engine sets about 1.5 × rpc_timeout_ms), never a multiple of it.
 *
 * The budget travels explicitly: the engine gives each call its own view of the chain
 * (`ChainSource.withBudget`), whose transport, state reads and hints carry the budget to the
 * RpcClient; a read queued for a later batch keeps the budget of the request that asked. (An
 * AsyncLocalStorage would carry it implicitly, but on Node 20 it hooks every promise of the
 * process: a tenth of a warm simulation's CPU.)
 *
 * @example
 * const chain = baseChain.withBudget?.(newUpstreamBudget(15_000)) ?? baseChain
 * await simulate({ ...deps, chain }, params) // every upstream call inside ends by the deadline
 *
 * The budget also says when its call waits on the upstream (`waits`): the RpcClient counts each
 * request of the call from when it is queued until it is answered, failed or out of time, and
 * the call's observer (RunStop.onUpstreamWait) hears when that count leaves and returns to zero.
 * A call waiting on a read another call already asked for (the fork cache shares reads in
 * flight) is not counted as waiting.
 */
import { EngineError } from '../platform/errors.js'

export interface UpstreamBudget {
  /** epoch ms after which no upstream answer is waited for */
  readonly deadline: number
  /** the whole budget, ms (for the error text) */
  readonly ms: number
  /** the call's upstream requests not yet answered, counted for its observer (none: not counted) */
  readonly waits?: UpstreamWaits
}

/** the upstream requests of one call in flight: `begin` when one is queued, `end` once it is settled */
export interface UpstreamWaits {
  begin(): void
  end(): void
}

/** a budget of `ms` from now; with `onWait`, told when the call starts and stops waiting on the upstream */
export function newUpstreamBudget(ms: number, onWait?: (waiting: boolean) => void): UpstreamBudget {
  return { deadline: Date.now() + ms, ms, ...(onWait && { waits: upstreamWaits(onWait) }) }
}

function upstreamWaits(onWait: (waiting: boolean) => void): UpstreamWaits {
  let open = 0
  // an observer that throws must not break the request that told it
  const tell = (waiting: boolean) => {
    try {
      onWait(waiting)
    } catch {
      // the observer's failure is its own
    }
  }
  return {
    begin() {
      if (open++ === 0) tell(true)
    },
    end() {
      if (open > 0 && --open === 0) tell(false)
    },
  }
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
