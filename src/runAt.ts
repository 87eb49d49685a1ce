/**
 * Where a request's operations run (the engine's RunAt): the chain its path names (the chain
 * middleware of src/app.ts), the fork its path names (a fork's routes), and its stop — its
 * deadline and its client's signal (src/middleware/requestTimeout.ts). Made once per request.
 *
 * @example
 * await ctx.engine.simulate(runAt(c), params)
 */
import type { Context } from 'hono'
import type { RunAt } from '../engine/types.js'
import type { HttpEnv } from './httpEnv.js'

export function runAt(c: Context<HttpEnv>): RunAt {
  const made = c.get('runAt') ?? c.env?.runAt
  if (made) return made
  const chain = c.get('chain')
  const stop = c.get('runStop')
  const at: RunAt = { ...(chain !== undefined && { chain }), ...(stop && { stop }) }
  c.set('runAt', at)
  return at
}
