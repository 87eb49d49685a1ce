/**
 * What an engine counts for the operator, as plain numbers since it started: its upstream calls
 * (engine/upstream/upstreamMetrics.ts), where its fork-state reads were answered, the highest block it
 * has seen, the writable forks open. The engine knows nothing of Prometheus, threads or chain
 * names: the host sums the counts of a chain's engines (worker threads) and labels them
 * (host/metrics/).
 */
import { addUpstreamCounts, type UpstreamCallCounts } from './upstream/upstreamMetrics.js'

export type { UpstreamCallCounts } from './upstream/upstreamMetrics.js'
export { UPSTREAM_DURATION_BUCKETS } from './upstream/upstreamMetrics.js'

/** what a chain source counts (a fork of an upstream node; the devnet counts nothing) */
export interface ChainMetrics {
  upstream: {
    /** HTTP exchanges with the node, retries included (a batch is one) */
    httpRequests: number
    /** JSON-RPC calls by method */
    calls: Record<string, UpstreamCallCounts>
  }
  /** fork-state reads by where they were answered */
  forkReads: { memory: number; store: number; upstream: number }
  /** the highest block number seen upstream (a block read, or a health probe's eth_blockNumber; 0: none yet) */
  head: number
}

export interface EngineMetrics extends Partial<ChainMetrics> {
  /** writable forks open */
  forksOpen: number
}

/** two engines' counts of one chain together; `sharedForks`: both see the same forks (Redis), so the larger count, not the sum */
export function addEngineMetrics(a: EngineMetrics, b: EngineMetrics, sharedForks: boolean): EngineMetrics {
  const out: EngineMetrics = { forksOpen: sharedForks ? Math.max(a.forksOpen, b.forksOpen) : a.forksOpen + b.forksOpen }
  if (a.upstream || b.upstream) {
    out.upstream = {
      httpRequests: (a.upstream?.httpRequests ?? 0) + (b.upstream?.httpRequests ?? 0),
      calls: addUpstreamCounts(a.upstream?.calls ?? {}, b.upstream?.calls ?? {}),
    }
  }
  if (a.forkReads || b.forkReads) {
    const x = a.forkReads ?? { memory: 0, store: 0, upstream: 0 }
    const y = b.forkReads ?? { memory: 0, store: 0, upstream: 0 }
    out.forkReads = { memory: x.memory + y.memory, store: x.store + y.store, upstream: x.upstream + y.upstream }
  }
  if (a.head !== undefined || b.head !== undefined) out.head = Math.max(a.head ?? 0, b.head ?? 0)
  return out
}
