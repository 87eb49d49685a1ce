/**
 * What a failure of the fork store tells the caller: 503 FORKS_UNAVAILABLE with a time to retry
 * after (`details.retryAfterSeconds`, the `Retry-After` header), and whether the change may have
 * landed. Redis refusing the command, or a connection that never took it, leaves the fork
 * unchanged; a command sent and not answered (a timeout, a socket lost under it) or a write no
 * replica acknowledged may have landed whole or not at all: the client reads the fork before
 * sending again. A failover of a Redis Cluster primary answers these until its replica has taken
 * over.
 *
 * @example
 * throw forkStoreError(err, 'redis://***:***@cache:6379/0', true)
 */
import { redisModule } from './redisModule.js'
import { EngineError } from '../../engine/platform/errors.js'

/** seconds a client waits before it asks again: a failover takes the cluster's node timeout, a reconnect less */
export const RETRY_AFTER_SECONDS = 1

/** a write the primary took that no replica acknowledged in time */
export class NotReplicatedError extends Error {
  constructor() {
    super('no replica acknowledged the write in time')
  }
}

/** true when the command cannot have reached Redis, or Redis refused it without running it */
function neverRan(e: unknown): boolean {
  const { ClientClosedError, ClientOfflineError, ConnectionTimeoutError, ErrorReply, RootNodesUnavailableError } = redisModule()
  if (e instanceof ErrorReply || e instanceof ClientOfflineError || e instanceof ClientClosedError) return true
  if (e instanceof ConnectionTimeoutError || e instanceof RootNodesUnavailableError) return true
  return /ECONNREFUSED|The client is closed|not connected/i.test((e as Error)?.message ?? '')
}

export function forkStoreError(e: unknown, where: string, write: boolean): EngineError {
  const cause = e instanceof NotReplicatedError ? e.message : ((e as Error)?.message ?? String(e))
  const details = { cause, retryAfterSeconds: RETRY_AFTER_SECONDS }
  if (write && !neverRan(e)) {
    return new EngineError(
      'FORKS_UNAVAILABLE',
      e instanceof NotReplicatedError
        ? `the fork store at ${where} did not copy the change to a replica in time: the change may have landed whole or not at all`
        : `the fork store at ${where} did not answer in time: the change may have landed whole or not at all`,
      details,
      'read the fork (eth_blockNumber, the receipt) before sending again',
    )
  }
  return new EngineError(
    'FORKS_UNAVAILABLE',
    `the fork store at ${where} did not answer: the fork is unchanged`,
    details,
    'retry when the cache store is reachable',
  )
}
