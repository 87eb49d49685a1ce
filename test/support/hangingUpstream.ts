/**
 * A TCP front for a real upstream (Anvil) on 127.0.0.1 that can be switched to hang: while
 * hanging it accepts every connection, reads what is sent and never answers a byte — the stuck
 * node a timeout has to cope with (not a refusal, not a reset). While passing, each connection is
 * piped to the upstream as it is.
 */
import { connect, createServer, type Server, type Socket } from 'node:net'

export interface HangingUpstream {
  /** JSON-RPC URL of the front; carries a query key like a hosted provider's */
  url: string
  /** true: accept and never answer (connections piped so far are cut, so keep-alive cannot bypass it) */
  hang(on: boolean): void
  close(): Promise<void>
}

export async function startHangingUpstream(upstreamPort: number, path = '/?key=sk_test_hanging'): Promise<HangingUpstream> {
  let hanging = false
  const open = new Set<Socket>()
  const piped = new Set<Socket>()
  const server: Server = createServer((socket) => {
    open.add(socket)
    socket.on('close', () => (open.delete(socket), piped.delete(socket)))
    socket.on('error', () => undefined)
    if (hanging) return void socket.resume() // read and drop, never write
    const up = connect(upstreamPort, '127.0.0.1')
    up.on('error', () => socket.destroy())
    socket.on('close', () => up.destroy())
    piped.add(socket)
    socket.pipe(up).pipe(socket)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  return {
    url: `http://127.0.0.1:${port}${path}`,
    hang(on) {
      hanging = on
      if (on) for (const s of piped) s.destroy()
    },
    async close() {
      for (const s of open) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
