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
import type { Engine, EngineOperation, EngineOptions, RunAt } from '../../engine/types.js'
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

  /** what the pool answers itself: health, metrics, runs, stats, close */
  const shared = {
    metrics: () => pool.metrics(),
    runs: () => pool.runs(),
    health: () => pool.health(),
    stats: () => pool.stats(),
    close: () => pool.close(),
  } satisfies Pick<WorkerPoolEngine, 'health' | 'metrics' | 'runs' | 'stats' | 'close'>

  /**
   * The pool as an engine: each operation goes to a worker with its address (the chain and fork it
   * names; its stop stays here, where the pool stops the call) and its arguments as given. A call
   * on a fork, and the forks' own operations, go where the forks are (forkCall); getSimulation
   * and health are the pool's own.
   */
  const on = (at: RunAt) => (at.fork === undefined ? call : forkCall)
  const engine: WorkerPoolEngine = {
    simulate: (at, ...a) => on(at)('simulate', [placeOf(at), ...a], at.stop),
    previewSignature: (at, ...a) => on(at)('previewSignature', [placeOf(at), ...a], at.stop),
    simulateSteps: (at, ...a) => on(at)('simulateSteps', [placeOf(at), ...a], at.stop),
    getSimulation: (at, id) => pool.getSimulation(placeOf(at), id, at.stop),
    accessList: (at, ...a) => on(at)('accessList', [placeOf(at), ...a], at.stop),
    traceTransaction: (at, ...a) => on(at)('traceTransaction', [placeOf(at), ...a], at.stop),
    traceCall: (at, ...a) => on(at)('traceCall', [placeOf(at), ...a], at.stop),
    traceCallMany: (at, ...a) => on(at)('traceCallMany', [placeOf(at), ...a], at.stop),
    simulateV1: (at, ...a) => on(at)('simulateV1', [placeOf(at), ...a], at.stop),
    traceBlock: (at, ...a) => on(at)('traceBlock', [placeOf(at), ...a], at.stop),
    call: (at, ...a) => on(at)('call', [placeOf(at), ...a], at.stop),
    estimateGas: (at, ...a) => on(at)('estimateGas', [placeOf(at), ...a], at.stop),
    readChain: (at, ...a) => on(at)('readChain', [placeOf(at), ...a], at.stop),
    createFork: (at, ...a) => forkCall('createFork', [placeOf(at), ...a], at.stop),
    getFork: (at, ...a) => forkCall('getFork', [placeOf(at), ...a], at.stop),
    listForks: (at) => forkCall('listForks', [placeOf(at)], at.stop),
    deleteFork: (at, ...a) => forkCall('deleteFork', [placeOf(at), ...a], at.stop),
    forkRpc: (at, ...a) => forkCall('forkRpc', [placeOf(at), ...a], at.stop),
    // any worker: the registry is in the cache store every worker reads
    registerSources: (at, ...a) => call('registerSources', [placeOf(at), ...a], at.stop),
    listSources: (at) => call('listSources', [placeOf(at)], at.stop),
    ...shared,
  }
  return engine
}

/** what of a call's address crosses to a worker: its chain and fork (the stop is the pool's: WorkerSetup.stopFlags) */
export function placeOf({ chain, fork }: RunAt): RunAt {
  return { ...(chain !== undefined && { chain }), ...(fork !== undefined && { fork }) }
}
