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
import type { Engine, EngineOptions, ForkAt, OperationArgs, RunAt } from '../../engine/types.js'
import { startWorkerPool, type EngineRuns, type HostedEngine, type WorkerPoolOptions } from './workerPool.js'
import { isSharedCacheUrl } from '../cache/createCacheStore.js'
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
    // a literal specifier, so that a bundle of the command line holds the engine
    const { createEngine } = (opts.engineModule ? await import(opts.engineModule) : await import('../../engine/index.js')) as EngineModule
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
    const forkStore = engine.forkStore ?? (cacheUrl && isSharedCacheUrl(cacheUrl) ? createRedisForkStore({ url: cacheUrl, prefix: cachePrefix }) : undefined)
    return countingRuns(await createEngine({ ...engine, ...(forkStore && { forkStore }) }))
  }
  return startWorkerPool(opts)
}

/**
 * The in-process engine with its runs in flight counted (a counter up and down per call, not per
 * step): what the pool knows of its workers, the in-process engine does not.
 */
function countingRuns(engine: Engine): HostedEngine {
  return new CountedEngine(engine)
}

/** an engine's operations, one line each, with the calls in flight counted (health and metrics are questions, not runs) */
class CountedEngine implements HostedEngine {
  #inFlight = 0
  constructor(private readonly engine: Engine) {}

  simulate(at: RunAt, ...a: OperationArgs<'simulate'>) {
    return this.#counted(this.engine.simulate(at, ...a))
  }
  previewSignature(at: RunAt, ...a: OperationArgs<'previewSignature'>) {
    return this.#counted(this.engine.previewSignature(at, ...a))
  }
  simulateSteps(at: RunAt, ...a: OperationArgs<'simulateSteps'>) {
    return this.#counted(this.engine.simulateSteps(at, ...a))
  }
  getSimulation(at: RunAt, ...a: OperationArgs<'getSimulation'>) {
    return this.#counted(this.engine.getSimulation(at, ...a))
  }
  accessList(at: RunAt, ...a: OperationArgs<'accessList'>) {
    return this.#counted(this.engine.accessList(at, ...a))
  }
  traceTransaction(at: RunAt, ...a: OperationArgs<'traceTransaction'>) {
    return this.#counted(this.engine.traceTransaction(at, ...a))
  }
  traceCall(at: RunAt, ...a: OperationArgs<'traceCall'>) {
    return this.#counted(this.engine.traceCall(at, ...a))
  }
  traceCallMany(at: RunAt, ...a: OperationArgs<'traceCallMany'>) {
    return this.#counted(this.engine.traceCallMany(at, ...a))
  }
  simulateV1(at: RunAt, ...a: OperationArgs<'simulateV1'>) {
    return this.#counted(this.engine.simulateV1(at, ...a))
  }
  traceBlock(at: RunAt, ...a: OperationArgs<'traceBlock'>) {
    return this.#counted(this.engine.traceBlock(at, ...a))
  }
  call(at: RunAt, ...a: OperationArgs<'call'>) {
    return this.#counted(this.engine.call(at, ...a))
  }
  estimateGas(at: RunAt, ...a: OperationArgs<'estimateGas'>) {
    return this.#counted(this.engine.estimateGas(at, ...a))
  }
  readChain(at: RunAt, ...a: OperationArgs<'readChain'>) {
    return this.#counted(this.engine.readChain(at, ...a))
  }
  createFork(at: RunAt, ...a: OperationArgs<'createFork'>) {
    return this.#counted(this.engine.createFork(at, ...a))
  }
  getFork(at: RunAt, ...a: OperationArgs<'getFork'>) {
    return this.#counted(this.engine.getFork(at, ...a))
  }
  listForks(at: RunAt) {
    return this.#counted(this.engine.listForks(at))
  }
  deleteFork(at: RunAt, ...a: OperationArgs<'deleteFork'>) {
    return this.#counted(this.engine.deleteFork(at, ...a))
  }
  registerSources(at: RunAt, ...a: OperationArgs<'registerSources'>) {
    return this.#counted(this.engine.registerSources(at, ...a))
  }
  listSources(at: RunAt) {
    return this.#counted(this.engine.listSources(at))
  }
  forkRpc(at: ForkAt, ...a: OperationArgs<'forkRpc'>) {
    return this.#counted(this.engine.forkRpc(at, ...a))
  }
  health(at: RunAt) {
    return this.engine.health(at)
  }
  metrics() {
    return this.engine.metrics()
  }
  close() {
    return this.engine.close()
  }
  runs(): EngineRuns {
    return { queued: 0, inFlight: this.#inFlight, engines: 1, replacements: { crash: 0, timeout: 0 } }
  }

  #counted<T>(run: Promise<T>): Promise<T> {
    this.#inFlight++
    const done = () => void this.#inFlight--
    run.then(done, done)
    return run
  }
}
