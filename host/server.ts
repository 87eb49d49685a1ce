/**
 * Serves an app over HTTP with @hono/node-server, and stops it in one of two ways:
 * - `drain`: `drain.draining` turns true at once (readiness answers 503, src/routes/health.ts; the
 *   app answers what arrives meanwhile), the server keeps accepting while the requests in flight
 *   at that moment run to their end, bounded by `graceMs`, then closes as `close` does;
 * - `close`: stops accepting, lets the requests in flight finish (bounded by `graceMs`), closes
 *   every connection once its answer is sent.
 * Once draining, every answer not started yet says `Connection: close`, so a kept-alive
 * connection ends after its current answer instead of being cut while idle.
 *
 * @example
 * const drain = createDrainFlag()
 * const server = await listen(app, { host: '127.0.0.1', port: 0, drain })
 * await fetch(`${server.url}/v1/health`)
 * const { cut } = await server.drain(25_000) // cut: requests still unanswered when the grace passed
 */
import type { AddressInfo } from 'node:net'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { serve } from '@hono/node-server'

/** whether the server is draining: set by `close`, read by readiness */
export interface DrainFlag {
  draining: boolean
}

export const createDrainFlag = (): DrainFlag => ({ draining: false })

export interface Listening {
  port: number
  url: string
  /** requests whose answer has not been sent in full */
  inFlight(): number
  /**
   * Drains, then closes: resolves when every connection is closed; `cut` counts the requests
   * still in flight when `graceMs` passed and their connections were closed under them.
   */
  drain(graceMs: number): Promise<{ cut: number }>
  /** stops accepting at once; resolves when every connection is closed (the rest cut once `graceMs` passed) */
  close(graceMs?: number): Promise<void>
}

/** what is served: a fetch handler (a Hono app) */
export interface ServedApp {
  fetch: (req: Request, env: never) => Response | Promise<Response>
}

export function listen(app: ServedApp, opts: { host: string; port: number; drain?: DrainFlag }): Promise<Listening> {
  const drain = opts.drain ?? createDrainFlag()
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch as never, hostname: opts.host, port: opts.port }) as Server
    const open = trackAnswers(server, drain)
    server.once('error', reject)
    server.once('listening', () => {
      const { port } = server.address() as AddressInfo
      const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host
      resolve({
        port,
        url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
        inFlight: () => open.size,
        drain: (graceMs) => drainThenClose(server, drain, open, graceMs),
        close: (graceMs = 10_000) => closeDraining(server, drain, open, graceMs).then(() => undefined),
      })
    })
  })
}

/** a server listening before its app exists (a development node binds its port while its engine loads) */
export interface ListeningAhead extends Listening {
  /** the flag the server drains by: hand it to the app's parts */
  drainFlag: DrainFlag
  /** from now on `app` answers, the requests waiting for it included */
  serve(app: ServedApp): void
}

/**
 * Listens at once: until `serve(app)`, a request is answered by `early` when it can (a question
 * whose answer is known without the app, e.g. a chain id given on the command line) and otherwise
 * waits for the app. Close it if the app never comes: the requests waiting are cut.
 */
export async function listenAhead(early: (req: Request) => Promise<Response | undefined>, opts: { host: string; port: number }): Promise<ListeningAhead> {
  const drainFlag = createDrainFlag()
  let app: ServedApp | undefined
  let given: (app: ServedApp) => void = () => undefined
  const ready = new Promise<ServedApp>((resolve) => (given = resolve))
  const front: ServedApp = {
    async fetch(req, env) {
      if (app) return app.fetch(req, env)
      const answer = await early(req)
      return answer ?? (await ready).fetch(req, env)
    },
  }
  const server = await listen(front, { ...opts, drain: drainFlag })
  return {
    ...server,
    drainFlag,
    serve(a) {
      app = a
      given(a)
    },
  }
}

/**
 * The answers being written, so a drain can mark them `Connection: close`: Node keeps a
 * connection alive after its answer unless the answer says otherwise, and an idle connection
 * closed under a client that is just sending its next request fails that request.
 */
function trackAnswers(server: Server, drain: DrainFlag): Set<ServerResponse> {
  const open = new Set<ServerResponse>()
  // ahead of the app's listener: its answer may start before a later listener runs
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    open.add(res)
    res.once('close', () => open.delete(res))
    // a request that reaches a draining server: its answer is its connection's last
    if (drain.draining && !res.headersSent) res.setHeader('Connection', 'close')
  })
  return open
}

/** keeps accepting until the requests in flight now have ended (or the grace passed), then closes */
async function drainThenClose(server: Server, drain: DrainFlag, open: Set<ServerResponse>, graceMs: number): Promise<{ cut: number }> {
  const started = Date.now()
  drain.draining = true
  markLast(open)
  const inFlight = [...open].map((res) => new Promise<void>((resolve) => res.once('close', () => resolve())))
  let timer: NodeJS.Timeout | undefined
  const graceOver = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))
  await Promise.race([Promise.all(inFlight), graceOver])
  clearTimeout(timer)
  return closeDraining(server, drain, open, Math.max(0, graceMs - (Date.now() - started)))
}

/** answers whose headers are not sent yet take `Connection: close` (@hono/node-server's writeHead adds to them) */
function markLast(open: Set<ServerResponse>): void {
  for (const res of open) if (!res.headersSent) res.setHeader('Connection', 'close')
}

function closeDraining(server: Server, drain: DrainFlag, open: Set<ServerResponse>, graceMs: number): Promise<{ cut: number }> {
  drain.draining = true
  markLast(open)
  return new Promise((done) => {
    let cut = 0
    const force = setTimeout(() => {
      cut = open.size
      server.closeAllConnections()
    }, graceMs)
    force.unref()
    // an answer whose headers were sent before the drain (a streamed struct log) leaves its
    // connection idle when it ends: close it then, not at the keep-alive timeout
    const sweep = setInterval(() => server.closeIdleConnections(), 50)
    sweep.unref()
    server.close(() => {
      clearTimeout(force)
      clearInterval(sweep)
      done({ cut })
    })
    server.closeIdleConnections()
  })
}
