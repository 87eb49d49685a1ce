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
import { Worker } from 'node:worker_threads'
import { EngineError, TIMEOUT_SUGGESTION } from '../../engine/platform/errors.js'
import { type Engine, type EngineHealth, type EngineMetrics, type EngineOperation, type EngineOptions, ON_CHAIN, type RunAt } from '../../engine/types.js'
import type { RunStop } from '../../engine/execution/types.js'
import { addEngineMetrics } from '../../engine/engineMetrics.js'
import { deserializeError, plainCopy, type CacheRequest, type FromWorker, type SerializedError, type ToWorker, type WorkerSetup } from '../protocol.js'
import { workerEntry } from './workerEntry.js'
import { answerCacheOp } from './answerCacheOp.js'
import { newSpillOwner, removeSpillOwner } from '../../engine/platform/spill/spillFiles.js'

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

interface Job {
  method: EngineOperation
  args: unknown[]
  resolve(value: unknown): void
  reject(err: Error): void
  timer?: NodeJS.Timeout
  /** when the call's time is up (epoch ms): callTimeoutMs from when it was asked, its wait in the queue included, or its request's deadline if earlier */
  deadline?: number
  /** the request's stop (withStop): its deadline and the abort of a request given up */
  stop?: RunStop
  /** while it runs: its flag in its worker's stopFlags */
  flag?: number
  /** answered already (out of time, request given up): its worker's answer only frees its place */
  abandoned?: boolean
  /** stops listening for its request's abort */
  unlisten?: () => void
  /** where it runs */
  running?: { slot: Slot; id: number }
  /** asked of one worker about itself (its metrics): never run again on another */
  pinned?: true
  /** its worker says it waits on the upstream: it holds no place under the cap */
  waiting?: boolean
}

interface Slot {
  index: number
  worker: Worker
  ready: boolean
  /** replaced or closing: its exit is expected */
  retired: boolean
  inflight: Map<number, Job>
  /** the calls of `inflight` waiting on the upstream */
  waiting: number
  served: number
  onClosed?: () => void
  /** the worker's one-way cache writes not yet done, and the last of them */
  writes: { pending: number; last: Promise<void> }
  /** one stop flag per call in flight, shared with the worker (WorkerSetup.stopFlags) */
  flags: Int32Array
  freeFlags: number[]
  /** the worker's engine counts as last answered */
  metrics?: EngineMetrics
}

/** a call that loses its worker with less time than this left is not run again (ms) */
const RERUN_MIN_MS = 100
/** how long a stopped call may take to end in its worker before the worker is replaced, ms */
const STOP_GRACE_MS = 500
/**
 * calls one worker holds at once by default, waiting on the upstream or computing: room for every
 * item of a JSON-RPC batch of max_rpc_batch (100) waiting on a silent upstream, with the calls
 * besides it, even on one worker, and a bound on the runs one worker keeps in memory (a run
 * waiting on the upstream keeps its state and, past its first reads, its VM)
 */
export const HELD_PER_WORKER = 128
/** stop flags per worker beyond one per call it holds: the calls that bypass the queue (health, metrics, fork calls) */
const BYPASS_FLAGS = 64
/** how long a worker's health answer may stand in for one that is late (workers all busy), ms */
const HEALTH_STALE_MS = 10_000
/** how long the first health probe (no earlier answer to fall back on) waits for a worker, ms */
const FIRST_HEALTH_WAIT_MS = 2_000
/** how long a metrics scrape waits for a worker before counting what it answered last, ms */
const METRICS_WAIT_MS = 1_000

