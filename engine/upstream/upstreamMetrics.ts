/**
 * What the upstream node was asked and how it went, counted by the RpcClient once per JSON-RPC
 * call (never per EVM step): per method, how many calls ended ok, with an error, or out of time,
 * and how long they took as histogram bucket counts. Plain numbers, summable across engines: the
 * host turns them into Prometheus metrics labelled with the chain's name (host/metrics/).
 *
 * @example
 * const m = new UpstreamMetrics()
 * m.record('eth_getBalance', 'ok', 0.012)
 * m.snapshot().eth_getBalance // { ok: 1, error: 0, timeout: 0, buckets: [0, 0, 1, ...], sum: 0.012 }
 */

/** histogram bounds of an upstream call's duration, seconds (prom-client's defaults, and 30 s) */
export const UPSTREAM_DURATION_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

export type UpstreamOutcome = 'ok' | 'error' | 'timeout'

export interface UpstreamCallCounts {
  ok: number
  error: number
  timeout: number
  /** calls per bucket (not cumulative): index i counts durations ≤ bound i and above bound i-1; the last, above every bound */
  buckets: number[]
  /** seconds, all calls together */
  sum: number
}

/** distinct method names kept apart; the engine asks a fixed set, anything past this counts as `other` */
const MAX_METHODS = 64

export class UpstreamMetrics {
  private readonly calls = new Map<string, UpstreamCallCounts>()

  record(method: string, outcome: UpstreamOutcome, seconds: number): void {
    let c = this.calls.get(method)
    if (!c) {
      const name = this.calls.size < MAX_METHODS ? method : 'other'
      c = this.calls.get(name) ?? { ok: 0, error: 0, timeout: 0, buckets: new Array<number>(UPSTREAM_DURATION_BUCKETS.length + 1).fill(0), sum: 0 }
      this.calls.set(name, c)
    }
    c[outcome]++
    c.sum += seconds
    let i = 0
    while (i < UPSTREAM_DURATION_BUCKETS.length && seconds > UPSTREAM_DURATION_BUCKETS[i]!) i++
    c.buckets[i]!++
  }

  /** a copy of the counts by method */
  snapshot(): Record<string, UpstreamCallCounts> {
    const out: Record<string, UpstreamCallCounts> = {}
    for (const [method, c] of this.calls) out[method] = { ...c, buckets: [...c.buckets] }
    return out
  }
}

/** `a` plus `b`, method by method (engines of one chain on several threads) */
export function addUpstreamCounts(a: Record<string, UpstreamCallCounts>, b: Record<string, UpstreamCallCounts>): Record<string, UpstreamCallCounts> {
  const out: Record<string, UpstreamCallCounts> = {}
  for (const [method, c] of Object.entries(a)) out[method] = { ...c, buckets: [...c.buckets] }
  for (const [method, c] of Object.entries(b)) {
    const t = out[method]
    if (!t) {
      out[method] = { ...c, buckets: [...c.buckets] }
      continue
    }
    t.ok += c.ok
    t.error += c.error
    t.timeout += c.timeout
    t.sum += c.sum
    c.buckets.forEach((n, i) => (t.buckets[i] = (t.buckets[i] ?? 0) + n))
  }
  return out
}
