/**
 * GET /metrics of the service itself (src/main.ts) serving two chains on two real Anvils, its
 * engines on worker threads (WORKERS=2) or its HTTP in several processes (PROCESSES=2): what the
 * worker threads count (upstream calls, fork reads) and what every process counts reaches the
 * one scrape, whichever process answers it, each under its chain's name.
 */
import { spawn } from 'node:child_process'
import { request as httpRequest } from 'node:http'
import { createInterface } from 'node:readline'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requireAnvil, startAnvil, type AnvilInstance } from '../support/anvil.js'
import { parsePromText, sampleSum, labelValues, type Family } from '../support/promText.js'
import { testToken } from './support/startTestApp.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const haveAnvil = requireAnvil()
const WHO = '0x00000000000000000000000000000000000b0b0b'

interface Service {
  url: string
  /** the JSON log lines so far */
  logs: Record<string, unknown>[]
  stop(): Promise<void>
}

async function startService(env: Record<string, string>): Promise<Service> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/main.ts')], {
    env: { ...process.env, APP_ENV: 'test', PORT: '0', LOG_LEVEL: 'info', RATE_LIMIT_REQUESTS: '100000', ...env },
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const logs: Record<string, unknown>[] = []
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>
      logs.push(entry)
      if (entry.msg === 'listening') resolve(entry.url as string)
    })
    child.once('exit', (code) => reject(new Error(`exited (${code}): ${stderr}`)))
  })
  return {
    url,
    logs,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

/** one request on a connection of its own (so several HTTP processes share the requests) */
function send(url: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url + path,
      {
        method: body === undefined ? 'GET' : 'POST',
        agent: false,
        headers: { authorization: `Bearer ${testToken}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      },
      (res) => {
        let text = ''
        res.on('data', (d: Buffer) => (text += d.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
      },
    )
    req.on('error', reject)
    req.end(body === undefined ? undefined : JSON.stringify(body))
  })
}

const traceCall = { call: { from: WHO, to: WHO, data: '0x' }, blockTag: 'latest', tracerConfig: { callTracer: {} } }

async function scrape(url: string): Promise<Map<string, Family>> {
  const res = await send(url, '/metrics')
  expect(res.status).toBe(200)
  return parsePromText(res.text)
}

describe.runIf(haveAnvil)('GET /metrics of the service, across threads and processes', () => {
  let main: AnvilInstance
  let other: AnvilInstance
  beforeAll(async () => {
    ;[main, other] = await Promise.all([startAnvil(), startAnvil()])
  }, 60_000)
  afterAll(async () => {
    await Promise.all([main, other].map((a) => a?.stop()))
  })

  it('WORKERS=2: what the worker threads count reaches the scrape, under each chain', async () => {
    const svc = await startService({ WORKERS: '2', PROCESSES: '1', RPC_URL: main.url, CHAIN_OTHER_RPC_URL: other.url })
    try {
      for (let i = 0; i < 4; i++) expect((await send(svc.url, '/v1/chains/other/trace/call', traceCall)).status).toBe(200)
      expect((await send(svc.url, '/v1/trace/call', traceCall)).status).toBe(200)
      const m = await scrape(svc.url)
      expect(sampleSum(m, 'evmsim_http_requests_total', { chain: 'other', route: '/v1/trace/call', status_class: '2xx' })).toBe(4)
      expect(sampleSum(m, 'evmsim_http_requests_total', { chain: 'default', route: '/v1/trace/call', status_class: '2xx' })).toBe(1)
      expect(sampleSum(m, 'evmsim_engines_ready', { chain: 'other' })).toBe(2)
      expect(sampleSum(m, 'evmsim_engines_ready', { chain: 'default' })).toBe(2)
      // counted inside the worker threads
      for (const chain of ['default', 'other']) {
        expect(sampleSum(m, 'evmsim_upstream_requests_total', { chain, method: 'eth_getBalance', outcome: 'ok' })).toBeGreaterThan(0)
        expect(sampleSum(m, 'evmsim_fork_cache_misses_total', { chain })).toBeGreaterThan(0)
        expect(sampleSum(m, 'evmsim_upstream_up', { chain })).toBe(1)
      }
      expect(sampleSum(m, 'evmsim_chain_head_block', { chain: 'other' })).toBe(Number(BigInt(await other.rpc<string>('eth_blockNumber'))))
      // four traces of one account on one chain: the fork cache answered most reads
      expect(sampleSum(m, 'evmsim_fork_cache_hits_total', { chain: 'other' })).toBeGreaterThan(0)
      for (const v of labelValues(m)) expect(v).not.toMatch(/:\/\/|127\.0\.0\.1/)
    } finally {
      await svc.stop()
    }
  }, 120_000)

  it('PROCESSES=2: any process answers for every process', async () => {
    const svc = await startService({ WORKERS: '1', PROCESSES: '2', RPC_URL: main.url, CHAIN_OTHER_RPC_URL: other.url })
    try {
      const n = 8
      for (let i = 0; i < n; i++) expect((await send(svc.url, '/v1/chains/other/trace/call', traceCall)).status).toBe(200)
      // both processes served some (each request on a new connection, handed out round robin)
      // (the log line names the routed path, without the chain prefix; it is written asynchronously)
      const served = () => svc.logs.filter((l) => l.msg === 'request' && l.path === '/v1/trace/call').map((l) => l.process)
      for (let i = 0; i < 100 && served().length < n; i++) await new Promise((r) => setTimeout(r, 50))
      expect(new Set(served()).size).toBe(2)
      // every scrape, whichever process it reaches, counts all of them
      for (let i = 0; i < 4; i++) {
        const m = await scrape(svc.url)
        expect(sampleSum(m, 'evmsim_http_requests_total', { chain: 'other', door: 'rest', route: '/v1/trace/call', status_class: '2xx' })).toBe(n)
        expect(sampleSum(m, 'evmsim_http_request_duration_seconds_count', { chain: 'other', route: '/v1/trace/call' })).toBe(n)
        expect(sampleSum(m, 'evmsim_http_requests_total', { chain: 'default', route: '/v1/trace/call' })).toBe(0)
        expect(sampleSum(m, 'evmsim_http_processes')).toBe(2)
        expect(sampleSum(m, 'evmsim_engines_ready', { chain: 'other' })).toBe(2)
        expect(sampleSum(m, 'evmsim_upstream_up', { chain: 'other' })).toBe(1)
        expect(sampleSum(m, 'evmsim_upstream_requests_total', { chain: 'other', outcome: 'ok' })).toBeGreaterThan(0)
      }
      const scrapedBy = () => svc.logs.filter((l) => l.msg === 'request' && l.path === '/metrics').map((l) => l.process)
      for (let i = 0; i < 100 && scrapedBy().length < 4; i++) await new Promise((r) => setTimeout(r, 50))
      expect(new Set(scrapedBy()).size).toBe(2)
    } finally {
      await svc.stop()
    }
  }, 120_000)
})
