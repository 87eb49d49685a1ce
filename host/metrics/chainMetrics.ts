/**
 * Each chain's engine counts (engine/engineMetrics.ts), how its runs stand (the pool's or the
 * in-process engine's, host/workers/) and its health, as Prometheus metrics labelled with the
 * chain's NAME — never its upstream URL, which may carry an API key. The values are built as
 * prom-client's JSON form (what `registry.getMetricsAsJSON()` gives), so they merge with the
 * process's own metrics, and with other processes', through `AggregatorRegistry.aggregate`; each
 * metric names how it is combined across processes (`aggregator`).
 *
 * Collected when scraped, not as requests run: the engines count plain numbers meanwhile.
 */
import { UPSTREAM_DURATION_BUCKETS, type EngineMetrics, type UpstreamCallCounts } from '../../engine/engineMetrics.js'
import { type Engine, type EngineHealth, ON_CHAIN } from '../../engine/types.js'
import type { EngineRuns } from '../workers/workerPool.js'

/** prom-client's JSON form of one metric */
export interface MetricJson {
  name: string
  help: string
  type: 'counter' | 'gauge' | 'histogram'
  aggregator: 'sum' | 'max' | 'min' | 'first' | 'average' | 'omit'
  values: { value: number; labels: Record<string, string | number>; metricName?: string }[]
}

/** a chain served by this process: its name (`default` for the unprefixed one) and its engine */
export interface MetricsChain {
  name: string
  engine: Engine & { runs?(): EngineRuns }
}

export const METRIC_PREFIX = 'evmsim_'

/** what one chain answered when scraped */
interface ChainReading {
  name: string
  runs?: EngineRuns
  metrics?: EngineMetrics
  health?: EngineHealth
}

/**
 * Every chain's metrics. `sharedForks`: forks live in Redis, so every process and worker counts
 * all of them (combined by max, not summed).
 */
export async function collectChainMetrics(chains: MetricsChain[], opts: { sharedForks: boolean }): Promise<MetricJson[]> {
  const readings = await Promise.all(chains.map(readChain))
  return [...healthMetrics(readings), ...upstreamMetrics(readings), ...forkStateMetrics(readings, opts.sharedForks), ...runMetrics(readings)]
}

async function readChain({ name, engine }: MetricsChain): Promise<ChainReading> {
  // how the runs stand before asking the engines anything (the questions are runs of a kind)
  const runs = engine.runs?.()
  // the health probe first: the head it reads is then in the counts
  const health = await engine.health(ON_CHAIN).catch(() => undefined)
  const metrics = await engine.metrics().catch(() => undefined)
  return { name, runs, metrics, health }
}

const p = METRIC_PREFIX

const counter = (name: string, help: string, values: MetricJson['values']): MetricJson => ({
  name: p + name,
  help,
  type: 'counter',
  aggregator: 'sum',
  values,
})

const gauge = (name: string, help: string, aggregator: MetricJson['aggregator'], values: MetricJson['values']): MetricJson => ({
  name: p + name,
  help,
  type: 'gauge',
  aggregator,
  values,
})

/** the values of every chain that has the reading `pick` reads, labelled with the chain's name */
function each<T>(readings: ChainReading[], pick: (r: ChainReading) => T | undefined, values: (chain: string, v: T) => MetricJson['values']) {
  return readings.flatMap((r) => {
    const v = pick(r)
    return v === undefined ? [] : values(r.name, v)
  })
}

function healthMetrics(readings: ChainReading[]): MetricJson[] {
  return [
    gauge(
      'upstream_up',
      "1 when the chain's upstream (or the embedded devnet) answered a health probe at this scrape, else 0",
      'min',
      each(
        readings,
        (r) => r,
        (chain, r) => [{ labels: { chain }, value: r.health?.upstreamOk ? 1 : 0 }],
      ),
    ),
    gauge(
      'cache_store_up',
      '1 when the cache store (memory, or Redis) answered at this scrape, else 0',
      'min',
      readings[0]?.health ? [{ labels: {}, value: readings[0].health.cacheOk ? 1 : 0 }] : [],
    ),
  ]
}

