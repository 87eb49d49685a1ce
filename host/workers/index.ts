/**
 * The engine on all cores: `createWorkerPoolEngine` is what the instance (host/instance.ts) calls.
 * `workers` > 1 → a pool of worker threads, one engine each; 0 or 1 → the in-process engine
 * (no threads, no message passing). Default size: `defaultWorkerCount()` (the usable cores).
 *
 * @example
 * const cache = createCacheStore(config.cache.url, { logger })
 * const engine = await createWorkerPoolEngine({ ...engineOptions, cache, workers: config.workers, cacheUrl: config.cache.url })
 */
import { availableParallelism } from 'node:os'
import { ENGINE_OPERATIONS, type Engine, type EngineOptions, type RunStop } from '../../engine/types.js'
import { startWorkerPool, type EngineRuns, type HostedEngine, type WorkerPoolOptions } from './workerPool.js'
import { createRedisForkStore } from '../cache/redisForkStore.js'
import { sweepOldSpills, sweepStaleSpills } from '../spill/spillOwnership.js'

export { startWorkerPool, type EngineRuns, type HostedEngine, type WorkerPoolEngine, type WorkerPoolOptions, type WorkerPoolStats } from './workerPool.js'

/** the cores this process may use */
export function defaultWorkerCount(): number {
  return availableParallelism()
}

type EngineModule = { createEngine(opts: EngineOptions): Engine | Promise<Engine> }

/** how often unclaimed spilled files are looked for, and how old one must be to go, ms */
const SPILL_SWEEP_EVERY_MS = 60_000
const SPILL_MAX_AGE_MS = 10 * 60_000

export async function createWorkerPoolEngine(opts: WorkerPoolOptions): Promise<HostedEngine> {
  const engine = await createEngineOnCores(opts)
  if (!opts.spill) return engine
  // files a killed process left; then, periodically, results whose request went away unclaimed
  // (an answer is claimed within moments of the run's end, so an old file is nobody's)
  sweepStaleSpills()
  const maxAge = Math.max(SPILL_MAX_AGE_MS, 2 * (opts.callTimeoutMs ?? 0))
  const sweeper = setInterval(() => sweepOldSpills(maxAge), SPILL_SWEEP_EVERY_MS)
  sweeper.unref()
  const close = engine.close.bind(engine)
  engine.close = async () => {
    clearInterval(sweeper)
    await close()
  }
  return engine
}

async function createEngineOnCores(opts: WorkerPoolOptions): Promise<HostedEngine> {
  if (!(opts.workers > 1)) {
    // one core's worth: run in this thread; the facade is loaded lazily so a pool's main
    // thread never pays for a VM it does not use
    const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js'
    const specifier = opts.engineModule ?? new URL(`../../engine/index${ext}`, import.meta.url).href
    const { createEngine } = (await import(specifier)) as EngineModule
    const {
      workers: _w,
      cacheUrl,
      cachePrefix,
      maxConcurrentPerWorker: _m,
      maxCallsHeldPerWorker: _c,
      workerCacheBytes: _b,
      callTimeoutMs: _t,
      healthTimeoutMs: _h,
      engineModule: _e,
      workerMaxHeapMb: _x,
      ...engine
    } = opts
    // forks in Redis when the cache is Redis: every instance serves every fork
    const forkStore = engine.forkStore ?? (cacheUrl && /^rediss?:/i.test(cacheUrl) ? createRedisForkStore({ url: cacheUrl, prefix: cachePrefix }) : undefined)
    return countingRuns(await createEngine({ ...engine, ...(forkStore && { forkStore }) }))
  }
  return startWorkerPool(opts)
}

/** the operations the host asks about the engine itself: not runs */
const NOT_RUNS = new Set<string>(['health', 'metrics'])

/**
 * The in-process engine with its runs in flight counted (a counter up and down per call, not per
 * step): what the pool knows of its workers, the in-process engine does not.
 */
function countingRuns(engine: Engine): HostedEngine {
  return new CountedEngine(engine, engine, { inFlight: 0 }) as unknown as HostedEngine
}

/**
 * An engine's operations with its runs counted. Each request takes its own view of the engine
 * (withStop), so a view is one small object: the operations sit on the prototype, made once.
 */
class CountedEngine {
  constructor(
    /** the engine, or a request's view of it, whose operations this one counts */
    readonly target: Engine,
    readonly root: Engine,
    readonly count: { inFlight: number },
  ) {}

  close(): Promise<void> {
    return this.root.close()
  }

  runs(): EngineRuns {
    return { queued: 0, inFlight: this.count.inFlight, engines: 1, replacements: { crash: 0, timeout: 0 } }
  }

  withStop(stop: RunStop): CountedEngine {
    return this.target.withStop ? new CountedEngine(this.target.withStop(stop), this.root, this.count) : this
  }
}

for (const method of ENGINE_OPERATIONS) {
  const proto = CountedEngine.prototype as unknown as Record<string, (this: CountedEngine, ...a: unknown[]) => Promise<unknown>>
  proto[method] = NOT_RUNS.has(method)
    ? function (...args) {
        return (this.target[method] as (...a: unknown[]) => Promise<unknown>).apply(this.target, args)
      }
    : function (...args) {
        const count = this.count
        count.inFlight++
        const done = () => void count.inFlight--
        const p = (this.target[method] as (...a: unknown[]) => Promise<unknown>).apply(this.target, args)
        p.then(done, done)
        return p
      }
}
