/**
 * The pool's moving parts (host/workers/workerPool.ts says what the pool does and why): the
 * queue of calls, the slots of the workers that run them, a call's way from the queue to a worker
 * and back, its stop when it is no longer wanted, and the replacement of a worker that died or
 * does not let go of a stopped call. Read top-down: start, the life of a worker, the life of a
 * call, stopping, then what the pool reports.
 */
import { EngineError } from '../../engine/platform/errors.js'
import type { Engine, EngineHealth, EngineMetrics, EngineOperation, RunAt } from '../../engine/types.js'
import type { RunStop } from '../../engine/execution/types.js'
import { addEngineMetrics } from '../../engine/engineMetrics.js'
import { removeSpillOwner } from '../../engine/platform/spill/spillFiles.js'
import { deserializeError, plainCopy, type CacheRequest, type FromWorker, type SerializedError, type ToWorker } from '../protocol.js'
import { answerCacheOp } from './answerCacheOp.js'
import { closedError, deadlineOf, givenUpError, isServing, timeoutError, type Job, type Slot } from './poolJobs.js'
import { leastBusy, pickSlot } from './poolScheduling.js'
import type { PoolSettings } from './poolSettings.js'
import { startWorkerThread } from './workerThread.js'
import type { EngineRuns, WorkerPoolStats } from './workerPool.js'

/** a call that loses its worker with less time than this left is not run again (ms) */
const RERUN_MIN_MS = 100
/** how long a stopped call may take to end in its worker before the worker is replaced, ms */
const STOP_GRACE_MS = 500
/** how long a worker's health answer may stand in for one that is late (workers all busy), ms */
const HEALTH_STALE_MS = 10_000
/** how long the first health probe (no earlier answer to fall back on) waits for a worker, ms */
const FIRST_HEALTH_WAIT_MS = 2_000
/** how long a metrics scrape waits for a worker before counting what it answered last, ms */
const METRICS_WAIT_MS = 1_000
/** how long close() lets a worker close its engine and Redis connection before ending it, ms */
const CLOSE_WAIT_MS = 5000

/** how a worker's start-up promise is settled by its first messages */
interface StartUp {
  resolve(): void
  reject(err: Error): void
}

export class WorkerPool {
  private readonly slots: (Slot | undefined)[]
  /** how often the worker at each index was started (1 + its replacements) */
  private readonly starts: number[]
  private readonly queue: Job[] = []
  private nextId = 0
  /** where pick() starts looking, so idle workers take turns */
  private rotate = 0
  private closing = false
  private lastHealth: { health: EngineHealth; at: number } | undefined
  /** the chain id the first worker to start learnt: its replacements start with it (workerThread.ts) */
  private knownChainId: number | undefined
  /** the counts of workers gone (replaced), as they last answered: the totals never go back */
  private retiredMetrics: EngineMetrics = { forksOpen: 0 }
  private readonly replacements = { crash: 0, timeout: 0 }

  constructor(private readonly settings: PoolSettings) {
    this.slots = new Array(settings.size).fill(undefined)
    this.starts = new Array(settings.size).fill(0)
  }

  /** starts every worker; one failing to start ends the others and fails the start */
  async start(): Promise<void> {
    try {
      await Promise.all(Array.from({ length: this.settings.size }, (_, i) => this.spawn(i)))
    } catch (err) {
      this.closing = true
      await Promise.all(this.slots.map((s) => s && ((s.retired = true), s.worker.terminate())))
      throw err
    }
  }

  // ---- the life of a worker: started, ready, answering, gone ----

  /** starts the worker at `index`; settled when its engine is ready or has failed to start */
  private spawn(index: number): Promise<void> {
    this.starts[index]!++
    const slot = startWorkerThread(this.settings, index, this.knownChainId)
    this.slots[index] = slot
    return new Promise<void>((resolve, reject) => {
      const startUp: StartUp = { resolve, reject }
      slot.worker.on('message', (msg: FromWorker) => this.onMessage(slot, msg, startUp))
      slot.worker.on('error', (err: Error & { code?: string }) => this.onCrash(slot, err, startUp))
      slot.worker.on('exit', (code: number) => this.onExit(slot, code, startUp))
    })
  }

