/**
 * The service's Prometheus metrics (`GET /metrics`, prom-client): the HTTP requests this process
 * answered (counted on its HTTP thread, once per request, by src/middleware/requestMetrics.ts),
 * each chain's engine, upstream, fork cache and runs (chainMetrics.ts, read when scraped), and
 * Node's process metrics (prom-client's defaults, started at the first scrape so an instance
 * nobody scrapes pays nothing for them).
 *
 * Whatever answers /metrics reports its whole instance: worker threads' counts reach it through
 * the engine's `metrics` operation (host/workers/), and with several HTTP processes `gather` asks
 * the primary for every process's metrics (host/cluster/metricsGather.ts); prom-client's
 * `AggregatorRegistry.aggregate` combines them, each metric by its own rule (counters summed, the
 * health gauges by their minimum, the head by its maximum).
 *
 * Labels are bounded: a front door, a route pattern or a known JSON-RPC method (`other` for the
 * rest), a status class, a chain's configured name. No URL, token or caller input is a label.
 *
 * @example
 * const metrics = createServiceMetrics({ chains: [{ name: 'default', engine }], sharedForks: false })
 * metrics.recordRequest('rest', '/v1/simulate', 200, 'default', 0.004)
 * const text = await metrics.exposition() // the text format, for a scraper
 */
import { AggregatorRegistry, Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { collectChainMetrics, METRIC_PREFIX, type MetricJson, type MetricsChain } from './chainMetrics.js'

export type { MetricJson, MetricsChain } from './chainMetrics.js'

/** the front doors a request comes through */
export type FrontDoor = 'rest' | 'rpc' | 'fork-rpc' | 'viewer'

/** bounds of an HTTP request's duration, seconds (prom-client's defaults, and the 30 s request timeout) */
export const HTTP_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

export interface ServiceMetrics {
  /** one HTTP request answered: its door, route or JSON-RPC method, status, chain name and duration */
  recordRequest(door: FrontDoor, route: string, status: number, chain: string, seconds: number): void
  /** this process's own metrics, in prom-client's JSON form */
  collect(): Promise<MetricJson[]>
  /** the instance's metrics in the Prometheus text format */
  exposition(): Promise<string>
  /** the exposition's Content-Type */
  readonly contentType: string
}

export interface ServiceMetricsOptions {
  /** the chains this process serves, the default one first */
  chains: MetricsChain[]
  /** forks live in Redis: every engine counts all of them */
  sharedForks: boolean
  /**
   * one of several HTTP processes: every process's metrics (this one's `collect()` among them) and
   * the primary's, each in prom-client's JSON form (host/cluster/metricsGather.ts)
   */
  gather?(): Promise<object[][]>
}

export function createServiceMetrics(opts: ServiceMetricsOptions): ServiceMetrics {
  const registry = new Registry()
  const labelNames = ['door', 'route', 'status_class', 'chain'] as const
  const requests = new Counter({
    name: `${METRIC_PREFIX}http_requests_total`,
    help: 'HTTP requests answered, by front door (rest, rpc, fork-rpc, viewer), route pattern or JSON-RPC method, status class and chain',
    labelNames,
    registers: [registry],
  })
  const duration = new Histogram({
    name: `${METRIC_PREFIX}http_request_duration_seconds`,
    help: "time from a request's arrival to its answer's headers, seconds",
    labelNames,
    buckets: HTTP_DURATION_BUCKETS,
    registers: [registry],
  })
  /** the label sets seen, each with its counter and histogram child (labels hashed once, not per request) */
  const children = new Map<string, { inc(): void; observe(v: number): void }>()
  let processMetrics = false

  async function collect(): Promise<MetricJson[]> {
    if (!processMetrics) {
      processMetrics = true
      collectDefaultMetrics({ register: registry })
    }
    const [own, chains] = await Promise.all([registry.getMetricsAsJSON(), collectChainMetrics(opts.chains, { sharedForks: opts.sharedForks })])
    return [...(own as unknown as MetricJson[]), ...chains]
  }

  return {
    recordRequest(door, route, status, chain, seconds) {
      const statusClass = status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'other'
      const key = `${door} ${route} ${statusClass} ${chain}`
      let child = children.get(key)
      if (!child) {
        const labels = { door, route, status_class: statusClass, chain }
        const c = requests.labels(labels)
        const h = duration.labels(labels)
        child = { inc: () => c.inc(), observe: (v) => h.observe(v) }
        children.set(key, child)
      }
      child.inc()
      child.observe(seconds)
    },
    collect,
    async exposition() {
      const parts = opts.gather ? await opts.gather() : [await collect()]
      return AggregatorRegistry.aggregate(parts).metrics()
    },
    contentType: registry.contentType,
  }
}
