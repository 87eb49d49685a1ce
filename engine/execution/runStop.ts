/**
 * Stops a run in place once its request is given up (engine/execution/types.ts RunStop): before a
 * run starts, and every STOP_EVERY steps of ethereumjs' interpreter while it runs, even a run that
 * never yields (a loop of JUMPs runs synchronously from its first step to its last: no timer, no
 * message could interrupt it, only a check inside the loop).
 *
 * The check sits in ethereumjs' interpreter loop (our patch of `Interpreter.run`, patches/): a frame
 * reads its EVM's watch once, and a run that carries one (`watchRunStop`) counts its steps down and
 * calls `check` every STOP_EVERY steps; other runs pay one test per step. Such a run also lets the
 * event loop in every YIELD_EVERY_MS: where the engine runs on the thread that serves HTTP, a run
 * that never waits for anything would otherwise keep the abort of its gone client (and every other
 * request) out until it ends. The error it throws is not an EVM error, so the interpreter passes it
 * up through every frame and runTx, as it does the trace timeout's
 * (engine/execution/tracingAdapter.ts): the run ends with EXECUTION_TIMEOUT and its engine call
 * with it.
 *
 * @example
 * checkRunStop(ctx.stop) // before the run
 * if (ctx.stop) watchRunStop(vm.evm, ctx.stop) // during it
 */
import { EngineError, TIMEOUT_SUGGESTION } from '../platform/errors.js'
import { interpreterPrototype } from './interpreterModule.js'
import type { RunStop } from './types.js'

/** steps between two checks (a step of ethereumjs costs tens of ns at least: a check every ~0.1 ms) */
export const STOP_EVERY = 2048

/** how long a watched run computes before it lets the event loop in once (ms) */
export const YIELD_EVERY_MS = 25

/** what the patched interpreter loop reads from an EVM (`_runStopWatch`) */
interface Watch {
  /** steps left before the next check */
  countdown: number
  /** throws when the run must stop; a promise when the run lets the event loop in first */
  check(): Promise<void> | undefined
}

/** why the run must stop now, or undefined */
export function runStopped(stop: RunStop): EngineError | undefined {
  if (stop.signal?.aborted) {
    return new EngineError('EXECUTION_TIMEOUT', 'the request was given up (it timed out or its client went away): its run was stopped')
  }
  if (stop.deadline !== undefined && Date.now() > stop.deadline) {
    return new EngineError('EXECUTION_TIMEOUT', 'the request ran past its time limit: its run was stopped', undefined, TIMEOUT_SUGGESTION)
  }
  return undefined
}

/** throws the EXECUTION_TIMEOUT that ends a run whose request is given up */
export function checkRunStop(stop: RunStop | undefined): void {
  const stopped = stop && runStopped(stop)
  if (stopped) throw stopped
}

/** the runs of this EVM stop where `stop` says */
export function watchRunStop(evm: object, stop: RunStop): void {
  let yieldedAt = Date.now()
  const watch: Watch = {
    countdown: STOP_EVERY,
    check() {
      watch.countdown = STOP_EVERY
      checkRunStop(stop)
      // a long run lets the event loop in now and then: on a thread that serves HTTP too (an
      // engine in process) the abort of a client that went away is seen, and other requests
      // are answered meanwhile
      const now = Date.now()
      if (now - yieldedAt < YIELD_EVERY_MS) return undefined
      yieldedAt = now
      return new Promise<void>((resolve) => setImmediate(resolve)).then(() => checkRunStop(stop))
    },
  }
  ;(evm as { _runStopWatch?: Watch })._runStopWatch = watch
}

/** whether the interpreter's loop carries the check (our patch applied; asserted by a test) */
export let runStopInstalled = false

async function detectRunStop(): Promise<void> {
  const proto = (await interpreterPrototype()) as { run?: (...a: unknown[]) => unknown } | undefined
  runStopInstalled = typeof proto?.run === 'function' && proto.run.toString().includes('_runStopWatch')
}

await detectRunStop()
