/**
 * Serves an app over HTTP with @hono/node-server and stops it gracefully: stop accepting, let the
 * in-flight requests finish (bounded by `graceMs`), close idle keep-alive sockets.
 *
 * @example
 * const server = await listen(app, { host: '127.0.0.1', port: 0 })
 * await fetch(`${server.url}/v1/health`)
 * await server.close()
 */
import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import { serve } from '@hono/node-server'

export interface Listening {
  port: number
  url: string
  /** resolves when every connection is closed (or `graceMs` passed and the rest were cut) */
  close(graceMs?: number): Promise<void>
}

/** what is served: a fetch handler (a Hono app) */
export interface ServedApp {
  fetch: (req: Request, env: never) => Response | Promise<Response>
}

export function listen(app: ServedApp, opts: { host: string; port: number }): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch as never, hostname: opts.host, port: opts.port }) as Server
    server.once('error', reject)
    server.once('listening', () => {
      const { port } = server.address() as AddressInfo
      const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host
      resolve({
        port,
        url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
        close: (graceMs = 10_000) =>
          new Promise<void>((done) => {
            const force = setTimeout(() => server.closeAllConnections(), graceMs)
            force.unref()
            // a keep-alive socket turns idle when its in-flight response ends: close it then, not
            // at the keep-alive timeout
            const sweep = setInterval(() => server.closeIdleConnections(), 50)
            sweep.unref()
            server.close(() => {
              clearTimeout(force)
              clearInterval(sweep)
              done()
            })
            server.closeIdleConnections()
          }),
      })
    })
  })
}
