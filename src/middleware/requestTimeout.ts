/**
 * Answers 504 EXECUTION_TIMEOUT when a request runs past `ms` (decisions §2). The handler cannot
 * be cancelled from here (the engine bounds its own work, e.g. the worker pool's call timeout);
 * this guarantees the caller an answer in bounded time.
 *
 * @example
 * app.use(requestTimeout({ ms: config.server.request_timeout_ms }))
 */
import type { MiddlewareHandler } from 'hono'
import { ApiError } from '../errors/apiError.js'
import type { HttpEnv } from '../httpEnv.js'

export interface RequestTimeoutOptions {
  ms: number
}

export function requestTimeout(opts: RequestTimeoutOptions): MiddlewareHandler<HttpEnv> {
  return async (_c, next) => {
    let timer: NodeJS.Timeout | undefined
    const expired = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), opts.ms)
    })
    const work = next().then(() => 'done' as const)
    work.catch(() => {}) // a late failure after the timeout answer has nowhere to go
    try {
      if ((await Promise.race([work, expired])) === 'timeout') {
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
