/**
 * Memory under steady load: the service in a child process (the real entry point, devnet,
 * in-process engine, a small cache.max_memory_mb so the caches fill early), fed distinct
 * /simulate and /trace/call requests for a bounded time and count, its RSS read from /proc. Every
 * simulation is stored, so before the fix RSS grew linearly (each stored result kept a 16 KiB
 * zlib chunk while being counted as its compressed size, and small entries were counted at a
 * sixth of their heap cost). Now the growth must stop: over the second half of the run the RSS
 * slope is near zero and RSS stays within base + budget + headroom.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../config/loadConfig.js'
import { DEV_ACCOUNTS, freePort } from '../support/anvil.js'

const RUN_MS = 60_000
const MAX_REQUESTS = 40_000
const CONCURRENCY = 8
const BUDGET_MB = 16
const V8_HEAP_MB = 192
const root = new URL('../../', import.meta.url)
const token = loadConfig({ env: { APP_ENV: 'test' } }).api.auth_token
const [A, B] = DEV_ACCOUNTS as unknown as [string, string]

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024

/** least-squares slope of y over x */
function slope(points: [number, number][]): number {
  const n = points.length
  const mx = points.reduce((s, p) => s + p[0], 0) / n
  const my = points.reduce((s, p) => s + p[1], 0) / n
  const num = points.reduce((s, p) => s + (p[0] - mx) * (p[1] - my), 0)
  const den = points.reduce((s, p) => s + (p[0] - mx) ** 2, 0)
  return num / den
}

describe('memory under a steady /simulate load', () => {
  let child: ChildProcess | undefined
  afterAll(() => {
    child?.kill('SIGKILL')
  })

  it('RSS levels off within the budget', async () => {
    const port = await freePort()
    child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: root,
      env: {
        ...process.env,
        APP_ENV: 'test',
        PORT: String(port),
        WORKERS: '1',
        RPC_URL: '',
        CACHE_URL: 'memory://',
        CACHE_MAX_MEMORY_MB: String(BUDGET_MB),
        RATE_LIMIT_REQUESTS: '1000000000',
        LOG_LEVEL: 'silent',
        // V8's heap capped as README "Memory budget" advises: without it V8 grows its heap lazily
        // for minutes and hides a real leak behind that growth; with it, what still grows is a leak
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=${V8_HEAP_MB}`.trim(),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr!.on('data', (d) => (stderr += String(d)))
    const base = `http://127.0.0.1:${port}/v1`
    for (let i = 0; ; i++) {
      const up = await fetch(`${base}/health`).then((r) => r.ok, () => false)
      if (up) break
      if (i > 300 || child.exitCode !== null) throw new Error(`service did not start: ${stderr}`)
      await new Promise((r) => setTimeout(r, 100))
    }

    let sent = 0
    let failed = 0
    const started = Date.now()
    const samples: [number, number][] = []
    const sampler = setInterval(() => samples.push([(Date.now() - started) / 1000, rssMb(child!.pid!)]), 1000)
    const worker = async () => {
      while (Date.now() - started < RUN_MS && sent < MAX_REQUESTS) {
        const n = ++sent
        // distinct requests: each simulation is stored under a new id
        const value = `0x${n.toString(16)}`
        const [path, body] =
          n % 4 === 0
            ? ['/trace/call', { call: { from: A, to: B, value }, tracerConfig: { callTracer: {} } }]
            : ['/simulate', { params: { calls: [{ from: A, to: B, value }], traceAssetChanges: true, traceTransfers: true } }]
        const res = await fetch(`${base}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify(body),
        })
        await res.arrayBuffer()
        if (res.status !== 200) failed++
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, worker))
    clearInterval(sampler)

    const secondHalf = samples.filter(([t]) => t >= RUN_MS / 2000)
    const mbPerSecond = slope(secondHalf)
    const peak = Math.max(...samples.map(([, mb]) => mb))
    const first = samples[Math.min(5, samples.length - 1)]![1]
    console.info(`soak: ${sent} requests (${failed} failed) in ${(Date.now() - started) / 1000} s; RSS ${first.toFixed(0)} MB at 5 s, peak ${peak.toFixed(0)} MB, second-half slope ${mbPerSecond.toFixed(3)} MB/s`)
    expect(failed).toBe(0)
    // enough load that a per-request leak would show: at the old ~38 KB/request, well over 1 MB/s
    expect(sent).toBeGreaterThan(1500)
    expect(mbPerSecond).toBeLessThan(0.25)
    expect(peak).toBeLessThan(first + BUDGET_MB + 96)
  }, RUN_MS + 60_000)
})
