/** The hono environment of this service: node bindings (for the socket address) and per-request variables. */
import type { HttpBindings } from '@hono/node-server'
import type { RunAt, RunStop } from '../engine/types.js'

export interface HttpEnv {
  /** node's request and response; `runAt`: the address a fork's routes run their twins' handlers at (src/routes/forkRest.ts) */
  Bindings: Partial<HttpBindings> & { runAt?: RunAt }
  Variables: {
    /** X-Request-Id of this request (the caller's when sane, else a UUID) */
    requestId: string
    /** when the request's runs must stop (src/middleware/requestTimeout.ts) */
    runStop?: RunStop
    /** the named chain the path names (absent: the default chain) */
    chain?: string
    /** where the request's operations run (src/runAt.ts) */
    runAt?: RunAt
    /** the JSON-RPC method a request's metrics name (src/rpc/route.ts: a served method, `batch` or `other`) */
    rpcMethod?: string
  }
}

/** the minimal logger the HTTP layer needs (pino satisfies it) */
export interface HttpLogger {
  info(o: object, msg?: string): void
  warn(o: object, msg?: string): void
  error(o: object, msg?: string): void
}
