/**
 * A real redis-server of the test's own on a free port (so a test may kill and restart it).
 * Missing locally: a loud warning and the test skips its Redis cases; under CI=true a failure.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createConnection } from 'node:net'
import { freePort } from './anvil.js'

export function redisServerBinary(): string | undefined {
  const r = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' })
  const bin = r.stdout.trim()
  return r.status === 0 && bin ? bin : undefined
}

/** Throws under CI when redis-server is missing; locally prints a loud warning and returns false. */
export function requireRedisServer(): boolean {
  if (redisServerBinary()) return true
  const msg = 'REDIS MISSING: redis-server is not installed (apt-get install redis-server); Redis-backed tests cannot run'
  if (process.env.CI === 'true') throw new Error(msg)
  console.warn(`\n!!!!! ${msg} !!!!!\n`)
  return false
}

export interface RedisServer {
  url: string
  port: number
  /** kills the process (SIGKILL: an outage, not a graceful shutdown) */
  kill(): Promise<void>
  /** starts it again on the same port (data is gone, unless started with `persist`) */
  restart(): Promise<void>
  /** SIGSTOP: the socket stays open but nothing answers (a stalled Redis) */
  pause(): void
  /** SIGCONT */
  resume(): void
  stop(): Promise<void>
}

const waitForPort = async (port: number, deadlineMs: number) => {
  const deadline = Date.now() + deadlineMs
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = createConnection({ port, host: '127.0.0.1' })
      s.once('connect', () => (s.end(), resolve(true)))
      s.once('error', () => resolve(false))
    })
    if (ok) return
    if (Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}`)
    await new Promise((r) => setTimeout(r, 30))
  }
}

export interface RedisServerOptions {
  /** requirepass: clients must AUTH with it */
  password?: string
  /** serve TLS only (no plain port), with this certificate and key; clients are not asked for one */
  tls?: { certFile: string; keyFile: string }
  /** an append-only file synced on every write: what was written survives a kill and a restart */
  persist?: boolean
}

export async function startRedisServer(opts: RedisServerOptions = {}): Promise<RedisServer> {
  const bin = redisServerBinary()
  if (!bin) throw new Error('redis-server not found')
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'redis-test-'))
  let child: ChildProcess | undefined
  const listen = opts.tls
    ? ['--port', '0', '--tls-port', String(port), '--tls-cert-file', opts.tls.certFile, '--tls-key-file', opts.tls.keyFile, '--tls-auth-clients', 'no']
    : ['--port', String(port)]
  const auth = opts.password ? ['--requirepass', opts.password] : []
  const launch = async () => {
    const aof = opts.persist ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']
    child = spawn(bin, [...listen, ...auth, '--bind', '127.0.0.1', '--save', '', ...aof, '--dir', dir], {
      stdio: 'ignore',
    })
    await waitForPort(port, 10_000)
  }
  const kill = () =>
    new Promise<void>((resolve) => {
      const c = child
      if (!c || c.exitCode !== null || c.signalCode !== null) return resolve()
      c.once('exit', () => resolve())
      c.kill('SIGKILL')
    })
  await launch()
  return {
    url: `${opts.tls ? 'rediss' : 'redis'}://${opts.password ? `:${encodeURIComponent(opts.password)}@` : ''}127.0.0.1:${port}/0`,
    port,
    kill,
    restart: launch,
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    stop: async () => {
      await kill()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

export const bytes = (...xs: number[]) => new Uint8Array(xs)

/** polls `cond` every 25 ms for up to 10 s (a reconnect, an outage seen) */
export async function waitFor(cond: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await cond()) return
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`gave up waiting for ${what}`)
}
