/**
 * Several HTTP processes on one port (PROCESSES, host/cluster/primary.ts), the real entry point on
 * the devnet with `memory://`: a simulation stored by one process is read back through the other,
 * the processes share one rate limit through the primary, a process that dies is replaced, and SIGTERM stops them all with exit code 0.
 * Every request goes on a new connection, so the cluster's round robin hands consecutive requests
 * to different processes; the access log (each line names its process) shows that both served.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { request } from 'node:http'
import { createInterface } from 'node:readline'
import { readdirSync, readFileSync } from 'node:fs'
import { once } from 'node:events'
import { encodeFunctionData } from 'viem'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../../config/loadConfig.js'
import { DEMO_TOKEN_ADDRESS, demoTokenAbi } from '../../../engine/chains/devnet/demoTransactions.js'
import { DEV_ACCOUNTS, freePort } from '../../support/anvil.js'

const root = new URL('../../../', import.meta.url)
const token = loadConfig({ env: { APP_ENV: 'test' } }).api.auth_token
const LIMIT = 7
const [A, B] = DEV_ACCOUNTS as unknown as [`0x${string}`, `0x${string}`]

/** pids of the service processes whose parent is `pid`, from /proc (not esbuild's, which tsx starts) */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8')
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid && readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('src/main.ts')
      } catch {
        return false
      }
    })
    .map(Number)
}

async function until<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, ms = 60_000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await fn()
    if (v !== undefined) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

describe('PROCESSES=2: two HTTP processes on one port', () => {
  let child: ChildProcess | undefined
  afterAll(() => {
    if (child?.exitCode === null) child.kill('SIGKILL')
  })

  it('share stored simulations and the rate limit, replace a dead process, stop together on SIGTERM', async () => {
    const port = await freePort()
    const url = `http://127.0.0.1:${port}`
    child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: root,
      env: {
        ...process.env,
        APP_ENV: 'test',
        PORT: String(port),
        PROCESSES: '2',
        WORKERS: '1',
        RPC_URL: '',
        CACHE_URL: 'memory://',
        RATE_LIMIT_REQUESTS: String(LIMIT),
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
    const answeredBy: number[] = []
    let allListening = false
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const entry = JSON.parse(line) as { msg?: string; process?: number; path?: string }
      if (entry.msg === 'request' && entry.path !== '/v1/health') answeredBy.push(entry.process!)
      if (entry.msg === 'HTTP processes listening') allListening = true
    })
    const primary = child.pid!
    const get = (path: string) => send('GET', `${url}${path}`)
    // health answers as soon as one process listens; the round robin needs both. Each process
    // compiles the sources through tsx as it starts, which on two busy cores takes past a minute
    await until('every process listening', () => (allListening ? true : undefined), 150_000)
    const first = childrenOf(primary)
    expect(first).toHaveLength(2)

    const data = encodeFunctionData({ abi: demoTokenAbi, functionName: 'transfer', args: [B, 7n] })
    const sim = await send('POST', `${url}/v1/simulate`, JSON.stringify({ params: { calls: [{ from: A, to: DEMO_TOKEN_ADDRESS, data }], blockTag: 'latest' } }))
    expect(sim.status).toBe(200)
    expect(sim.headers.get('ratelimit-remaining')).toBe(String(LIMIT - 1))
    const { simulationId } = (sim.json() as { data: { simulationId: string } }).data

    // each read reaches the other process than the one before: the store and the counter are one
    // (the simulation stays in the process that ran it; the other finds it through the primary)
    const reads = []
    for (let i = 2; i < LIMIT; i++) reads.push(await get(`/v1/simulations/${simulationId}`))
    expect(reads.map((r) => r.status)).toEqual(Array(LIMIT - 2).fill(200))
    expect(reads.map((r) => r.headers.get('ratelimit-remaining'))).toEqual(reads.map((_, i) => String(LIMIT - 2 - i)))
    for (const r of reads) expect((r.json() as { data: { simulationId: string } }).data.simulationId).toBe(simulationId)
    // an id no process keeps: every process asked, none has it
    const unknown = await get('/v1/simulations/sim_0b3f2a8e-1c2d-4e5f-8a9b-0c1d2e3f4a5b')
    expect(unknown.status).toBe(404)
    expect(unknown.headers.get('ratelimit-remaining')).toBe('0')
    const over = await get(`/v1/simulations/${simulationId}`)
    expect(over.status).toBe(429)
    expect((over.json() as { error: { code: string } }).error.code).toBe('RATE_LIMIT_EXCEEDED')
    await until('the access log', () => (answeredBy.length === LIMIT + 1 ? true : undefined), 10_000)
    expect(new Set(answeredBy)).toEqual(new Set([0, 1]))

    // a process killed outright is replaced; the instance keeps answering meanwhile
    process.kill(first[0]!, 'SIGKILL')
    const replaced = await until('a replacement process', () => {
      const now = childrenOf(primary)
      return now.length === 2 && !now.includes(first[0]!) ? now : undefined
    })
    expect(replaced).toContain(first[1])
    await until('health after the replacement', () =>
      get('/v1/health').then(
        (r) => (r.status === 200 ? true : undefined),
        () => undefined,
      ),
    )

    const exited = once(child, 'exit')
    child.kill('SIGTERM')
    const [code] = await exited
    expect(code, stderr).toBe(0)
    expect(replaced.filter((pid) => existsPid(pid))).toEqual([])
  }, 180_000)
})

/** one request on a connection of its own (fetch would keep connections alive and reuse them) */
function send(method: string, url: string, body?: string): Promise<{ status: number; headers: { get(name: string): string | undefined }; json(): unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, agent: false, headers: { authorization: `Bearer ${token}`, ...(body && { 'content-type': 'application/json' }) } },
      (res) => {
        let text = ''
        res.on('data', (d: Buffer) => (text += d.toString()))
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            headers: { get: (name) => res.headers[name.toLowerCase()] as string | undefined },
            json: () => JSON.parse(text) as unknown,
          }),
        )
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

function existsPid(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
