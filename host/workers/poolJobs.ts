/**
 * The pool's two records: a job (one call, from when it is asked until it is answered) and a
 * slot (one worker thread and the calls it holds), with the errors a job is answered with when
 * it does not run to its end.
 */
import type { Worker } from 'node:worker_threads'
import { EngineError, TIMEOUT_SUGGESTION } from '../../engine/platform/errors.js'
import type { EngineMetrics, EngineOperation } from '../../engine/types.js'
import type { RunStop } from '../../engine/execution/types.js'

export interface Job {
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

export interface Slot {
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
  /** its directory of temporary files, removed when it exits */
  spillOwner?: string
}

/** a slot for a worker just started, holding no call yet, every stop flag free */
export function newSlot(index: number, worker: Worker, stopFlags: SharedArrayBuffer, spillOwner: string | undefined): Slot {
  const count = stopFlags.byteLength / Int32Array.BYTES_PER_ELEMENT
  return {
    index,
    worker,
    ready: false,
    retired: false,
    inflight: new Map(),
    waiting: 0,
    served: 0,
    writes: { pending: 0, last: Promise.resolve() },
    flags: new Int32Array(stopFlags),
    freeFlags: Array.from({ length: count }, (_, i) => count - 1 - i),
    ...(spillOwner && { spillOwner }),
  }
}

/** a slot that takes calls: started, and neither replaced nor closing */
export const isServing = (s: Slot | undefined): s is Slot => !!s && s.ready && !s.retired

/** a call's deadline: callTimeoutMs from now, or its request's if earlier */
export function deadlineOf(callTimeoutMs: number | undefined, stop: RunStop | undefined): number | undefined {
  const own = callTimeoutMs && callTimeoutMs > 0 ? Date.now() + callTimeoutMs : undefined
  if (stop?.deadline === undefined) return own
  return own === undefined ? stop.deadline : Math.min(own, stop.deadline)
}

export const closedError = () => new EngineError('INTERNAL_ERROR', 'the engine is shut down')

export function givenUpError(job: Job): EngineError {
  return new EngineError('EXECUTION_TIMEOUT', `${job.method} was given up by its request (timed out, or its client went away) and stopped`)
}

export function timeoutError(job: Job, callTimeoutMs: number | undefined, how: 'ran' | 'waited' = 'ran'): EngineError {
  return new EngineError(
    'EXECUTION_TIMEOUT',
    how === 'ran'
      ? `${job.method} ran longer than ${callTimeoutMs} ms and was stopped`
      : `${job.method} waited longer than ${callTimeoutMs} ms for a worker and was not run`,
    { timeoutMs: callTimeoutMs },
    TIMEOUT_SUGGESTION,
  )
}