  /** starts the worker at `index` again, retrying with a growing pause while it fails to start */
  private respawn(index: number, attempt: number) {
    if (this.closing) return
    this.spawn(index).catch((err: Error) => {
      const delay = Math.min(30_000, 500 * 2 ** attempt)
      this.settings.logger?.error({ worker: index, err: err.message, retryInMs: delay }, 'simulation worker failed to start')
      setTimeout(() => this.respawn(index, attempt + 1), delay).unref()
    })
  }

  private onMessage(slot: Slot, msg: FromWorker, startUp: StartUp) {
    switch (msg.type) {
      case 'ready':
        return this.onReady(slot, msg.chainId, startUp)
      case 'initError':
        slot.retired = true
        void slot.worker.terminate()
        return startUp.reject(deserializeError(msg.error))
      case 'result':
        return this.onResult(slot, msg.id, msg.ok ? { value: msg.value } : { error: msg.error })
      case 'upstreamWait':
        return this.upstreamWait(slot, msg.id, msg.waiting)
      case 'cache':
        return void this.answerCache(slot, msg)
      case 'log':
        this.settings.logger?.[msg.level]({ ...msg.obj, worker: slot.index }, msg.msg)
        return
      case 'closed':
        slot.onClosed?.()
        return
    }
  }

  private onReady(slot: Slot, chainId: number | undefined, startUp: StartUp) {
    if (chainId !== undefined) this.knownChainId ??= chainId
    slot.ready = true
    startUp.resolve()
    this.pump()
  }

  /** an uncaught exception inside the worker or its heap bound reached; 'exit' follows */
  private onCrash(slot: Slot, err: Error & { code?: string }, startUp: StartUp) {
    this.settings.logger?.error({ worker: slot.index, err: err.message, code: err.code }, 'simulation worker crashed')
    if (!slot.ready) startUp.reject(err)
  }

  /**
   * A worker is gone: its calls are answered INTERNAL_ERROR (those given up already were
   * answered), its temporary files removed, and, unless it was replaced or the pool closes, a
   * new one starts in its place.
   */
  private onExit(slot: Slot, code: number, startUp: StartUp) {
    slot.ready = false
    this.keepCountsOf(slot)
    // its unclaimed temporary files (a trace cut short, a result nobody took) go with it
    if (slot.spillOwner) removeSpillOwner(slot.spillOwner)
    for (const [id, job] of slot.inflight) {
      clearTimeout(job.timer)
      job.unlisten?.()
      slot.inflight.delete(id)
      if (!job.abandoned) job.reject(new EngineError('INTERNAL_ERROR', 'a simulation worker stopped unexpectedly', { exitCode: code }))
    }
    if (this.slots[slot.index] === slot) this.slots[slot.index] = undefined
    if (!slot.retired && !this.closing) {
      this.replacements.crash++
      this.settings.logger?.warn({ worker: slot.index, exitCode: code }, 'simulation worker exited; starting a new one')
      this.respawn(slot.index, 0)
    }
    startUp.reject(new Error(`simulation worker exited during start-up (code ${code})`))
  }

  /** a gone worker's counts so far stay in the totals; forks open is a gauge, not carried over */
  private keepCountsOf(slot: Slot) {
    if (slot.metrics) this.retiredMetrics = addEngineMetrics(this.retiredMetrics, { ...slot.metrics, forksOpen: 0 }, false)
    slot.metrics = undefined
  }

  /**
   * A result answers only once the writes the worker sent before it are done, so a GET by id
   * after the answer finds the simulation (in a memory store, and for the simulations one of
   * several HTTP processes keeps, they are done already; a write forwarded to the primary over
   * IPC takes a while).
   */
  private onResult(slot: Slot, id: number, outcome: { value: unknown } | { error: SerializedError }) {
    if (slot.writes.pending === 0) return this.settle(slot, id, outcome)
    return void slot.writes.last.then(() => this.settle(slot, id, outcome))
  }

