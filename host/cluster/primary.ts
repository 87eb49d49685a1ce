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
 * - on SIGTERM/SIGINT forwards the drain: asks every process to stop gracefully (readiness 503,
 *   finish in-flight requests within `server.shutdown_grace_ms`), then exits 0 once all are gone;
 *   a second signal is forwarded too. A process that loses the primary stops too (host/instance.ts).
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
  // structured clone over the IPC channel: cache values are bytes, which JSON would mangle
  cluster.setupPrimary({ serialization: 'advanced' })
  const primary: Primary = {
    opts,
    store: isSharedCacheUrl(opts.config.cache.url) ? undefined : createCacheStore(opts.config.cache.url, { memoryMaxBytes: opts.storeBytes }),
    stopping: false,
    started: false,
    failures: new Map(),
    listening: new WeakSet(),
    simulations: createSiblingLookup(),
    metrics: createMetricsGather(),
  }
  await startProcesses(primary)
  primary.started = true
  opts.logger.info({ processes: opts.processes, port: opts.config.server.port }, 'HTTP processes listening')
  process.on('SIGTERM', () => stop(primary, 'SIGTERM'))
  process.on('SIGINT', () => stop(primary, 'SIGINT'))
}

/** what the primary keeps while it runs */
interface Primary {
  readonly opts: PrimaryOptions
  /** the instance's memory:// store (undefined with Redis, which every process connects to) */
  readonly store: CacheStore | undefined
  stopping: boolean
  /** until every process first listens, a process that exits fails the start instead */
  started: boolean
  /** per process index, its replacements that died in a row */
  readonly failures: Map<number, number>
  /** a process hears messages only once its code listens for them: one still starting is asked to stop when it is up */
  readonly listening: WeakSet<Worker>
  /** stored simulations, found among the processes */
  readonly simulations: ReturnType<typeof createSiblingLookup>
  /** GET /metrics on any process reports every process (metricsGather.ts) */
  readonly metrics: ReturnType<typeof createMetricsGather>
}

const processes = (): Worker[] => Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined)

const countListening = (p: Primary) => p.metrics.setListening(processes().filter((w) => !w.isDead() && p.listening.has(w)).length)

const siblingsOf = (p: Primary, asker: Worker): Worker[] => processes().filter((w) => w !== asker && w.isConnected() && p.listening.has(w))

/** start-up: every process listening, or the whole instance fails (port taken, bad chain, ...) */
async function startProcesses(p: Primary): Promise<void> {
  const first = Array.from({ length: p.opts.processes }, (_, i) => forkProcess(p, i))
  await Promise.all(first.map(listeningOrExit)).catch((err: unknown) => {
    p.stopping = true
    for (const w of processes()) w.process.kill('SIGKILL')
    throw err
  })
}

function listeningOrExit(worker: Worker, index: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`HTTP process ${index} exited with code ${code} while starting`))
    worker.once('exit', onExit)
    worker.once('listening', () => {
      worker.off('exit', onExit)
      resolve()
    })
  })
}

/** forks the HTTP process at `index`, answering its messages and replacing it when it dies */
function forkProcess(p: Primary, index: number): Worker {
  const worker = cluster.fork({ [PROCESS_INDEX_ENV]: String(index) })
  const view = storeFor(p, worker)
  worker.on('message', (msg: FromProcess) => onMessage(p, worker, view, msg))
  worker.once('listening', () => {
    p.listening.add(worker)
    p.failures.set(index, 0)
    countListening(p)
  })
  worker.once('exit', (code, signal) => onExit(p, index, code, signal))
  return worker
}

/** the store as this process sees it: a stored simulation is asked of the others, which keep them */
function storeFor(p: Primary, worker: Worker): CacheStore | undefined {
  const store = p.store
  return (
    store && {
      ...store,
      get: (key) => (isSimulationKey(key) ? p.simulations.find(key, siblingsOf(p, worker)) : store.get(key)),
    }
  )
}

