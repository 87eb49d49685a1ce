/**
 * An error that will pass by itself — the fork store while a Redis primary fails over, or while it
 * reconnects — says so in its details (`retryAfterSeconds`); the HTTP layer answers it with a
 * `Retry-After` header of that many seconds, on REST and on the JSON-RPC endpoints alike.
 *
 * @example
 * retryAfterOf({ cause: 'timeout', retryAfterSeconds: 1 }) // 1
 */

/** the seconds an error's details (or a JSON-RPC error's data) say to wait before asking again */
export function retryAfterOf(details: unknown): number | undefined {
  const seconds = (details as { retryAfterSeconds?: unknown } | null | undefined)?.retryAfterSeconds
  return typeof seconds === 'number' && Number.isInteger(seconds) && seconds > 0 ? seconds : undefined
}