  /** a worker's cache operation, done on the pool's store; its one-way writes are kept in order */
  private answerCache(slot: Slot, msg: CacheRequest) {
    const done = answerCacheOp(this.settings.cache, msg, (reply) => {
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

  // ---- the life of a call: asked, queued, run on a worker, answered ----

  call<T>(method: EngineOperation, args: unknown[], stop?: RunStop): Promise<T> {
    if (this.closing) return Promise.reject(closedError())
    return new Promise<T>((resolve, reject) => {
      const job = this.newJob(method, args, resolve as (v: unknown) => void, reject, stop)
      if (!job) return
      this.queue.push(job)
      this.pump()
    })
  }

  /**
   * Forks live in Redis when the cache is Redis: any worker serves any fork. On memory:// a fork
   * lives in one worker's memory, so every fork call goes to the first worker (a replaced first
   * worker starts with no forks: memory:// forks last as long as the worker does).
   */
  forkCall<T>(method: EngineOperation, args: unknown[], stop?: RunStop): Promise<T> {
    if (this.settings.redisCache) return this.call(method, args, stop)
    if (this.closing) return Promise.reject(closedError())
    const first = this.slots[0]
    if (!first?.ready || first.retired) return Promise.reject(new EngineError('STATE_ACCESS_ERROR', 'the worker holding the forks is restarting; retry'))
    return new Promise<T>((resolve, reject) => {
      const job = this.newJob(method, args, resolve as (v: unknown) => void, reject, stop)
      if (job) this.dispatch(first, job)
    })
  }

  /**
   * A stored simulation normally lives in the shared store. With Redis out of reach it lives only
   * in the local level of the worker that ran it, so a miss is asked of every worker then (only
   * then: a worker busy with a long trace would hold up every unknown id's 404).
   */
  async getSimulation(place: RunAt, id: string, stop?: RunStop) {
    const ask = place.fork === undefined ? this.call.bind(this) : this.forkCall.bind(this)
    const found = await ask<Awaited<ReturnType<Engine['getSimulation']>>>('getSimulation', [place, id], stop)
    if (found !== undefined || this.settings.size < 2 || !this.settings.redisCache || (await this.settings.cache.ping())) return found
    const answers = await Promise.allSettled(this.callEvery<typeof found>('getSimulation', [place, id]))
    for (const a of answers) if (a.status === 'fulfilled' && a.value !== undefined) return a.value
    return undefined
  }

  /** the same call on every ready worker at once, bypassing the queue */
  private callEvery<T>(method: EngineOperation, args: unknown[], pinned?: true): Promise<T>[] {
    return this.slots.filter(isServing).map((s) => this.callOn<T>(s, method, args, pinned))
  }

  /** a call on one worker, bypassing the queue and the per-worker cap */
  private callOn<T>(slot: Slot, method: EngineOperation, args: unknown[], pinned?: true): Promise<T> {
    const deadline = deadlineOf(this.settings.callTimeoutMs, undefined)
    return new Promise<T>((resolve, reject) =>
      this.dispatch(slot, { method, args, resolve: resolve as (v: unknown) => void, reject, deadline, ...(pinned && { pinned }) }),
    )
  }

  /** a job for `method`; with a request's stop, given up as soon as that request is */
  private newJob(method: EngineOperation, args: unknown[], resolve: (v: unknown) => void, reject: (e: Error) => void, stop: RunStop | undefined) {
    const job: Job = { method, args, resolve, reject, deadline: deadlineOf(this.settings.callTimeoutMs, stop), ...(stop && { stop }) }
    const signal = stop?.signal as Partial<AbortSignal> | undefined
    if (signal?.aborted) {
      reject(givenUpError(job))
      return undefined
    }
    if (signal && typeof signal.addEventListener === 'function') {
      const onAbort = () => this.giveUp(job, givenUpError(job))
      signal.addEventListener('abort', onAbort, { once: true })
      job.unlisten = () => signal.removeEventListener!('abort', onAbort)
    }
    return job
  }

  /** hands queued calls to workers while one has room; a call whose time ran out waiting never runs */
  private pump() {
    while (this.queue.length > 0) {
      // its request has been answered 504 already
      const head = this.queue[0]!
      if (head.deadline !== undefined && head.deadline <= Date.now()) {
        this.queue.shift()
        head.unlisten?.()
        head.reject(timeoutError(head, this.settings.callTimeoutMs, 'waited'))
        continue
      }
      const slot = this.pick()
      if (!slot) return
      this.dispatch(slot, this.queue.shift()!)
    }
  }

  /** the least-busy worker with room for a call (poolScheduling.ts); idle ties rotate */
  private pick(): Slot | undefined {
    const best = pickSlot(this.slots, this.rotate, this.settings.maxComputing, this.settings.maxHeld)
    if (best) this.rotate = (best.index + 1) % this.settings.size
    return best
  }

  /** sends a call to its worker, with a stop flag when it may have to stop, and arms its deadline */
  private dispatch(slot: Slot, job: Job) {
    const id = ++this.nextId
    const msg: ToWorker = { type: 'call', id, method: job.method, args: job.args }
    // a call that may have to stop gets a flag (all taken: it still stops at its deadline)
    if (job.deadline !== undefined || job.stop?.signal) {
      job.flag = slot.freeFlags.pop()
      if (job.flag !== undefined) Atomics.store(slot.flags, job.flag, 0)
      msg.stop = { index: job.flag ?? -1, ...(job.deadline !== undefined && { deadline: job.deadline }) }
    }
    if (!this.post(slot, job, msg)) return
    slot.inflight.set(id, job)
    job.running = { slot, id }
    // computing until its worker says it waits
    job.waiting = undefined
    if (job.deadline !== undefined) {
      job.timer = setTimeout(() => this.timeOut(slot, id), Math.max(1, job.deadline - Date.now()))
      job.timer.unref()
    }
  }

  /**
   * Posts a call to its worker; arguments that cannot be cloned as they are (class instances
   * with methods) cross as plain copies, and a call that cannot cross at all is answered here.
   */
  private post(slot: Slot, job: Job, msg: ToWorker): boolean {
    try {
      slot.worker.postMessage(msg)
    } catch {
      try {
        slot.worker.postMessage(plainCopy(msg))
      } catch (err) {
        if (job.flag !== undefined) slot.freeFlags.push(job.flag)
        job.flag = undefined
        job.reject(new EngineError('INTERNAL_ERROR', `cannot pass the request to a worker: ${(err as Error).message}`))
        return false
      }
    }
    return true
  }

  /**
   * A call starts or stops waiting on the upstream: waiting, it frees its place under the cap (a
   * queued call may take it); computing again, it counts at once (see the top of workerPool.ts).
   * A word about a call already answered is late and ignored.
   */
  private upstreamWait(slot: Slot, id: number, waiting: boolean) {
    const job = slot.inflight.get(id)
    if (!job || !!job.waiting === waiting) return
    job.waiting = waiting
    slot.waiting += waiting ? 1 : -1
    if (waiting) this.pump()
  }

  /** a worker's answer to a call: its place and stop flag are free again, and the call is answered unless it was given up */
  private settle(slot: Slot, id: number, outcome: { value: unknown } | { error: SerializedError }) {
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
    this.pump()
  }

  // ---- stopping: a call out of time or given up, a worker that does not let go ----

  private timeOut(slot: Slot, id: number) {
    const job = slot.inflight.get(id)
    if (job) this.giveUp(job, timeoutError(job, this.settings.callTimeoutMs))
  }

  /**
   * Answers a call that is no longer wanted (out of time, its request given up) at once, and
   * stops it: out of the queue, or, running, by its flag; a worker that has not let go of it
   * within STOP_GRACE_MS is replaced.
   */
  private giveUp(job: Job, err: EngineError) {
    if (job.abandoned) return
    job.abandoned = true
    job.unlisten?.()
    job.reject(err)
    const queued = this.queue.indexOf(job)
    if (queued >= 0) return void this.queue.splice(queued, 1)
    const at = job.running
    if (!at || at.slot.inflight.get(at.id) !== job) return
    if (job.flag !== undefined) Atomics.store(at.slot.flags, job.flag, 1)
    clearTimeout(job.timer)
    job.timer = setTimeout(() => {
      if (at.slot.inflight.get(at.id) === job) this.replaceWorker(at.slot)
    }, STOP_GRACE_MS)
    job.timer.unref()
  }

  /**
   * A worker that does not let go of a stopped call (a loop the engine cannot stop): replaced; its
   * other calls go to another one, except those whose own time is (all but) up: rerun, each would
   * cost another worker.
   */
  private replaceWorker(slot: Slot) {
    slot.retired = true
    slot.ready = false
    this.replacements.timeout++
    const others = this.takeCallsFrom(slot)
    const now = Date.now()
    // those asked of this worker about itself end here too
    const endsHere = (j: Job) => j.pinned || (j.deadline !== undefined && j.deadline - now <= RERUN_MIN_MS)
    for (const j of others) if (endsHere(j)) this.giveUp(j, j.pinned ? closedError() : timeoutError(j, this.settings.callTimeoutMs))
    this.queue.unshift(...others.filter((j) => !j.abandoned))
    void slot.worker.terminate()
    if (this.slots[slot.index] === slot) this.slots[slot.index] = undefined
    this.respawn(slot.index, 0)
    this.pump()
  }

  /** the calls a worker holds that are still wanted, taken off it as if never dispatched */
  private takeCallsFrom(slot: Slot): Job[] {
    const others = [...slot.inflight.values()].filter((j) => !j.abandoned)
    for (const j of slot.inflight.values()) clearTimeout(j.timer)
    slot.inflight.clear()
    slot.waiting = 0
    for (const j of others) {
      j.flag = undefined
      j.running = undefined
      j.waiting = undefined
    }
    return others
  }

  // ---- what the pool reports: health, metrics, runs, stats; and its close ----

  /**
   * Health from the least busy ready worker, straight past the queued requests. When every worker
   * is busy computing, the last answer if recent, with the cache checked now; with none recent,
   * the upstream cannot be vouched for.
   */
  async health(): Promise<EngineHealth> {
    const asked = this.probeHealth()
    // a late answer still counts: it is what the next probe falls back on
    asked.then((h) => (this.lastHealth = { health: h, at: Date.now() })).catch(() => {})
    // the very first probe has nothing to fall back on: it may wait a little longer
    const got = await within(asked, Math.max(this.settings.healthTimeoutMs, this.lastHealth ? 0 : FIRST_HEALTH_WAIT_MS))
    if (got) return got
    const cacheOk = await this.settings.cache.ping().catch(() => false)
    const last = this.lastHealth
    if (last && Date.now() - last.at <= HEALTH_STALE_MS) return { ...last.health, cacheOk }
    return { network: last?.health.network ?? 'unknown', chainId: last?.health.chainId ?? 0, upstreamOk: false, cacheOk }
  }

  private probeHealth(): Promise<EngineHealth> {
    const best = leastBusy(this.slots)
    if (!best) return Promise.reject(new EngineError('INTERNAL_ERROR', 'no simulation worker is ready'))
    return this.callOn<EngineHealth>(best, 'health', [])
  }

  /**
   * Every worker's counts, summed, with those of the workers replaced so far: each ready worker is
   * asked (bypassing the queue); one busy computing past METRICS_WAIT_MS counts what it answered
   * last (its late answer is kept for the next scrape).
   */
  async metrics(): Promise<EngineMetrics> {
    const asked = this.slots.filter(isServing).map((s) =>
      this.callOn<EngineMetrics>(s, 'metrics', [], true)
        .then((m) => {
          if (this.slots[s.index] === s) s.metrics = m
        })
        .catch(() => undefined),
    )
    await within(Promise.all(asked), METRICS_WAIT_MS)
    let total = this.retiredMetrics
    for (const s of this.slots) if (s?.metrics) total = addEngineMetrics(total, s.metrics, this.settings.redisCache)
    return total
  }

  runs(): EngineRuns {
    let inFlight = 0
    let engines = 0
    for (const s of this.slots) {
      if (!s || s.retired) continue
      inFlight += s.inflight.size
      if (s.ready) engines++
    }
    return { queued: this.queue.length, inFlight, engines, replacements: { ...this.replacements } }
  }

  stats(): WorkerPoolStats {
    return {
      queued: this.queue.length,
      workers: this.slots.map((s, index) => ({
        index,
        ready: !!s?.ready,
        inflight: s?.inflight.size ?? 0,
        waiting: s?.waiting ?? 0,
        served: s?.served ?? 0,
        starts: this.starts[index]!,
      })),
    }
  }

  /** answers the queued calls as shut down and closes every worker */
  async close(): Promise<void> {
    if (this.closing) return
    this.closing = true
    for (const job of this.queue.splice(0)) job.reject(closedError())
    await Promise.all(this.slots.map((s) => s && closeWorker(s)))
  }
}

/** lets a worker close its engine and Redis connection, but never waits forever, then ends it */
async function closeWorker(s: Slot): Promise<void> {
  s.retired = true
  await new Promise<void>((resolve) => {
    const t = setTimeout(resolve, CLOSE_WAIT_MS)
    s.onClosed = () => (clearTimeout(t), resolve())
    try {
      s.worker.postMessage({ type: 'close' } satisfies ToWorker)
    } catch {
      resolve()
    }
  })
  await s.worker.terminate()
}

/** `promise`'s value, or undefined when it fails or is not settled within `ms` */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), ms)))
  try {
    return await Promise.race([promise.catch(() => undefined), late])
  } finally {
    clearTimeout(timer)
  }
}
