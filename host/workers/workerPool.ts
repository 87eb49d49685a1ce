/**
 * The Engine on all cores. Simulations and traces are CPU-bound and Node runs JavaScript on one
 * thread, so the pool runs one engine per worker thread and hands each call to the least-busy
 * worker: a long struct-log trace occupies one worker while short simulations flow through the
 * others (round-robin would queue them behind it). When every worker is at its concurrency cap,
 * calls wait in one FIFO queue.
 *
 * The cap (`maxConcurrentPerWorker`) counts the calls that compute. A call waiting on the
 * upstream (its worker says so: `upstreamWait`, host/protocol.ts) holds no place under it, so
 * calls that wait on a slow or silent upstream do not keep the warm calls queued behind them from
 * running; the calls one worker holds at once, waiting or computing, are bounded apart
 * (`maxCallsHeldPerWorker`, HELD_PER_WORKER), which bounds the runs kept in its memory. A call
 * whose upstream answer arrives counts as computing again at once, even past the cap: its run is
 * on its worker's one thread, interleaved with the others there, and cannot move to another, so
 * holding it back would only reorder the work of that thread; its worker takes no new call until
 * its computing calls are under the cap again.
 *
 * Errors come back as the EngineError the worker threw (code, message, details, suggestion);
 * bigints and bytes cross as they are. A worker that dies is replaced; with `callTimeoutMs`, a
 * call whose time is up — counted from when it was asked, so a wait in the queue counts (its HTTP
 * request has been answered 504 by then) — is answered EXECUTION_TIMEOUT: still queued, it never
 * runs; running, it is stopped in place. So is a call whose request is given up (`withStop`: its
 * client went away): each call in flight has a flag in memory shared with its worker
 * (WorkerSetup.stopFlags), which the pool sets and the worker's run reads every few thousand EVM
 * steps, even deep in a loop that never yields (engine/execution/runStop.ts); the worker answers
 * the stopped call at once and its place is free. A worker whose stopped call has not ended within
 * STOP_GRACE_MS (an engine that cannot stop in place) is replaced, the other calls it held being
 * retried on another worker.
 *
 * With `spill`, every worker (each start of it) writes its temporary files under a directory of
 * its own, removed when the worker exits for any reason: a crash or a timeout leaves no file.
 * A worker spills struct logs from 64 KiB on (DEFAULT_SPILL_THRESHOLD_BYTES): the main thread
 * then reads bytes it sends as they are, where a struct log returned as objects costs it a
 * structured-clone copy and a JSON.stringify, both on the thread every request goes through
 * (measured on a 3,000-step log of ~0.8 MB with WORKERS=0: ~30 ms of the main thread per request,
 * more than the worker spent running the trace).
 *
 * @example
 * const engine = await startWorkerPool({ ...engineOptions, workers: 4, cacheUrl: 'redis://cache:6379/0' })
 */
import { ENGINE_OPERATIONS, type Engine, type EngineOperation, type EngineOperations, type EngineOptions } from '../../engine/types.js'
import type { RunStop } from '../../engine/execution/types.js'
import { WorkerPool } from './pool.js'
import { poolSettings } from './poolSettings.js'

export { HELD_PER_WORKER } from './poolSettings.js'

export interface WorkerPoolOptions extends EngineOptions {
  /** number of worker threads (each one engine) */
  workers: number
  /** the cache URL: redis(s):// → every worker connects to it; memory:// → workers share `cache` through the pool */
  cacheUrl?: string
  /** Redis key namespace (default 'evmsim:') */
  cachePrefix?: string
  /** calls one worker computes at once; calls waiting on the upstream do not count (default 4) */
  maxConcurrentPerWorker?: number
  /**
   * calls one worker holds at once, waiting on the upstream or computing: the bound of the runs in
   * its memory (default HELD_PER_WORKER, 128; at least `maxConcurrentPerWorker`)
   */
  maxCallsHeldPerWorker?: number
  /** each worker's in-process cache level, bytes (default 64 MiB) */
  workerCacheBytes?: number
  /** a call running longer is answered EXECUTION_TIMEOUT and stopped in place (default: none) */
  callTimeoutMs?: number
  /**
   * how long health() waits for a worker before answering from the last check (default 950: a
   * worker's own upstream probe gives up after 800 ms, so a hanging upstream is reported in time)
   */
  healthTimeoutMs?: number
  /** module exporting createEngine for the workers (default: engine/index) */
  engineModule?: string
  /**
   * heap bound of each worker, MiB: a request that exhausts it (a huge trace) ends that worker
   * only (its calls answer INTERNAL_ERROR, a new worker starts) instead of the whole process
   * (default: V8's own limit)
   */
  workerMaxHeapMb?: number
}

