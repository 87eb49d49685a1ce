/**
 * The throughput windows' client: HTTP/1.1 written straight onto kept-alive TCP sockets, one per
 * request in flight, the answer's framing (Content-Length or chunked) read from its head and its
 * body handed back as bytes for a check of its first bytes, not parsed.
 *
 * Why not node:http (loadClient.ts, still used for every request whose answer is read): on this
 * 2-core machine its request and response objects and the JSON parse of each answer cost the load
 * generator 0.12–0.23 ms per request, about one core while Anvil answered 8,000 eth_calls a second,
 * a core the server under test could not use. The load generator shares the machine with the
 * server, so what it spends is taken from the side being measured; every row still prints the
 * client's own CPU per request.
 */
import net from 'node:net'

export interface SocketLoadClient {
  /** POST a JSON body (already a string) to `path`; resolves to the answer's body once status 200 is seen */
  post(path: string, body: string, headers?: Record<string, string>): Promise<Buffer>
  close(): void
}

interface Pending {
  resolve(body: Buffer): void
  reject(err: Error): void
}

const HEAD_END = Buffer.from('\r\n\r\n')

/** one socket, one request at a time; the answer is framed by Content-Length or chunked encoding */
class Connection {
  private readonly socket: net.Socket
  private pending: Pending | undefined
  private buffered: Buffer = Buffer.alloc(0)
  private failure: Error | undefined

  constructor(host: string, port: number) {
    this.socket = net.connect({ host, port, noDelay: true })
    this.socket.on('data', (d: Buffer) => this.onData(d))
    this.socket.on('error', (err) => this.fail(err))
    this.socket.on('close', () => this.fail(new Error('the server closed the connection')))
  }

  send(request: string): Promise<Buffer> {
    if (this.failure) return Promise.reject(this.failure)
    return new Promise<Buffer>((resolve, reject) => {
      this.pending = { resolve, reject }
      this.socket.write(request)
    })
  }

  close(): void {
    this.socket.destroy()
  }

  private fail(err: Error): void {
    this.failure ??= err
    const p = this.pending
    this.pending = undefined
    p?.reject(err)
  }

  private onData(d: Buffer): void {
    this.buffered = this.buffered.length === 0 ? d : Buffer.concat([this.buffered, d])
    const answer = this.pending ? readAnswer(this.buffered) : undefined
    if (!answer) return
    const p = this.pending!
    this.pending = undefined
    this.buffered = this.buffered.subarray(answer.length)
    if (answer.status !== 200) p.reject(new Error(`HTTP ${answer.status}: ${answer.body.subarray(0, 300).toString()}`))
    else p.resolve(answer.body)
  }
}

/** a whole answer at the start of `buf`, or undefined while bytes are still missing */
function readAnswer(buf: Buffer): { status: number; body: Buffer; length: number } | undefined {
  const headEnd = buf.indexOf(HEAD_END)
  if (headEnd < 0) return undefined
  const head = buf.subarray(0, headEnd).toString('latin1')
  const status = Number(head.slice(9, 12))
  const start = headEnd + 4
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)
  if (length) {
    const end = start + Number(length[1])
    return buf.length < end ? undefined : { status, body: buf.subarray(start, end), length: end }
  }
  if (!/\r\ntransfer-encoding:\s*chunked/i.test(head)) throw new Error(`an answer framed by neither Content-Length nor chunks: ${head}`)
  const parts: Buffer[] = []
  let at = start
  for (;;) {
    const lineEnd = buf.indexOf('\r\n', at)
    if (lineEnd < 0) return undefined
    const size = parseInt(buf.subarray(at, lineEnd).toString('latin1'), 16)
    const dataEnd = lineEnd + 2 + size
    if (buf.length < dataEnd + 2) return undefined
    if (size === 0) return { status, body: Buffer.concat(parts), length: dataEnd + 2 }
    parts.push(buf.subarray(lineEnd + 2, dataEnd))
    at = dataEnd + 2
  }
}

export function createSocketLoadClient(baseUrl: string, sockets: number): SocketLoadClient {
  const base = new URL(baseUrl)
  const host = base.hostname
  const port = Number(base.port)
  const prefix = base.pathname.replace(/\/$/, '')
  const idle: Connection[] = []
  const all: Connection[] = []
  const waiting: ((c: Connection) => void)[] = []
  const take = (): Promise<Connection> => {
    const c = idle.pop()
    if (c) return Promise.resolve(c)
    if (all.length < sockets) {
      const fresh = new Connection(host, port)
      all.push(fresh)
      return Promise.resolve(fresh)
    }
    return new Promise((resolve) => waiting.push(resolve))
  }
  const give = (c: Connection) => {
    const next = waiting.shift()
    if (next) next(c)
    else idle.push(c)
  }
  return {
    async post(path, body, headers = {}) {
      // a JSON-RPC endpoint at the URL's root is posted to `/`
      let head = `POST ${`${prefix}${path}` || '/'} HTTP/1.1\r\nHost: ${host}:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`
      for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`
      const c = await take()
      try {
        return await c.send(`${head}\r\n${body}`)
      } finally {
        give(c)
      }
    },
    close() {
      for (const c of all) c.close()
    },
  }
}

/** a REST envelope that reports success: `{"success":true` opens it (src/respond/jsonAnswer.ts) */
export function isRestSuccess(body: Buffer): boolean {
  return body.subarray(0, 15).toString('latin1') === '{"success":true'
}

/** a JSON-RPC answer with a result, not an error: its `"result":` comes before any `"error":` */
export function isRpcResult(body: Buffer): boolean {
  const head = body.subarray(0, 64).toString('latin1')
  const result = head.indexOf('"result":')
  const error = head.indexOf('"error":')
  return result >= 0 && (error < 0 || error > result)
}
