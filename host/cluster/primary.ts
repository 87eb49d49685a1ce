/**
 * Several HTTP processes on one port (`server.processes`, PROCESSES): the primary forks them with
 * node:cluster and serves nothing itself. Behind one HTTP thread (`server.workers`), engine threads
 * stop paying once that thread is busy: a warm /simulate spends about as much CPU there (Node's HTTP
 * server, JSON, the engine's own set-up) as in the EVM. One HTTP thread per process scales with the
 * cores instead (docs/performance.md, the row "throughput, all cores against in process").
 *
 * What the primary does:
 * - holds the instance's `memory://` store, so fork state and rate-limit counters are one per
 *   instance whichever process a request reaches (with Redis every process connects to it and the
 *   primary holds nothing); stored simulations stay in the process that ran them, and the primary
 *   finds one for another process by asking the others (processCacheStore.ts, siblingLookup.ts);
 * - replaces a process that dies, after a pause that grows while replacements keep dying;
 * - on SIGTERM/SIGINT asks every process to stop gracefully (finish in-flight requests), then
 *   exits 0 once all are gone. A process that loses the primary stops too (host/instance.ts).
 *
 * Connections are spread by the cluster module (round robin); a kept-alive connection stays on the
 * process that accepted it.
 */
import cluster, { type Worker } from 'node:cluster'
import type { ServiceConfig } from '../../config/loadConfig.js'
import type { CacheStore } from '../../engine/state/store/cacheStore.js'
import { createCacheStore, isSharedCacheUrl } from '../cache/createCacheStore.js'
import { answerCacheOp } from '../workers/answerCacheOp.js'
import { STOP_MESSAGE, type FromProcess, type ToProcess } from '../protocol.js'
import { isSimulationKey } from '../../engine/operations/simulation/simulationStore.js'
import type { HostLogger } from '../logger.js'
import { createSiblingLookup } from './siblingLookup.js'
import { createMetricsGather } from './metricsGather.js'

/** the environment variable that tells a forked process its index */
export const PROCESS_INDEX_ENV = 'EVMSIM_HTTP_PROCESS'

export interface PrimaryOptions {
  config: ServiceConfig
  processes: number
  /** bytes of the primary's memory store (memory:// only) */
  storeBytes: number
  logger: Pick<HostLogger, 'info' | 'warn' | 'error' | 'flush'>
}

const RESPAWN_MAX_DELAY_MS = 30_000

export async function runPrimary(opts: PrimaryOptions): Promise<void> {
  const { config, processes, logger } = opts
  // structured clone over the IPC channel: cache values are bytes, which JSON would mangle
  cluster.setupPrimary({ serialization: 'advanced' })
  const store: CacheStore | undefined = isSharedCacheUrl(config.cache.url) ? undefined : createCacheStore(config.cache.url, { memoryMaxBytes: opts.storeBytes })
  let stopping = false
  // until every process first listens, a process that exits fails the start instead
  let started = false
  const failures = new Map<number, number>()
  // a process hears messages only once its code listens for them: one still starting is asked
  // to stop when it is up
  const listening = new WeakSet<Worker>()

  const simulations = createSiblingLookup()
  // GET /metrics on any process reports every process (metricsGather.ts)
  const metrics = createMetricsGather()
  const countListening = () =>
    metrics.setListening(Object.values(cluster.workers ?? {}).filter((w) => w !== undefined && !w.isDead() && listening.has(w)).length)
  const siblingsOf = (asker: Worker): Worker[] =>
    Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && w !== asker && w.isConnected() && listening.has(w))

  const fork = (index: number): Worker => {
    const worker = cluster.fork({ [PROCESS_INDEX_ENV]: String(index) })
    // the store as this process sees it: a stored simulation is asked of the others, which keep them
    const view: CacheStore | undefined = store && {
      ...store,
      get: (key) => (isSimulationKey(key) ? simulations.find(key, siblingsOf(worker)) : store.get(key)),
    }
    worker.on('message', (msg: FromProcess) => {
      if (msg?.type === 'lookupReply') return simulations.onReply(msg)
      if (msg?.type === 'metricsCollected') return metrics.onCollected(msg)
      if (msg?.type === 'metricsAsk') {
        const live = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && listening.has(w) && w.isConnected())
        const channel = (w: Worker) => ({ send: (m: ToProcess) => void (w.isConnected() && w.send(m)) })
        return metrics.onAsk(msg, channel(worker), live.map(channel))
      }
      if (msg?.type !== 'cache' || !view) return
      void answerCacheOp(view, msg, (reply) => {
        if (worker.isConnected()) worker.send(reply satisfies ToProcess)
      })
    })
    worker.once('listening', () => {
      listening.add(worker)
      failures.set(index, 0)
      countListening()
    })
    worker.once('exit', (code, signal) => {
      countListening()
      if (stopping || !started) return
      metrics.processReplaced()
      const failed = (failures.get(index) ?? 0) + 1
      failures.set(index, failed)
      const delay = Math.min(RESPAWN_MAX_DELAY_MS, 250 * 2 ** (failed - 1))
      logger.error({ process: index, code, signal, restartInMs: delay }, 'HTTP process exited; starting a replacement')
      setTimeout(() => !stopping && fork(index), delay).unref()
    })
    return worker
  }

  // start-up: every process listening, or the whole instance fails (port taken, bad chain, ...)
  const first = Array.from({ length: processes }, (_, i) => fork(i))
  await Promise.all(
    first.map(
      (worker, index) =>
        new Promise<void>((resolve, reject) => {
          const onExit = (code: number | null) => reject(new Error(`HTTP process ${index} exited with code ${code} while starting`))
          worker.once('exit', onExit)
          worker.once('listening', () => {
            worker.off('exit', onExit)
            resolve()
          })
        }),
    ),
  ).catch((err: unknown) => {
    stopping = true
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGKILL')
    throw err
  })
  started = true
  logger.info({ processes, port: config.server.port }, 'HTTP processes listening')

  const stop = (signal: string) => {
    // a second signal while stopping: the operator wants out now
    if (stopping) {
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGKILL')
      process.exit(1)
    }
    stopping = true
    logger.info({ signal }, 'stopping: asking every HTTP process to finish its requests')
    const live = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined)
    // each process bounds its own stop by the request timeout; one that never gets there (stuck
    // starting, say) is not waited for beyond that
    const cut = setTimeout(() => live.forEach((w) => w.isDead() || w.process.kill('SIGKILL')), config.server.request_timeout_ms + 5_000)
    cut.unref()
    void Promise.all(
      live.map(
        (w) =>
          new Promise<void>((resolve) => {
            if (w.isDead()) return resolve()
            w.once('exit', () => resolve())
            if (!w.isConnected()) w.process.kill('SIGTERM')
            else if (listening.has(w)) w.send(STOP_MESSAGE satisfies ToProcess)
            else w.once('listening', () => w.send(STOP_MESSAGE satisfies ToProcess))
          }),
      ),
    ).then(async () => {
      clearTimeout(cut)
      await store?.close().catch(() => undefined)
      logger.info({}, 'stopped')
      await new Promise<void>((resolve) => logger.flush(() => resolve()))
      process.exit(0)
    })
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
}
