/**
 * The instance's metrics when several HTTP processes serve: the process a scrape reaches asks the
 * primary (`metricsAsk`), the primary asks every live process for its own metrics at once
 * (`metricsCollect`, each answering with prom-client's JSON form) and answers the asker with all
 * of them plus its own (`metricsGathered`); the asker combines them with prom-client's
 * `AggregatorRegistry.aggregate` (host/metrics/serviceMetrics.ts). A process that does not answer
 * within `timeoutMs` (busy with a long in-process run) is left out of that scrape; if the primary
 * does not answer at all, the asker reports its own metrics alone.
 *
 * The primary keeps a few metrics of its own: Node's process metrics (from the first scrape on),
 * the HTTP processes listening and those it replaced.
 */
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client'
import type { MetricsAsk, MetricsCollect, MetricsCollected, MetricsGathered, ToProcess } from '../protocol.js'
import { METRIC_PREFIX, type MetricJson } from '../metrics/chainMetrics.js'

export interface MetricsProcess {
  send(msg: MetricsCollect | MetricsGathered): void
}

export interface MetricsGather {
  /** `asker` asked: every process in `processes` is asked for its metrics, and the asker answered */
  onAsk(msg: MetricsAsk, asker: MetricsProcess, processes: MetricsProcess[]): void
  /** feed every process's `metricsCollected` here */
  onCollected(msg: MetricsCollected): void
  /** an HTTP process died and was replaced */
  processReplaced(): void
  /** HTTP processes listening now */
  setListening(n: number): void
}

export function createMetricsGather(opts: { timeoutMs?: number } = {}): MetricsGather {
  const timeoutMs = opts.timeoutMs ?? 3_000
  const registry = new Registry()
  // Node's process metrics from the first scrape on: an instance nobody scrapes pays nothing for them
  let processMetrics = false
  const replaced = new Counter({
    name: `${METRIC_PREFIX}http_process_replacements_total`,
    help: 'HTTP processes that died and were replaced',
    registers: [registry],
  })
  const listening = new Gauge({ name: `${METRIC_PREFIX}http_processes`, help: 'HTTP processes listening', registers: [registry], aggregator: 'max' })
  let nextId = 0
  const pending = new Map<number, (metrics: object[]) => void>()

  return {
    onAsk(ask, asker, processes) {
      if (!processMetrics) {
        processMetrics = true
        collectDefaultMetrics({ register: registry })
      }
      const id = ++nextId
      const parts: object[][] = []
      let waiting = processes.length
      let answered = false
      const answer = async () => {
        if (answered) return
        answered = true
        clearTimeout(timer)
        pending.delete(id)
        parts.push(await registry.getMetricsAsJSON())
        asker.send({ type: 'metricsGathered', id: ask.id, parts })
      }
      const timer = setTimeout(() => void answer(), timeoutMs)
      pending.set(id, (metrics) => {
        parts.push(metrics)
        if (--waiting === 0) void answer()
      })
      const msg: MetricsCollect = { type: 'metricsCollect', id }
      for (const p of processes) p.send(msg)
      if (processes.length === 0) void answer()
    },
    onCollected(msg) {
      pending.get(msg.id)?.(msg.metrics)
    },
    processReplaced: () => replaced.inc(),
    setListening: (n) => listening.set(n),
  }
}

/** the HTTP process's channel to the primary (process itself; a stand-in in tests) */
export interface MetricsChannel {
  send(msg: MetricsAsk | MetricsCollected): void
  onMessage(listener: (msg: ToProcess) => void): void
}

const processChannel = (): MetricsChannel => ({
  send: (msg) => process.send?.(msg),
  onMessage: (listener) => void process.on('message', listener),
})

/**
 * An HTTP process's side: answers the primary's `metricsCollect` with `own()`, and gathers the
 * instance's metrics through the primary (its own alone when the primary does not answer).
 */
export function metricsThroughPrimary(
  own: () => Promise<MetricJson[]>,
  opts: { channel?: MetricsChannel; timeoutMs?: number } = {},
): () => Promise<object[][]> {
  const channel = opts.channel ?? processChannel()
  const timeoutMs = opts.timeoutMs ?? 5_000
  let nextId = 0
  const pending = new Map<number, (parts: object[][]) => void>()
  channel.onMessage((msg) => {
    if (msg?.type === 'metricsCollect') {
      void own()
        .catch(() => [])
        .then((metrics) => channel.send({ type: 'metricsCollected', id: msg.id, metrics }))
    } else if (msg?.type === 'metricsGathered') pending.get(msg.id)?.(msg.parts)
  })
  return () => {
    const id = ++nextId
    return new Promise<object[][]>((resolve) => {
      const timer = setTimeout(() => {
        pending.delete(id)
        void own().then((m) => resolve([m]))
      }, timeoutMs)
      pending.set(id, (parts) => {
        clearTimeout(timer)
        pending.delete(id)
        resolve(parts)
      })
      channel.send({ type: 'metricsAsk', id })
    })
  }
}
