/**
 * The bench's HTTP client: node:http over kept-alive sockets, one per request in flight.
 *
 * Why not `fetch`: on this 2-core machine undici's fetch costs the client about 1 ms of CPU per
 * request, so with Anvil answering an `eth_call` in tens of microseconds the client, not Anvil,
 * set the pace (about 1,200 req/s against about 4,900 with this client), and the ratios against
 * Anvil came out four times too kind. This client costs about 0.2 ms per request, still about a
 * core while Anvil answers 8,000 requests a second: the throughput windows use the lighter
 * socketLoadClient.ts, and this one serves the requests whose answers are read whole (warm-up,
 * sequential rows, cold and shared-state cases). The client's own CPU is counted (`clientCpuMs`)
 * so a row can say when the client is what limits it.
 */
import http from 'node:http'

export interface LoadClient {
  /** POST a JSON body (already a string) to `path`; resolves to the parsed answer */
  post<T = unknown>(path: string, body: string, headers?: Record<string, string>): Promise<T>
  /** a JSON-RPC call to the client's URL */
  rpc<T = unknown>(method: string, params: unknown[]): Promise<T>
  close(): void
}

export function createLoadClient(baseUrl: string, sockets: number): LoadClient {
  const base = new URL(baseUrl)
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets })
  let id = 0
  const post = <T>(path: string, body: string, headers: Record<string, string> = {}) =>
    new Promise<T>((resolve, reject) => {
      const req = http.request(
        {
          host: base.hostname,
          port: base.port,
          path: `${base.pathname.replace(/\/$/, '')}${path}`,
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
        },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (d: Buffer) => chunks.push(d))
          res.on('end', () => {
            try {
              resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as T)
            } catch (err) {
              reject(err)
            }
          })
          res.on('error', reject)
        },
      )
      req.on('error', reject)
      req.end(body)
    })
  return {
    post,
    async rpc<T>(method: string, params: unknown[]) {
      const out = await post<{ result?: T; error?: unknown }>('', JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }))
      if (out.error !== undefined || !('result' in out)) throw new Error(`${method}: ${JSON.stringify(out.error ?? out).slice(0, 300)}`)
      return out.result as T
    },
    close: () => agent.destroy(),
  }
}

/** this process's CPU (user + system), ms */
export function clientCpuMs(): number {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
