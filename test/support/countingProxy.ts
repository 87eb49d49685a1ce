/**
 * A JSON-RPC proxy on a local port in front of a real upstream (Anvil) that counts the requests
 * per method, batches included: the way to see what the engine really fetched upstream.
 */
import { createServer, type Server } from 'node:http'

export interface CountingProxy {
  url: string
  /** calls per method since the start (or the last reset) */
  counts(): Record<string, number>
  total(methods?: string[]): number
  /** HTTP requests (round trips) since the start (or the last reset); a batch is one */
  requests(): number
  reset(): void
  close(): Promise<void>
}

export interface CountingProxyOptions {
  /** added to every round trip, ms: a stand-in for the distance to a hosted node */
  delayMs?: number
}

export async function startCountingProxy(upstream: string, opts: CountingProxyOptions = {}): Promise<CountingProxy> {
  let counts: Record<string, number> = {}
  let requests = 0
  const server: Server = createServer(async (req, res) => {
    requests++
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    try {
      const parsed = JSON.parse(body) as { method?: string } | { method?: string }[]
      for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
        if (m?.method) counts[m.method] = (counts[m.method] ?? 0) + 1
      }
    } catch {
      counts['<unparsable>'] = (counts['<unparsable>'] ?? 0) + 1
    }
    if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs))
    try {
      const up = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      res.writeHead(up.status, { 'content-type': 'application/json' })
      res.end(Buffer.from(await up.arrayBuffer()))
    } catch (err) {
      res.writeHead(502)
      res.end(String(err))
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  return {
    url: `http://127.0.0.1:${port}`,
    counts: () => ({ ...counts }),
    total: (methods) =>
      Object.entries(counts)
        .filter(([m]) => !methods || methods.includes(m))
        .reduce((n, [, c]) => n + c, 0),
    requests: () => requests,
    reset: () => {
      counts = {}
      requests = 0
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