export async function startWorkerPool(opts: WorkerPoolOptions): Promise<WorkerPoolEngine> {
  const size = Math.max(1, Math.floor(opts.workers))
  const maxPer = Math.max(1, opts.maxConcurrentPerWorker ?? 4)
  const maxHeld = Math.max(maxPer, opts.maxCallsHeldPerWorker ?? HELD_PER_WORKER)
  /** one stop flag per call a worker holds, and room for the calls that bypass the queue */
  const stopFlagCount = maxHeld + BYPASS_FLAGS
  const entry = workerEntry()
  const {
    cache,
    logger,
    workers: _w,
    cacheUrl,
    cachePrefix,
    maxConcurrentPerWorker: _m,
    maxCallsHeldPerWorker: _c,
    workerCacheBytes,
    callTimeoutMs,
    healthTimeoutMs: _h,
    engineModule,
    workerMaxHeapMb,
    forkStore: _f,
    ...engine
  } = opts
  const setup: WorkerSetup = {
    engine,
    cacheUrl,
    cachePrefix,
    localCacheBytes: workerCacheBytes ?? 64 * 1024 * 1024,
    engineModule,
  }

  const slots: (Slot | undefined)[] = new Array(size).fill(undefined)
  const starts: number[] = new Array(size).fill(0)
  const queue: Job[] = []
  let nextId = 0
  let rotate = 0
  let closing = false
  let lastHealth: { health: EngineHealth; at: number } | undefined
  /**
   * the chain id the first worker to start learnt: its replacements start with it instead of
   * asking the upstream (a worker replaced while the upstream is silent would otherwise fail to
   * start, and retry with a growing pause, until the upstream answers again)
   */
  let knownChainId: number | undefined
  /** the counts of workers gone (replaced), as they last answered: the totals never go back */
  let retiredMetrics: EngineMetrics = { forksOpen: 0 }
  const replacements = { crash: 0, timeout: 0 }
  // forks in Redis are every worker's: each counts them all
  const sharedForks = !!(cacheUrl && /^rediss?:/i.test(cacheUrl))

  const closedError = () => new EngineError('INTERNAL_ERROR', 'the engine is shut down')

  function spawn(index: number): Promise<void> {
    const spill = setup.engine.spill && {
      ...setup.engine.spill,
      owner: newSpillOwner(`w${index}`),
    }
    const spillOwner = spill?.owner
    starts[index]!++
    const stopFlags = new SharedArrayBuffer(stopFlagCount * Int32Array.BYTES_PER_ELEMENT)
    const engineSetup = { ...setup.engine, ...(spill && { spill }), ...(knownChainId !== undefined && setup.engine.rpcUrl && { knownChainId }) }
    const worker = new Worker(entry.script, {
      workerData: { ...setup, stopFlags, engine: engineSetup },
      eval: entry.eval,
      ...(workerMaxHeapMb && { resourceLimits: { maxOldGenerationSizeMb: workerMaxHeapMb } }),
    })
    const slot: Slot = {
      index,
      worker,
      ready: false,
      retired: false,
      inflight: new Map(),
      waiting: 0,
      served: 0,
      writes: { pending: 0, last: Promise.resolve() },
      flags: new Int32Array(stopFlags),
      freeFlags: Array.from({ length: stopFlagCount }, (_, i) => stopFlagCount - 1 - i),
    }
    slots[index] = slot
    return new Promise<void>((resolveReady, rejectReady) => {
      worker.on('message', (msg: FromWorker) => {
        switch (msg.type) {
          case 'ready':
            if (msg.chainId !== undefined) knownChainId ??= msg.chainId
            slot.ready = true
            resolveReady()
            pump()
            return
          case 'initError':
            slot.retired = true
            void worker.terminate()
            rejectReady(deserializeError(msg.error))
            return
          case 'result': {
            const outcome = msg.ok ? { value: msg.value } : { error: msg.error }
            // a result answers only once the writes the worker sent before it are done, so a GET
            // by id after the answer finds the simulation (in a memory store, and for the
            // simulations one of several HTTP processes keeps, they are done already; a write
            // forwarded to the primary over IPC takes a while)
            if (slot.writes.pending === 0) return settle(slot, msg.id, outcome)
            return void slot.writes.last.then(() => settle(slot, msg.id, outcome))
          }
          case 'upstreamWait':
            return upstreamWait(slot, msg.id, msg.waiting)
          case 'cache':
            return void answerCache(slot, msg)
          case 'log':
            logger?.[msg.level]({ ...msg.obj, worker: index }, msg.msg)
            return
          case 'closed':
            slot.onClosed?.()
            return
        }
      })
      worker.on('error', (err: Error & { code?: string }) => {
        // an uncaught exception inside the worker or its heap bound reached; 'exit' follows
        logger?.error({ worker: index, err: err.message, code: err.code }, 'simulation worker crashed')
        if (!slot.ready) rejectReady(err)
      })
      worker.on('exit', (code) => {
        slot.ready = false
        // its counts so far stay in the totals; forks open is a gauge, not carried over
        if (slot.metrics) retiredMetrics = addEngineMetrics(retiredMetrics, { ...slot.metrics, forksOpen: 0 }, false)
        slot.metrics = undefined
        // its unclaimed temporary files (a trace cut short, a result nobody took) go with it
        if (spillOwner) removeSpillOwner(spillOwner)
        for (const [id, job] of slot.inflight) {
          clearTimeout(job.timer)
          job.unlisten?.()
          slot.inflight.delete(id)
          if (!job.abandoned) job.reject(new EngineError('INTERNAL_ERROR', 'a simulation worker stopped unexpectedly', { exitCode: code }))
        }
        if (slots[index] === slot) slots[index] = undefined
        if (!slot.retired && !closing) {
          replacements.crash++
          logger?.warn({ worker: index, exitCode: code }, 'simulation worker exited; starting a new one')
          respawn(index, 0)
        }
        rejectReady(new Error(`simulation worker exited during start-up (code ${code})`))
      })
    })
  }

  function respawn(index: number, attempt: number) {
    if (closing) return
    spawn(index).catch((err: Error) => {
      const delay = Math.min(30_000, 500 * 2 ** attempt)
      logger?.error({ worker: index, err: err.message, retryInMs: delay }, 'simulation worker failed to start')
      setTimeout(() => respawn(index, attempt + 1), delay).unref()
    })
  }

  function answerCache(slot: Slot, msg: CacheRequest) {
    const done = answerCacheOp(cache, msg, (reply) => {
      try {
        if (!slot.retired) slot.worker.postMessage(reply)
      } catch {
        // the worker is gone (crashed or replaced): nobody waits for this answer any more
      }
    })
    if (msg.oneWay) {
      const writes = slot.writes
      writes.pending++
      // in order: a write's store may answer writes out of order, the results wait for all
      writes.last = Promise.all([writes.last, done]).then(() => {
        writes.pending--
      })
    }
    return done
  }

  /**
   * A call starts or stops waiting on the upstream: waiting, it frees its place under the cap (a
   * queued call may take it); computing again, it counts at once (see the top of this file). A
   * word about a call already answered is late and ignored.
   */
  function upstreamWait(slot: Slot, id: number, waiting: boolean) {
    const job = slot.inflight.get(id)
    if (!job || !!job.waiting === waiting) return
    job.waiting = waiting
    slot.waiting += waiting ? 1 : -1
    if (waiting) pump()
  }

  function settle(slot: Slot, id: number, outcome: { value: unknown } | { error: SerializedError }) {
    const job = slot.inflight.get(id)
    if (!job) return
    slot.inflight.delete(id)
    if (job.waiting) slot.waiting--
    job.waiting = undefined
    slot.served++
    clearTimeout(job.timer)
    job.unlisten?.()
    if (job.flag !== undefined) slot.freeFlags.push(job.flag)
    job.flag = undefined
    if (job.abandoned) {
      // answered when it was given up; its worker has let go of it
    } else if ('error' in outcome) job.reject(deserializeError(outcome.error))
    else job.resolve(outcome.value)
    pump()
  }

  /** the calls a worker computes: those it holds but the ones waiting on the upstream */
  const computing = (s: Slot) => s.inflight.size - s.waiting

  /** dispatch number of a worker's longest-running computing call (ids grow with time; Infinity when none) */
  const oldestStart = (s: Slot) => {
    let oldest = Infinity
    for (const [id, job] of s.inflight) if (!job.waiting && id < oldest) oldest = id
    return oldest
  }

  /**
   * `s` is less busy than `best`: fewer computing calls; between equals, the one whose oldest
   * computing call started last (a call that has run long is likely a CPU-bound trace holding its
   * thread, and a new call behind it would wait), then the one holding fewer calls in all.
   */
  function lessBusy(s: Slot, best: Slot): boolean {
    const c = computing(s)
    const b = computing(best)
    if (c !== b) return c < b
    if (c > 0) {
      const o = oldestStart(s)
      const ob = oldestStart(best)
      if (o !== ob) return o > ob
    }
    return s.inflight.size < best.inflight.size
  }

  /**
   * The least-busy ready worker under its cap of computing calls and its bound of calls held.
   * Idle ties rotate so workers share the load.
   */
  function pick(): Slot | undefined {
    let best: Slot | undefined
    for (let k = 0; k < size; k++) {
      const s = slots[(rotate + k) % size]
      if (!s?.ready || s.retired || computing(s) >= maxPer || s.inflight.size >= maxHeld) continue
      if (!best || lessBusy(s, best)) best = s
    }
    if (best) rotate = (best.index + 1) % size
    return best
  }

  function pump() {
    while (queue.length > 0) {
      // a call whose time ran out while it waited (its request answered 504 already) never runs
      const head = queue[0]!
      if (head.deadline !== undefined && head.deadline <= Date.now()) {
        queue.shift()
        head.unlisten?.()
        head.reject(timeoutError(head, 'waited'))
        continue
      }
      const slot = pick()
      if (!slot) return
      dispatch(slot, queue.shift()!)
    }
  }

  function givenUpError(job: Job): EngineError {
    return new EngineError('EXECUTION_TIMEOUT', `${job.method} was given up by its request (timed out, or its client went away) and stopped`)
  }

  function timeoutError(job: Job, how: 'ran' | 'waited' = 'ran'): EngineError {
    return new EngineError(
      'EXECUTION_TIMEOUT',
      how === 'ran'
        ? `${job.method} ran longer than ${callTimeoutMs} ms and was stopped`
        : `${job.method} waited longer than ${callTimeoutMs} ms for a worker and was not run`,
      { timeoutMs: callTimeoutMs },
      TIMEOUT_SUGGESTION,
    )
  }

  function dispatch(slot: Slot, job: Job) {
    const id = ++nextId
    const msg: ToWorker = { type: 'call', id, method: job.method, args: job.args }
    // a call that may have to stop gets a flag (all taken: it still stops at its deadline)
    if (job.deadline !== undefined || job.stop?.signal) {
      job.flag = slot.freeFlags.pop()
      if (job.flag !== undefined) Atomics.store(slot.flags, job.flag, 0)
      msg.stop = { index: job.flag ?? -1, ...(job.deadline !== undefined && { deadline: job.deadline }) }
    }
    try {
      slot.worker.postMessage(msg)
    } catch {
      try {
        slot.worker.postMessage(plainCopy(msg))
      } catch (err) {
        if (job.flag !== undefined) slot.freeFlags.push(job.flag)
        job.flag = undefined
        return job.reject(new EngineError('INTERNAL_ERROR', `cannot pass the request to a worker: ${(err as Error).message}`))
      }
    }
    slot.inflight.set(id, job)
    job.running = { slot, id }
    // computing until its worker says it waits
    job.waiting = undefined
    if (job.deadline !== undefined) {
      job.timer = setTimeout(() => timeOut(slot, id), Math.max(1, job.deadline - Date.now()))
      job.timer.unref()
    }
  }

  function timeOut(slot: Slot, id: number) {
    const job = slot.inflight.get(id)
    if (job) giveUp(job, timeoutError(job))
  }

  /**
   * Answers a call that is no longer wanted (out of time, its request given up) at once, and
   * stops it: out of the queue, or, running, by its flag; a worker that has not let go of it
   * within STOP_GRACE_MS is replaced.
   */
  function giveUp(job: Job, err: EngineError) {
    if (job.abandoned) return
    job.abandoned = true
    job.unlisten?.()
    job.reject(err)
    const queued = queue.indexOf(job)
    if (queued >= 0) return void queue.splice(queued, 1)
    const at = job.running
    if (!at || at.slot.inflight.get(at.id) !== job) return
    if (job.flag !== undefined) Atomics.store(at.slot.flags, job.flag, 1)
    clearTimeout(job.timer)
    job.timer = setTimeout(() => {
      if (at.slot.inflight.get(at.id) === job) replaceWorker(at.slot)
    }, STOP_GRACE_MS)
    job.timer.unref()
  }

  /**
   * A worker that does not let go of a stopped call (a loop the engine cannot stop): replaced; its
   * other calls go to another one, except those whose own time is (all but) up: rerun, each would
   * cost another worker.
   */
  function replaceWorker(slot: Slot) {
    slot.retired = true
    slot.ready = false
    replacements.timeout++
    const others = [...slot.inflight.values()].filter((j) => !j.abandoned)
    for (const j of slot.inflight.values()) clearTimeout(j.timer)
    slot.inflight.clear()
    slot.waiting = 0
    const now = Date.now()
    for (const j of others) {
      j.flag = undefined
      j.running = undefined
      j.waiting = undefined
    }
    // those asked of this worker about itself end here too
    const endsHere = (j: Job) => j.pinned || (j.deadline !== undefined && j.deadline - now <= RERUN_MIN_MS)
    for (const j of others) if (endsHere(j)) giveUp(j, j.pinned ? closedError() : timeoutError(j))
    queue.unshift(...others.filter((j) => !j.abandoned))
    void slot.worker.terminate()
    if (slots[slot.index] === slot) slots[slot.index] = undefined
    respawn(slot.index, 0)
    pump()
  }

  /** a call's deadline: callTimeoutMs from now, or its request's if earlier */
  function deadlineOf(stop: RunStop | undefined): number | undefined {
    const own = callTimeoutMs && callTimeoutMs > 0 ? Date.now() + callTimeoutMs : undefined
    if (stop?.deadline === undefined) return own
    return own === undefined ? stop.deadline : Math.min(own, stop.deadline)
  }

  /** a job for `method`; with a request's stop, given up as soon as that request is */
  function newJob(
    method: EngineOperation,
    args: unknown[],
    resolve: (v: unknown) => void,
    reject: (e: Error) => void,
    stop: RunStop | undefined,
  ): Job | undefined {
    const job: Job = { method, args, resolve, reject, deadline: deadlineOf(stop), ...(stop && { stop }) }
    const signal = stop?.signal as Partial<AbortSignal> | undefined
    if (signal?.aborted) {
      reject(givenUpError(job))
      return undefined
    }
    if (signal && typeof signal.addEventListener === 'function') {
      const onAbort = () => giveUp(job, givenUpError(job))
      signal.addEventListener('abort', onAbort, { once: true })
      job.unlisten = () => signal.removeEventListener!('abort', onAbort)
    }
    return job
  }

  function call<T>(method: EngineOperation, args: unknown[], stop?: RunStop): Promise<T> {
    if (closing) return Promise.reject(closedError())
    return new Promise<T>((resolve, reject) => {
      const job = newJob(method, args, resolve as (v: unknown) => void, reject, stop)
      if (!job) return
      queue.push(job)
      pump()
    })
  }

  /** health from the least busy ready worker, bypassing the queue and the per-worker cap */
  function probeHealth(): Promise<EngineHealth> {
    let best: Slot | undefined
    for (const s of slots) if (s?.ready && !s.retired && (!best || lessBusy(s, best))) best = s
    if (!best) return Promise.reject(new EngineError('INTERNAL_ERROR', 'no simulation worker is ready'))
    const slot = best
    return new Promise<EngineHealth>((resolve, reject) =>
      dispatch(slot, { method: 'health', args: [ON_CHAIN], resolve: resolve as (v: unknown) => void, reject, deadline: deadlineOf(undefined) }),
    )
  }

  /**
   * Forks live in Redis when the cache is Redis: any worker serves any fork. On memory:// a fork
   * lives in one worker's memory, so every fork call goes to the first worker (a replaced first
   * worker starts with no forks: memory:// forks last as long as the worker does).
   */
  function forkCall<T>(method: EngineOperation, args: unknown[], stop?: RunStop): Promise<T> {
    if (cacheUrl && /^rediss?:/i.test(cacheUrl)) return call(method, args, stop)
    if (closing) return Promise.reject(closedError())
    const first = slots[0]
    if (!first?.ready || first.retired) return Promise.reject(new EngineError('STATE_ACCESS_ERROR', 'the worker holding the forks is restarting; retry'))
    return new Promise<T>((resolve, reject) => {
      const job = newJob(method, args, resolve as (v: unknown) => void, reject, stop)
      if (job) dispatch(first, job)
    })
  }

  /** the same call on every ready worker at once, bypassing the queue */
  function callEvery<T>(method: EngineOperation, args: unknown[]): Promise<T>[] {
    return slots
      .filter((s): s is Slot => !!s && s.ready && !s.retired)
      .map(
        (s) =>
          new Promise<T>((resolve, reject) => dispatch(s, { method, args, resolve: resolve as (v: unknown) => void, reject, deadline: deadlineOf(undefined) })),
      )
  }

  /**
   * Every worker's counts, summed, with those of the workers replaced so far: each ready worker is
   * asked (bypassing the queue); one busy computing past METRICS_WAIT_MS counts what it answered
   * last (its late answer is kept for the next scrape).
   */
  async function metrics(): Promise<EngineMetrics> {
    const asked = slots
      .filter((s): s is Slot => !!s && s.ready && !s.retired)
      .map((s) =>
        new Promise<EngineMetrics>((resolve, reject) =>
          dispatch(s, { method: 'metrics', args: [], resolve: resolve as (v: unknown) => void, reject, pinned: true, deadline: deadlineOf(undefined) }),
        )
          .then((m) => {
            if (slots[s.index] === s) s.metrics = m
          })
          .catch(() => undefined),
      )
    let timer: NodeJS.Timeout | undefined
    await Promise.race([Promise.all(asked), new Promise<void>((r) => (timer = setTimeout(r, METRICS_WAIT_MS)))])
    clearTimeout(timer)
    let total = retiredMetrics
    for (const s of slots) if (s?.metrics) total = addEngineMetrics(total, s.metrics, sharedForks)
    return total
  }

  function runs(): EngineRuns {
    let inFlight = 0
    let engines = 0
    for (const s of slots) {
      if (!s || s.retired) continue
      inFlight += s.inflight.size
      if (s.ready) engines++
    }
    return { queued: queue.length, inFlight, engines, replacements: { ...replacements } }
  }

  /**
   * A stored simulation normally lives in the shared store. With Redis out of reach it lives only
   * in the local level of the worker that ran it, so a miss is asked of every worker then (only
   * then: a worker busy with a long trace would hold up every unknown id's 404).
   */
  async function getSimulation(at: RunAt, id: string) {
    const found = await (at.fork === undefined ? call : forkCall)<Awaited<ReturnType<Engine['getSimulation']>>>('getSimulation', [placeOf(at), id], at.stop)
    if (found !== undefined || size < 2 || !(cacheUrl && /^rediss?:/i.test(cacheUrl)) || (await cache.ping())) return found
    const answers = await Promise.allSettled(callEvery<typeof found>('getSimulation', [placeOf(at), id]))
    for (const a of answers) if (a.status === 'fulfilled' && a.value !== undefined) return a.value
    return undefined
  }

  try {
    await Promise.all(Array.from({ length: size }, (_, i) => spawn(i)))
  } catch (err) {
    closing = true
    await Promise.all(slots.map((s) => s && ((s.retired = true), s.worker.terminate())))
    throw err
  }

  /** what every view of the pool shares: health, metrics, runs, stats, close */
  const shared = {
    metrics,
    runs,
    async health() {
      // straight to the least busy worker, never behind queued requests
      const asked = probeHealth()
      // a late answer still counts: it is what the next probe falls back on
      asked.then((h) => (lastHealth = { health: h, at: Date.now() })).catch(() => {})
      let timer: NodeJS.Timeout | undefined
      // the very first probe has nothing to fall back on: it may wait a little longer
      const waitMs = Math.max(opts.healthTimeoutMs ?? 950, lastHealth ? 0 : FIRST_HEALTH_WAIT_MS)
      const late = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), waitMs)))
      const got = await Promise.race([asked.catch(() => undefined), late])
      clearTimeout(timer)
      if (got) return got
      // every worker is busy computing: the last answer if recent, with the cache checked now;
      // with none recent, the upstream cannot be vouched for
      const cacheOk = await cache.ping().catch(() => false)
      if (lastHealth && Date.now() - lastHealth.at <= HEALTH_STALE_MS) return { ...lastHealth.health, cacheOk }
      return { network: lastHealth?.health.network ?? 'unknown', chainId: lastHealth?.health.chainId ?? 0, upstreamOk: false, cacheOk }
    },
    stats: () => ({
      queued: queue.length,
      workers: slots.map((s, index) => ({
        index,
        ready: !!s?.ready,
        inflight: s?.inflight.size ?? 0,
        waiting: s?.waiting ?? 0,
        served: s?.served ?? 0,
        starts: starts[index]!,
      })),
    }),
    async close() {
      if (closing) return
      closing = true
      for (const job of queue.splice(0)) job.reject(closedError())
      await Promise.all(
        slots.map(async (s) => {
          if (!s) return
          s.retired = true
          // let the worker close its engine and Redis connection, but never wait forever
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, 5000)
            s.onClosed = () => (clearTimeout(t), resolve())
            try {
              s.worker.postMessage({ type: 'close' } satisfies ToWorker)
            } catch {
              resolve()
            }
          })
          await s.worker.terminate()
        }),
      )
    },
  } satisfies Pick<WorkerPoolEngine, 'health' | 'metrics' | 'runs' | 'stats' | 'close'>

  /**
   * The pool as an engine: each operation goes to a worker with its address (the chain and fork it
   * names; its stop stays here, where the pool stops the call) and its arguments as given. A call
   * on a fork, and the forks' own operations, go where the forks are (forkCall); getSimulation
   * and health are the pool's own.
   */
  const on = (at: RunAt) => (at.fork === undefined ? call : forkCall)
  const pool: WorkerPoolEngine = {
    simulate: (at, ...a) => on(at)('simulate', [placeOf(at), ...a], at.stop),
    previewSignature: (at, ...a) => on(at)('previewSignature', [placeOf(at), ...a], at.stop),
    simulateSteps: (at, ...a) => on(at)('simulateSteps', [placeOf(at), ...a], at.stop),
    getSimulation: (at, id) => getSimulation(at, id),
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
    ...shared,
  }
  return pool
}

/** what of a call's address crosses to a worker: its chain and fork (the stop is the pool's: WorkerSetup.stopFlags) */
function placeOf({ chain, fork }: RunAt): RunAt {
  return { ...(chain !== undefined && { chain }), ...(fork !== undefined && { fork }) }
}
