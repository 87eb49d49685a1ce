/**
 * Answers 504 EXECUTION_TIMEOUT when a request runs past `ms` (interface §2), and stops its runs:
 * the request's stop (`runStop`: its deadline, and its client's signal, aborted once the client
 * has gone away) is part of the request's address (src/runAt.ts) that every engine operation takes, whose runs check it
 * before they start and every few thousand EVM steps (engine/execution/runStop.ts). A run that
 * ends itself at the deadline is answered as the timeout it is, the same 504.
 *
 * @example
 * app.use(requestTimeout({ ms: config.server.request_timeout_ms }))
 * await engine.call(runAt(c), params) // stops when the request is given up
 */
import type { MiddlewareHandler } from 'hono'
import { ApiError } from '../errors/apiError.js'
import type { HttpEnv } from '../httpEnv.js'
import { clientSignal } from '../clientSignal.js'

export interface RequestTimeoutOptions {
  ms: number
}

export function requestTimeout(opts: RequestTimeoutOptions): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const deadline = Date.now() + opts.ms
    // the deadline stops the runs once the request has timed out (each run reads the clock, the
    // worker pool sets a timer of its own); the client's signal once it has gone away
    c.set('runStop', { deadline, signal: clientSignal(c) })
    let timer: NodeJS.Timeout | undefined
    const expired = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), opts.ms)
    })
    const work = next().then(() => 'done' as const)
    work.catch(() => {}) // a late failure after the timeout answer has nowhere to go
    try {
      // a run stopped at the deadline ends its work just before the timer can fire
      if ((await Promise.race([work, expired])) === 'timeout' || Date.now() >= deadline) {
        throw new ApiError(
          'EXECUTION_TIMEOUT',
          `the request ran longer than ${opts.ms} ms`,
          { timeoutMs: opts.ms },
          'simulate fewer calls, pick a smaller trace (cleanStructLogs, disableMemory) or retry later',
        )
      }
    } finally {
      clearTimeout(timer)
    }
  }
}
