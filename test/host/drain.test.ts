/**
 * Probes and the drain on the service itself (src/main.ts in a child process, as an operator runs
 * it; docs/decisions/0101-readiness-and-drain.md):
 * - liveness and readiness answer without a token and outside the rate limit; readiness answers
 *   503 naming `upstream` while the upstream (Anvil behind a switchable front) is down;
 * - SIGTERM during a long struct log: readiness answers 503 `draining` at once, a new request 503
 *   SERVICE_DRAINING (or its connection is refused), the struct log is answered whole with 200 and
 *   `Connection: close`, the worker threads stop and the process exits 0;
 * - with several HTTP processes the primary forwards the drain to each: the same, exit 0;
 * - a second SIGTERM exits at once with 1, logging the request it cut; so does the grace passing.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { request } from 'node:http'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../config/loadConfig.js'
import { freePort, requireAnvil, startAnvil, type AnvilInstance } from '../support/anvil.js'
import { startFaultyUpstream, type FaultyUpstream } from '../support/faultyUpstream.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const token = loadConfig({ env: { APP_ENV: 'test' } }).api.auth_token
const haveAnvil = requireAnvil()

/** a loop of `turns` turns of 10 steps each, put in place by a state override */
const LOOPER = '0x00000000000000000000000000000000000100ff'
const loopCode = (turns: number) => `0x600060405262${turns.toString(16).padStart(6, '0')}5b80600052600190038060095700`
/** a struct log that takes the service a few seconds (400,000 steps, about 120 MB of JSON: about 3 s on 2 cores, written to a spill file and streamed) */
const slowTrace = (turns: number) =>
  JSON.stringify({
    call: { from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', to: LOOPER, data: '0x', gas: '0x2faf080' },
    stateOverrides: { [LOOPER]: { code: loopCode(turns) } },
    tracerConfig: { structLogger: { disableStorage: true } },
  })
const TURNS = 40_000

interface Service {
  child: ChildProcess
  url: string
  /** the JSON lines it logged so far */
  logs: Record<string, unknown>[]
  stderr(): string
  exited: Promise<[number | null, string | null]>
}

const started: ChildProcess[] = []

async function startService(env: Record<string, string>): Promise<Service> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { ...process.env, APP_ENV: 'test', PORT: '0', WORKERS: '1', RPC_URL: '', CACHE_URL: 'memory://', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  started.push(child)
  const exited = once(child, 'exit') as Promise<[number | null, string | null]>
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
  const logs: Record<string, unknown>[] = []
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>
      logs.push(entry)
      if (entry.msg === 'listening' && env.PROCESSES === undefined) resolve(entry.url as string)
      // several HTTP processes: all of them listen on the port asked for
      if (entry.msg === 'HTTP processes listening') resolve(`http://127.0.0.1:${env.PORT}`)
    })
    void exited.then(([code]) => reject(new Error(`the service exited (${code}) before listening: ${stderr}`)))
  })
  return { child, url, logs, stderr: () => stderr, exited }
}

async function until<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, ms = 30_000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await fn()
    if (v !== undefined) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

const logged = (svc: Service, msg: string) => until(`the log line '${msg}'`, () => svc.logs.find((l) => l.msg === msg))

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  bytes: number
}

/** one request on a kept-alive connection of its own; the body counted, not kept */
function send(url: string, path: string, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      {
        method: body === undefined ? 'GET' : 'POST',
        agent: false,
        headers: { connection: 'keep-alive', authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      },
      (res) => {
        let bytes = 0
        res.on('data', (d: Buffer) => (bytes += d.length))
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes }))
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

const json = async (url: string, path: string) => {
  const res = await fetch(`${url}${path}`)
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}

afterAll(() => {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
})

describe.runIf(haveAnvil)('readiness against a real upstream', () => {
  let anvil: AnvilInstance | undefined
  let front: FaultyUpstream | undefined
  afterAll(async () => {
    await front?.close()
    await anvil?.stop()
  })

  it('live and ready answer without a token and outside the rate limit; ready answers 503 upstream while the upstream is down', async () => {
    anvil = await startAnvil()
    front = await startFaultyUpstream(anvil.url)
    const svc = await startService({ RPC_URL: front.url, RATE_LIMIT_REQUESTS: '2' })
    for (let i = 0; i < 4; i++) {
      expect(await json(svc.url, '/v1/health/live')).toEqual({ status: 200, body: { status: 'live', uptime: expect.any(Number) } })
      expect(await json(svc.url, '/v1/health/ready')).toEqual({ status: 200, body: { status: 'ready' } })
    }
    await front.fault('down')
    expect(await json(svc.url, '/v1/health/ready')).toEqual({ status: 503, body: { status: 'not-ready', missing: ['upstream'] } })
    expect((await json(svc.url, '/v1/health/live')).status).toBe(200)
    await front.fault('pass')
    await until('ready again', async () => ((await json(svc.url, '/v1/health/ready')).status === 200 ? true : undefined))

    svc.child.kill('SIGTERM')
    expect((await svc.exited)[0], svc.stderr()).toBe(0)
  }, 120_000)
})

