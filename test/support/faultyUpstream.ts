/**
 * A real HTTP JSON-RPC server in front of a real upstream (Anvil) that can be switched to each way
 * an upstream fails: down (the port refuses), reset (the connection is cut before an answer),
 * hang (the request is read and never answered), HTTP 500 / 429, garbage (not JSON), truncated
 * (the answer cut in half), wrong types (every result replaced by a value of the wrong form), null
 * results, fewer batch items than calls, shuffled order (legal: answers matched by id) and
 * swapped ids (each answer carrying another call's id). While `pass`, it forwards as it is.
 *
 * @example
 * const up = await startFaultyUpstream(anvil.url)
 * up.fault('hang') // … up.fault('pass')
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

export const FAULTS = [
  'down',
  'reset',
  'hang',
  'http500',
  'http429',
  'garbage',
  'truncated',
  'wrongTypes',
  'nullResults',
  'fewerItems',
  'shuffledOrder',
  'swappedIds',
] as const
export type Fault = (typeof FAULTS)[number] | 'pass'

export interface FaultyUpstream {
  /** JSON-RPC URL; carries a query key like a hosted provider's (it must never be echoed) */
  url: string
  fault(f: Fault): Promise<void>
  /** HTTP requests received (each batch counts once) */
  readonly requests: number
  close(): Promise<void>
}

interface Answer {
  id?: unknown
  result?: unknown
  error?: unknown
}

/** a value of another form than any JSON-RPC result it replaces */
function wrongly(result: unknown): unknown {
  if (typeof result === 'string') return 'latest'
  if (typeof result === 'boolean' || typeof result === 'number') return { not: 'this' }
  if (Array.isArray(result)) return [5, 'x']
  if (result && typeof result === 'object') return Object.fromEntries(Object.keys(result).map((k) => [k, 5]))
  return 'latest'
}

export async function startFaultyUpstream(upstream: string, path = '/?key=sk_test_faulty'): Promise<FaultyUpstream> {
  let mode: Fault = 'pass'
  let requests = 0
  const sockets = new Set<Socket>()
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    requests++
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const text = Buffer.concat(chunks).toString('utf8')
    const now = mode
    if (now === 'hang') return // read, never answered
    if (now === 'reset') return void req.socket.destroy()
    if (now === 'http500' || now === 'http429')
      return void res.writeHead(now === 'http500' ? 500 : 429, { 'content-type': 'text/plain' }).end('upstream trouble')
    if (now === 'garbage') return void res.writeHead(200, { 'content-type': 'application/json' }).end('<html><body>502 Bad Gateway</body></html>')
    let up: Response
    try {
      up = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text })
    } catch {
      return void req.socket.destroy()
    }
    const answerText = await up.text()
    let out = answerText
    if (now === 'truncated') out = answerText.slice(0, Math.floor(answerText.length / 2))
    else if (now !== 'pass') {
      const parsed = JSON.parse(answerText) as Answer | Answer[]
      const list = Array.isArray(parsed) ? parsed : [parsed]
      if (now === 'wrongTypes') for (const a of list) if ('result' in a) a.result = wrongly(a.result)
      if (now === 'nullResults') for (const a of list) if ('result' in a) a.result = null
      let shaped: Answer | Answer[] = parsed
      if (now === 'fewerItems') shaped = Array.isArray(parsed) ? parsed.slice(0, -1) : []
      if (now === 'shuffledOrder' && Array.isArray(parsed)) shaped = [...parsed].reverse()
      if (now === 'swappedIds' && Array.isArray(parsed) && parsed.length > 1) {
        const ids = parsed.map((a) => a.id)
        shaped = parsed.map((a, i) => ({ ...a, id: ids[(i + 1) % ids.length] }))
      }
      out = JSON.stringify(shaped)
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(out)
  }
  const server: Server = createServer((req, res) => void handle(req, res).catch(() => req.socket.destroy()))
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  const cutAll = () => {
    for (const s of sockets) s.destroy()
  }
  return {
    url: `http://127.0.0.1:${port}${path}`,
    get requests() {
      return requests
    },
    async fault(f) {
      const wasDown = mode === 'down'
      mode = f
      // connections kept alive must not carry old behaviour across a switch
      cutAll()
      if (f === 'down' && !wasDown) await new Promise<void>((resolve) => server.close(() => resolve()))
      if (f !== 'down' && wasDown) await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
    },
    async close() {
      cutAll()
      if (mode !== 'down') await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