export interface WorkerPoolStats {
  queued: number
  /**
   * `inflight`: the calls the worker holds; `waiting`: those of them waiting on the upstream;
   * `starts`: how often the worker at that index was started (1 + its replacements)
   */
  workers: { index: number; ready: boolean; inflight: number; waiting: number; served: number; starts: number }[]
}

/** how an engine's runs stand, for the host's metrics: waiting, running, engines up, workers replaced */
export interface EngineRuns {
  queued: number
  inFlight: number
  /** engines ready to run (worker threads; 1 in process) */
  engines: number
  /** workers replaced since start: died (out of heap, a crash) or stopped at the request timeout */
  replacements: { crash: number; timeout: number }
}

/** an engine as the host runs it: the operations, and how its runs stand */
export interface HostedEngine extends Engine {
  runs(): EngineRuns
}

export interface WorkerPoolEngine extends HostedEngine {
  stats(): WorkerPoolStats
}

/**
 * Starts the workers and answers once every one is ready. The moving parts are WorkerPool's
 * (pool.ts); here they are named as the engine's operations and views.
 */
export async function startWorkerPool(opts: WorkerPoolOptions): Promise<WorkerPoolEngine> {
  const pool = new WorkerPool(poolSettings(opts))
  await pool.start()
  const call = <T>(method: EngineOperation, args: unknown[], stop?: RunStop): Promise<T> => pool.call<T>(method, args, stop)
  const forkCall = <T>(method: EngineOperation, args: unknown[], stop?: RunStop): Promise<T> => pool.forkCall<T>(method, args, stop)
  const getSimulation: (id: string, stop?: RunStop) => ReturnType<Engine['getSimulation']> = (id, stop) => pool.getSimulation(id, stop)

  /** what every view of the pool shares: health, metrics, runs, stats, close */
  const shared = {
    metrics: () => pool.metrics(),
    runs: () => pool.runs(),
    health: () => pool.health(),
    stats: () => pool.stats(),
    close: () => pool.close(),
  } satisfies Pick<WorkerPoolEngine, 'health' | 'metrics' | 'runs' | 'stats' | 'close'>

  /**
   * The pool, its calls stopping where `stop` says (one request's view, withStop). Every operation
   * goes to a worker with its arguments as given, so an operation or an optional parameter added
   * to Engine later crosses too; getSimulation and the fork operations are the pool's own.
   */
  function engineFor(stop: RunStop | undefined): WorkerPoolEngine {
    const forwarded = Object.fromEntries(
      ENGINE_OPERATIONS.map((method) => [method, (...args: unknown[]) => call(method, args, stop)]),
    ) as unknown as EngineOperations
    return {
      ...forwarded,
      getSimulation: (id) => getSimulation(id, stop),
      createFork: (...args) => forkCall('createFork', args, stop),
      getFork: (...args) => forkCall('getFork', args, stop),
      listForks: (...args) => forkCall('listForks', args, stop),
      deleteFork: (...args) => forkCall('deleteFork', args, stop),
      onFork: (...args) => forkCall('onFork', args, stop),
      forkRpc: (...args) => forkCall('forkRpc', args, stop),
      ...shared,
      withStop: (s) => engineFor(s),
    }
  }
  return engineFor(undefined)
}