describe('SIGTERM drains', () => {
  it('a long struct log in flight is answered whole with Connection: close, readiness answers 503 meanwhile, new requests 503, exit 0', async () => {
    const svc = await startService({ WORKERS: '2' })
    const slow = send(svc.url, '/v1/trace/call', slowTrace(TURNS))
    await new Promise((r) => setTimeout(r, 500))
    svc.child.kill('SIGTERM')
    const draining = await logged(svc, 'draining: finishing the requests in flight')
    expect(draining.inFlight, 'the struct log was in flight at SIGTERM').toBe(1)

    expect(await json(svc.url, '/v1/health/ready')).toEqual({ status: 503, body: { status: 'not-ready', missing: ['draining'] } })
    expect((await json(svc.url, '/v1/health/live')).status).toBe(200)
    const late = await send(svc.url, '/v1/simulations/sim_00000000-0000-4000-8000-0000000000aa').catch((e: NodeJS.ErrnoException) => e.code ?? String(e))
    if (typeof late === 'string') expect(late).toBe('ECONNREFUSED')
    else expect([late.status, late.headers.connection]).toEqual([503, 'close'])

    const answer = await slow
    expect(answer.status).toBe(200)
    expect(answer.headers.connection).toBe('close')
    expect(answer.bytes).toBe(Number(answer.headers['content-length']))
    expect(answer.bytes).toBeGreaterThan(1_000_000)
    const [code] = await svc.exited
    expect(code, svc.stderr()).toBe(0)
    expect(svc.logs.some((l) => l.msg === 'stopped')).toBe(true)
    // no new connection is taken once stopped
    await expect(fetch(`${svc.url}/v1/health/live`)).rejects.toThrow()
  }, 180_000)

  it('PROCESSES=2: the primary forwards the drain to each process; the request in flight is answered, exit 0', async () => {
    const port = await freePort()
    const svc = await startService({ PROCESSES: '2', PORT: String(port) })
    const slow = send(svc.url, '/v1/trace/call', slowTrace(TURNS))
    await new Promise((r) => setTimeout(r, 500))
    svc.child.kill('SIGTERM')
    const drained = await until('both processes draining', () => {
      const lines = svc.logs.filter((l) => l.msg === 'draining: finishing the requests in flight')
      return lines.length === 2 ? lines : undefined
    })
    expect(drained.map((l) => l.process).sort()).toEqual([0, 1])
    expect(drained.map((l) => l.inFlight).sort()).toEqual([0, 1])
    const answer = await slow
    expect([answer.status, answer.headers.connection]).toEqual([200, 'close'])
    expect(answer.bytes).toBe(Number(answer.headers['content-length']))
    const [code] = await svc.exited
    expect(code, svc.stderr()).toBe(0)
  }, 180_000)

  it('a second SIGTERM exits at once with 1, logging the request it cut', async () => {
    const svc = await startService({})
    const slow = send(svc.url, '/v1/trace/call', slowTrace(TURNS)).catch((e: Error) => e)
    await new Promise((r) => setTimeout(r, 500))
    svc.child.kill('SIGTERM')
    await logged(svc, 'draining: finishing the requests in flight')
    const second = Date.now()
    svc.child.kill('SIGTERM')
    const [code] = await svc.exited
    expect(code).toBe(1)
    expect(Date.now() - second).toBeLessThan(3_000)
    expect(svc.logs.find((l) => l.reason === 'a second SIGTERM')).toMatchObject({ cut: 1, msg: 'stopping now: the requests in flight are cut' })
    expect(await slow).toBeInstanceOf(Error)
  }, 120_000)

  it('the grace passing exits with 1, logging the request it cut', async () => {
    const svc = await startService({ SHUTDOWN_GRACE_MS: '300' })
    const slow = send(svc.url, '/v1/trace/call', slowTrace(TURNS)).catch((e: Error) => e)
    await new Promise((r) => setTimeout(r, 500))
    svc.child.kill('SIGTERM')
    const [code] = await svc.exited
    expect(code).toBe(1)
    expect(svc.logs.find((l) => l.reason === 'the shutdown grace passed')).toMatchObject({ cut: 1 })
    expect(await slow).toBeInstanceOf(Error)
  }, 120_000)
})
