/**
 * What a worker pool is started with, read once from its options: how many workers, how many
 * calls each may compute and hold, what every worker thread is given, and the pool's own parts
 * (cache store, logger, timeouts) that stay on the main thread.
 */
import type { EngineOptions } from '../../engine/types.js'
import type { WorkerSetup } from '../protocol.js'
import { isSharedCacheUrl } from '../cache/createCacheStore.js'
import { workerEntry, type WorkerEntry } from './workerEntry.js'
import type { WorkerPoolOptions } from './workerPool.js'

/**
 * calls one worker holds at once by default, waiting on the upstream or computing: room for every
 * item of a JSON-RPC batch of max_rpc_batch (100) waiting on a silent upstream, with the calls
 * besides it, even on one worker, and a bound on the runs one worker keeps in memory (a run
 * waiting on the upstream keeps its state and, past its first reads, its VM)
 */
export const HELD_PER_WORKER = 128
/** stop flags per worker beyond one per call it holds: the calls that bypass the queue (health, metrics, fork calls) */
const BYPASS_FLAGS = 64

export interface PoolSettings {
  /** number of worker threads */
  size: number
  /** calls one worker computes at once (maxConcurrentPerWorker) */
  maxComputing: number
  /** calls one worker holds at once, waiting or computing (maxCallsHeldPerWorker) */
  maxHeld: number
  /** one stop flag per call a worker holds, and room for the calls that bypass the queue */
  stopFlagCount: number
  /** what every worker thread starts with (its stop flags and spill directory are its own) */
  setup: WorkerSetup
  entry: WorkerEntry
  cache: EngineOptions['cache']
  logger: EngineOptions['logger']
  callTimeoutMs?: number
  /** how long health() waits for a worker before answering from the last check */
  healthTimeoutMs: number
  workerMaxHeapMb?: number
  /**
   * the cache is Redis: every worker reaches the same forks and stored simulations (each counts
   * every fork), where on memory:// a fork lives in one worker's memory
   */
  redisCache: boolean
}

export function poolSettings(opts: WorkerPoolOptions): PoolSettings {
  const maxComputing = Math.max(1, opts.maxConcurrentPerWorker ?? 4)
  const maxHeld = Math.max(maxComputing, opts.maxCallsHeldPerWorker ?? HELD_PER_WORKER)
  const { cacheUrl, cachePrefix, workerCacheBytes, engineModule } = opts
  return {
    size: Math.max(1, Math.floor(opts.workers)),
    maxComputing,
    maxHeld,
    stopFlagCount: maxHeld + BYPASS_FLAGS,
    setup: { engine: threadEngineOptions(opts), cacheUrl, cachePrefix, localCacheBytes: workerCacheBytes ?? 64 * 1024 * 1024, engineModule },
    entry: workerEntry(),
    cache: opts.cache,
    logger: opts.logger,
    callTimeoutMs: opts.callTimeoutMs,
    healthTimeoutMs: opts.healthTimeoutMs ?? 950,
    workerMaxHeapMb: opts.workerMaxHeapMb,
    redisCache: !!(cacheUrl && isSharedCacheUrl(cacheUrl)),
  }
}

/** the engine options a worker thread is given: all but the pool's own and those that cannot cross a thread */
function threadEngineOptions(opts: WorkerPoolOptions): WorkerSetup['engine'] {
  const {
    cache: _cache,
    logger: _logger,
    workers: _w,
    cacheUrl: _u,
    cachePrefix: _p,
    maxConcurrentPerWorker: _m,
    maxCallsHeldPerWorker: _c,
    workerCacheBytes: _b,
    callTimeoutMs: _t,
    healthTimeoutMs: _h,
    engineModule: _e,
    workerMaxHeapMb: _heap,
    forkStore: _f,
    ...engine
  } = opts
  return engine
}
