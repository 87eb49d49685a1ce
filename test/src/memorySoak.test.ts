/**
 * Memory under steady load: the service in a child process (the real entry point, devnet,
 * in-process engine, a small cache.max_memory_mb so its caches fill early), fed distinct
 * /simulate and /trace/call requests (bounded in count and time). Every simulation is stored.
 * A preloaded probe (test/support/memoryProbe.mjs) reports RSS and, after a full GC, the live
 * memory once a second.
 *
 * Before the fix each stored result kept a 16 KiB zlib chunk while counted at its compressed
 * ~2 KB, so the store held about nine times its bound (and with the default bound, RSS grew for
 * as long as anyone measured). Now: live memory grows by no more than the budget and then stays,
 * and RSS levels off within base + budget + V8's headroom.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../config/loadConfig.js'
import { DEV_ACCOUNTS, freePort } from '../support/anvil.js'

/** the load runs at least this long, until MIN_REQUESTS are answered, for at most MAX_RUN_MS */
const RUN_MS = 60_000
const MAX_RUN_MS = 180_000
/** twice what fills the store (about 600 results), so a store over its bound would show */
const MIN_REQUESTS = 1200
const START_MS = 120_000
const MAX_REQUESTS = 40_000
const CONCURRENCY = 8
/** the store gets half: about 600 stored simulations at their real cost, full within seconds */
const BUDGET_MB = 4
const V8_HEAP_MB = 192
const MB = 1024 * 1024
const root = new URL('../../', import.meta.url)
const probe = new URL('../support/memoryProbe.mjs', import.meta.url).href
const token = loadConfig({ env: { APP_ENV: 'test' } }).api.auth_token
const [A, B] = DEV_ACCOUNTS as unknown as [string, string]

describe('memory under a steady /simulate load', () => {
  let child: ChildProcess | undefined
  afterAll(() => {
    child?.kill('SIGKILL')
  })

  it(
    'live memory grows by at most the budget and RSS levels off',
    async () => {
      const port = await freePort()
      child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', '--import', probe, 'src/main.ts'], {
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
          // V8's heap capped as docs/operations.md "Memory budget" advises for a hard ceiling
          NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=${V8_HEAP_MB}`.trim(),
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      })
      let stderr = ''
      /** [ms since the load started, RSS MB, live MB] */
      const samples: [number, number, number][] = []
      let started = 0
      child.stderr!.on('data', (d) => {
        for (const line of String(d).split('\n')) {
          const m = /^MEMPROBE (\d+) (\d+) (\d+)$/.exec(line)
          if (m) {
            if (started) samples.push([Number(m[1]) - started, Number(m[2]) / MB, Number(m[3]) / MB])
          } else if (line.trim()) stderr += `${line}\n`
        }
      })
      const base = `http://127.0.0.1:${port}/v1`
      // start-up compiles the sources (tsx): slow on a busy machine, bounded all the same
      const startBy = Date.now() + START_MS
      for (;;) {
        const up = await fetch(`${base}/health`).then(
          (r) => r.ok,
          () => false,
        )
        if (up) break
        if (Date.now() > startBy || child.exitCode !== null) throw new Error(`service did not start: ${stderr}`)
        await new Promise((r) => setTimeout(r, 100))
      }

      let sent = 0
      let failed = 0
      started = Date.now()
      const worker = async () => {
        // a busy machine answers fewer requests a second: it runs longer, bounded all the same
        const more = () => {
          const t = Date.now() - started
          return sent < MAX_REQUESTS && t < MAX_RUN_MS && (t < RUN_MS || sent < MIN_REQUESTS)
        }
        while (more()) {
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
      const ranMs = Date.now() - started
      await new Promise((r) => setTimeout(r, 1500)) // the last probe line

      const early = samples.find(([t]) => t >= 3000) ?? samples[0]!
      const half = samples.filter(([t]) => t >= ranMs / 2)
      const liveGrowth = Math.max(...samples.map(([, , live]) => live)) - early[2]
      const liveSecondHalf = Math.max(...half.map(([, , live]) => live)) - half[0]![2]
      const rssPeak = Math.max(...samples.map(([, rss]) => rss))
      console.info(
        `soak: ${sent} requests (${failed} failed) in ${(ranMs / 1000).toFixed(0)} s; live ${early[2].toFixed(1)} MB at 3 s, +${liveGrowth.toFixed(1)} MB at most ` +
          `(+${liveSecondHalf.toFixed(1)} MB in the second half); RSS ${early[1].toFixed(0)} MB at 3 s, peak ${rssPeak.toFixed(0)} MB`,
      )
      expect(failed).toBe(0)
      // enough requests to fill the store twice over: a store over its bound would show
      expect(sent).toBeGreaterThanOrEqual(MIN_REQUESTS)
      // what the process holds grows by the cache budget at most (before: ~9× the store's bound)
      expect(liveGrowth).toBeLessThan(BUDGET_MB + 4)
      // and stays: nothing accumulates once the caches are full
      expect(liveSecondHalf).toBeLessThan(3)
      // RSS: base + budget + V8's own headroom, nothing that grows with the request count
      expect(rssPeak).toBeLessThan(early[1] + BUDGET_MB + 64)
    },
    START_MS + MAX_RUN_MS + 60_000,
  )
})
