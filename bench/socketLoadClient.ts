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

/**
 * one socket, one request at a time. The answer is read as it arrives, each byte looked at once
 * (a struct log's answer is a megabyte in many reads): the head when it is complete, then a
 * Content-Length body by counting, or chunks by their size lines.
 */
class Connection {
  private readonly socket: net.Socket
  private pending: Pending | undefined
  private answer: AnswerReader | undefined
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
      this.answer = new AnswerReader()
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
    const p = this.pending
    if (!p || !this.answer) return this.fail(new Error('bytes from the server with no request pending'))
    let done: { status: number; body: Buffer } | undefined
    try {
      done = this.answer.push(d)
    } catch (err) {
      return this.fail(err as Error)
    }
    if (!done) return
    this.pending = undefined
    this.answer = undefined
    if (done.status !== 200) p.reject(new Error(`HTTP ${done.status}: ${done.body.subarray(0, 300).toString()}`))
    else p.resolve(done.body)
  }
}

/** one HTTP/1.1 answer, fed the socket's reads in order; the whole answer once its last byte is in */
class AnswerReader {
  private head: Buffer[] = []
  private status = 0
  /** bytes of body still to come (Content-Length), or undefined for chunks */
  private remaining: number | undefined
  private chunked = false
  /** chunked: bytes left of the current chunk's data and its CRLF, or -1 while reading a size line */
  private chunkLeft = -1
  private sizeLine = ''
  private last = false
  private readonly body: Buffer[] = []

  push(d: Buffer): { status: number; body: Buffer } | undefined {
    if (this.status === 0) {
      this.head.push(d)
      const all = this.head.length === 1 ? d : Buffer.concat(this.head)
      const headEnd = all.indexOf(HEAD_END)
      if (headEnd < 0) return undefined
      this.head = []
      this.readHead(all.subarray(0, headEnd).toString('latin1'))
      d = all.subarray(headEnd + 4)
    }
    return this.chunked ? this.pushChunks(d) : this.pushCounted(d)
  }

  private readHead(head: string): void {
    this.status = Number(head.slice(9, 12))
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)
    if (length) this.remaining = Number(length[1])
    else if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) this.chunked = true
    else throw new Error(`an answer framed by neither Content-Length nor chunks: ${head}`)
  }

  private pushCounted(d: Buffer): { status: number; body: Buffer } | undefined {
    if (d.length > this.remaining!) throw new Error("more bytes than the answer's Content-Length")
    if (d.length > 0) this.body.push(d)
    this.remaining! -= d.length
    return this.remaining === 0 ? this.done() : undefined
  }

  private pushChunks(d: Buffer): { status: number; body: Buffer } | undefined {
    let at = 0
    while (at < d.length) {
      if (this.chunkLeft < 0) {
        const lineEnd = d.indexOf(0x0a, at)
        if (lineEnd < 0) {
          this.sizeLine += d.subarray(at).toString('latin1')
          return undefined
        }
        this.sizeLine += d.subarray(at, lineEnd).toString('latin1')
        at = lineEnd + 1
        const size = parseInt(this.sizeLine, 16)
        this.sizeLine = ''
        // the last chunk: its empty line (no trailers from these servers) ends the answer
        if (size === 0) this.last = true
        this.chunkLeft = size + 2
        continue
      }
      const take = Math.min(this.chunkLeft, d.length - at)
      // the chunk's data without its closing CRLF
      const data = Math.min(take, Math.max(0, this.chunkLeft - 2))
      if (data > 0) this.body.push(d.subarray(at, at + data))
      this.chunkLeft -= take
      at += take
      if (this.chunkLeft === 0) {
        if (this.last) {
          if (at < d.length) throw new Error("bytes after the answer's last chunk")
          return this.done()
        }
        this.chunkLeft = -1
      }
    }
    return undefined
  }

  private done(): { status: number; body: Buffer } {
    return { status: this.status, body: this.body.length === 1 ? this.body[0]! : Buffer.concat(this.body) }
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