function onMessage(p: Primary, worker: Worker, view: CacheStore | undefined, msg: FromProcess) {
  if (msg?.type === 'lookupReply') return p.simulations.onReply(msg)
  if (msg?.type === 'metricsCollected') return p.metrics.onCollected(msg)
  if (msg?.type === 'metricsAsk') {
    const live = processes().filter((w) => p.listening.has(w) && w.isConnected())
    const channel = (w: Worker) => ({ send: (m: ToProcess) => void (w.isConnected() && w.send(m)) })
    return p.metrics.onAsk(msg, channel(worker), live.map(channel))
  }
  if (msg?.type !== 'cache' || !view) return
  void answerCacheOp(view, msg, (reply) => {
    if (worker.isConnected()) worker.send(reply satisfies ToProcess)
  })
}

/** a process that dies after the start is replaced, after a pause that grows while replacements keep dying */
function onExit(p: Primary, index: number, code: number | null, signal: string | null) {
  countListening(p)
  if (p.stopping || !p.started) return
  p.metrics.processReplaced()
  const failed = (p.failures.get(index) ?? 0) + 1
  p.failures.set(index, failed)
  const delay = Math.min(RESPAWN_MAX_DELAY_MS, 250 * 2 ** (failed - 1))
  p.opts.logger.error({ process: index, code, signal, restartInMs: delay }, 'HTTP process exited; starting a replacement')
  setTimeout(() => !p.stopping && forkProcess(p, index), delay).unref()
}

/**
 * Forwards the drain: asks every process to finish its requests (each drains as one process does
 * on SIGTERM, host/instance.ts), then exits 0 once all are gone, 1 if any was cut. A second signal
 * while draining is forwarded too: each process exits at once, logging what it cut.
 */
function stop(p: Primary, signal: string) {
  if (p.stopping) return stopNow(p, signal)
  p.stopping = true
  p.opts.logger.info({ signal }, 'draining: asking every HTTP process to finish its requests')
  const live = processes()
  // each process bounds its own drain by the grace; one that never gets there (stuck starting,
  // say) is not waited for beyond that
  const cut = setTimeout(() => live.forEach((w) => w.isDead() || w.process.kill('SIGKILL')), p.opts.config.server.shutdown_grace_ms + 5_000)
  cut.unref()
  void Promise.all(live.map((w) => stopProcess(p, w))).then(async (codes) => {
    clearTimeout(cut)
    await p.store?.close().catch(() => undefined)
    const clean = codes.every((c) => c === 0)
    p.opts.logger[clean ? 'info' : 'error']({ exitCodes: codes }, clean ? 'stopped' : 'stopped: requests were cut')
    await new Promise<void>((resolve) => p.opts.logger.flush(() => resolve()))
    process.exit(clean ? 0 : 1)
  })
}

/** a second signal: every process is told to stop at once (it logs what it cut); whatever is left after a second is killed */
function stopNow(p: Primary, signal: string) {
  p.opts.logger.error({ signal }, 'stopping now: HTTP processes cut their requests')
  const live = processes().filter((w) => !w.isDead())
  for (const w of live) w.process.kill('SIGTERM')
  const leave = () => {
    for (const w of processes()) if (!w.isDead()) w.process.kill('SIGKILL')
    p.opts.logger.flush(() => process.exit(1))
  }
  setTimeout(leave, 1_000).unref()
  void Promise.all(live.map((w) => new Promise((resolve) => (w.isDead() ? resolve(null) : w.once('exit', resolve))))).then(leave)
}

/** the process's exit code once it is gone (null: killed by a signal) */
function stopProcess(p: Primary, w: Worker): Promise<number | null> {
  return new Promise((resolve) => {
    if (w.isDead()) return resolve(w.process.exitCode)
    w.once('exit', (code) => resolve(code))
    if (!w.isConnected()) w.process.kill('SIGTERM')
    else if (p.listening.has(w)) w.send(STOP_MESSAGE satisfies ToProcess)
    else w.once('listening', () => w.send(STOP_MESSAGE satisfies ToProcess))
  })
}
