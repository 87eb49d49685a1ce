/**
 * A load balancer in a few lines of node:http, as the tests need one: each request goes to the
 * next backend in turn; one refused by a backend before it ran (connection refused or reset
 * before an answer, or `503` with `Retry-After`: the service's answer while it drains) is sent
 * to the next backend instead (each backend tried once), as deploy/nginx.conf does (`proxy_next_upstream … http_503`).
 * Answers stream through unbuffered. `X-Backend` on the answer names the backend that gave it.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http'

export interface RoundRobinProxy {
  url: string
  close(): Promise<void>
}

type Outcome = { res: IncomingMessage } | { retry: true }

function forward(backend: string, req: IncomingMessage, body: Buffer): Promise<Outcome> {
  return new Promise((resolve) => {
    const out = request(`${backend}${req.url}`, { method: req.method, headers: { ...req.headers, host: new URL(backend).host } }, (res) => {
      if (res.statusCode === 503 && res.headers['retry-after'] !== undefined) {
        res.resume()
        resolve({ retry: true })
      } else resolve({ res })
    })
    out.on('error', () => resolve({ retry: true }))
    out.end(body)
  })
}

export async function startRoundRobinProxy(backends: string[]): Promise<RoundRobinProxy> {
  let next = 0
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const body = Buffer.concat(chunks)
    // this request's turn, then each other backend once
    const start = next++
    for (let tries = 0; tries < backends.length; tries++) {
      const backend = backends[(start + tries) % backends.length]!
      const outcome = await forward(backend, req, body)
      if ('retry' in outcome) continue
      res.writeHead(outcome.res.statusCode!, { ...outcome.res.headers, 'x-backend': backend })
      outcome.res.pipe(res)
      return
    }
    res.writeHead(502, { 'content-type': 'text/plain' }).end('no backend answered')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