function upstreamMetrics(readings: ChainReading[]): MetricJson[] {
  return [
    counter(
      'upstream_requests_total',
      'JSON-RPC calls to the upstream node, by method and outcome (ok, error, timeout)',
      each(
        readings,
        (r) => r.metrics?.upstream?.calls,
        (chain, calls) =>
          Object.entries(calls).flatMap(([method, c]) =>
            (['ok', 'error', 'timeout'] as const).map((outcome) => ({ labels: { chain, method, outcome }, value: c[outcome] })),
          ),
      ),
    ),
    {
      name: `${p}upstream_request_duration_seconds`,
      help: "time from asking the upstream for a JSON-RPC call to its outcome, seconds (a batch's calls each count)",
      type: 'histogram',
      aggregator: 'sum',
      values: each(
        readings,
        (r) => r.metrics?.upstream?.calls,
        (chain, calls) => Object.entries(calls).flatMap(([method, c]) => durationValues(chain, method, c)),
      ),
    },
    counter(
      'upstream_http_requests_total',
      'HTTP requests to the upstream node, retries included (a JSON-RPC batch is one)',
      each(
        readings,
        (r) => r.metrics?.upstream,
        (chain, u) => [{ labels: { chain }, value: u.httpRequests }],
      ),
    ),
    gauge(
      'chain_head_block',
      "the highest block number seen on the chain's upstream (by a request, or the health probe of a scrape)",
      'max',
      each(
        readings,
        (r) => r.metrics?.head,
        (chain, head) => [{ labels: { chain }, value: head }],
      ),
    ),
  ]
}

/** one method's histogram of upstream call durations: its cumulative buckets, sum and count */
function durationValues(chain: string, method: string, c: UpstreamCallCounts): MetricJson['values'] {
  const out: MetricJson['values'] = []
  let cumulative = 0
  UPSTREAM_DURATION_BUCKETS.forEach((le, i) => {
    cumulative += c.buckets[i] ?? 0
    out.push({ metricName: `${p}upstream_request_duration_seconds_bucket`, labels: { le, chain, method }, value: cumulative })
  })
  const count = c.ok + c.error + c.timeout
  out.push({ metricName: `${p}upstream_request_duration_seconds_bucket`, labels: { le: '+Inf', chain, method }, value: count })
  out.push({ metricName: `${p}upstream_request_duration_seconds_sum`, labels: { chain, method }, value: c.sum })
  out.push({ metricName: `${p}upstream_request_duration_seconds_count`, labels: { chain, method }, value: count })
  return out
}

function forkStateMetrics(readings: ChainReading[], sharedForks: boolean): MetricJson[] {
  return [
    counter(
      'fork_cache_hits_total',
      'fork-state reads answered without the upstream: from memory (or a read of the same key on its way) or from the cache store',
      each(
        readings,
        (r) => r.metrics?.forkReads,
        (chain, f) => [
          { labels: { chain, level: 'memory' }, value: f.memory },
          { labels: { chain, level: 'store' }, value: f.store },
        ],
      ),
    ),
    counter(
      'fork_cache_misses_total',
      'fork-state reads (an account, a slot, code) asked of the upstream',
      each(
        readings,
        (r) => r.metrics?.forkReads,
        (chain, f) => [{ labels: { chain }, value: f.upstream }],
      ),
    ),
    gauge(
      'forks_open',
      'writable forks open',
      sharedForks ? 'max' : 'sum',
      each(
        readings,
        (r) => r.metrics?.forksOpen,
        (chain, n) => [{ labels: { chain }, value: n }],
      ),
    ),
  ]
}

function runMetrics(readings: ChainReading[]): MetricJson[] {
  const runGauge = (name: string, help: string, value: (runs: EngineRuns) => number) =>
    gauge(
      name,
      help,
      'sum',
      each(
        readings,
        (r) => r.runs,
        (chain, runs) => [{ labels: { chain }, value: value(runs) }],
      ),
    )
  return [
    runGauge('engine_runs_queued', 'engine calls waiting for a worker thread', (runs) => runs.queued),
    runGauge('engine_runs_in_flight', 'engine calls running', (runs) => runs.inFlight),
    runGauge('engines_ready', 'engines ready to run (worker threads, or 1 in process)', (runs) => runs.engines),
    counter(
      'engine_worker_replacements_total',
      'worker threads replaced: died (crash, out of heap) or stopped at the request timeout',
      each(
        readings,
        (r) => r.runs,
        (chain, runs) => [
          { labels: { chain, reason: 'crash' }, value: runs.replacements.crash },
          { labels: { chain, reason: 'timeout' }, value: runs.replacements.timeout },
        ],
      ),
    ),
  ]
}
