/**
 * A run whose request has been given up is stopped in place, in every way of running the engine:
 * in process (WORKERS=1), on worker threads (WORKERS=2) and in several HTTP processes
 * (PROCESSES=2). A loop contract (JUMPDEST PUSH1 0 JUMP, put in place with a state override) under
 * a gas cap that lets it run for minutes is called through the real service in front of a real
 * Anvil:
 * - with a low request timeout, its eth_call and debug_traceCall are answered 504 in time, and the
 *   plain calls asked right after are answered within their normal time (the runs no longer hold
 *   the engine; on worker threads no worker was replaced);
 * - with a long request timeout, a client that goes away mid-run frees the engine at once (the
 *   pool's calls in flight drop to none; in process, the request's log line says it ended, its
 *   client gone).
 * Every bound is a share of the configured timeout, never a fixed wall-clock figure.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Hex } from 'viem'
import { loadConfig } from '../../../config/loadConfig.js'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import type { Engine } from '../../../engine/types.js'
import { createWorkerPoolEngine, startWorkerPool, type WorkerPoolEngine } from '../../../host/workers/index.js'
import { createApp } from '../../../src/app.js'
import type { HttpLogger } from '../../../src/httpEnv.js'
import { listen, type Listening } from '../../../host/server.js'
import { DEV_ACCOUNTS, freePort, requireAnvil, startAnvil, type AnvilInstance } from '../../support/anvil.js'

/** the low request timeout of the timeout cases */
const TIMEOUT_MS = 1500
/** the long one of the client cases: only the client's going away can end the run early */
const LONG_TIMEOUT_MS = 20_000
/** a loop of 12 gas per turn under this cap runs for minutes */
const GAS_CAP = 2_000_000_000
const ready = requireAnvil()
const [A, B] = DEV_ACCOUNTS as unknown as [Hex, Hex]
const LOOP_AT: Hex = '0x00000000000000000000000000000000000100f0'
const LOOP_CODE: Hex = '0x5b600056'
const root = new URL('../../../', import.meta.url)

const loopCall = { from: A, to: LOOP_AT, gas: `0x${GAS_CAP.toString(16)}` }
const loopEthCall = (id: number) => ({ jsonrpc: '2.0', id, method: 'eth_call', params: [loopCall, 'latest', { [LOOP_AT]: { code: LOOP_CODE } }] })
const loopTraceCall = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'debug_traceCall',
  params: [loopCall, 'latest', { tracer: 'callTracer', stateOverrides: { [LOOP_AT]: { code: LOOP_CODE } } }],
})
const plainCall = (id: number) => ({ jsonrpc: '2.0', id, method: 'eth_call', params: [{ from: A, to: B, value: '0x1' }, 'latest'] })

interface Answer {
  status: number
  json: any // eslint-disable-line @typescript-eslint/no-explicit-any
  ms: number
}

function rpcAt(url: string, token: string) {
  return async (body: unknown, signal?: AbortSignal): Promise<Answer> => {
    const t0 = performance.now()
    const res = await fetch(`${url}/v1/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
      signal,
    })
    const json = await res.json()
    return { status: res.status, json, ms: performance.now() - t0 }
  }
}

/** the slowest of a few plain calls, one after another: their normal time on this machine now */
async function plainTime(rpc: (b: unknown) => Promise<Answer>): Promise<number> {
  let slowest = 0
  for (let i = 0; i < 5; i++) {
    const a = await rpc(plainCall(900 + i))
    expect(a.json.result).toBe('0x')
    slowest = Math.max(slowest, a.ms)
  }
  return slowest
}

async function until<T>(what: string, fn: () => T | undefined, ms: number): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = fn()
    if (v !== undefined) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** loop runs answered 504 in time, then plain calls within their normal time */
async function timedOutRunsThenPlainCalls(rpc: (b: unknown) => Promise<Answer>, loops: unknown[], timeoutMs: number): Promise<void> {
  const normalMs = await plainTime(rpc)
  const given = await Promise.all(loops.map((l) => rpc(l)))
  for (const a of given) {
    expect(a.status).toBe(504)
    expect(a.json.error.code).toBe(-32000)
    expect(a.json.error.message).toBe(`the request ran longer than ${timeoutMs} ms`)
    expect(a.ms).toBeLessThan(timeoutMs * 1.5)
  }
  const plain = await Promise.all(Array.from({ length: 4 }, (_, i) => rpc(plainCall(100 + i))))
  for (const a of plain) {
    expect(a.status).toBe(200)
    expect(a.json.result).toBe('0x')
    expect(a.ms).toBeLessThan(normalMs + timeoutMs / 2)
  }
}

describe.runIf(ready)('a run whose request is given up is stopped in place', () => {
  let anvil: AnvilInstance
  const opened: { close(): Promise<void> }[] = []

  beforeAll(async () => {
    anvil = await startAnvil()
    await anvil.rpc('evm_mine')
  }, 60_000)
  afterAll(async () => {
    for (const o of opened.reverse()) await o.close().catch(() => undefined)
    await anvil?.stop()
  })

  /** the service over `engine` (built by `start` from the config), with its request log lines */
  async function service(workers: number, timeoutMs: number) {
    const config = loadConfig({
      env: {
        APP_ENV: 'test',
        RPC_URL: anvil.url,
        WORKERS: String(workers),
        REQUEST_TIMEOUT_MS: String(timeoutMs),
        GAS_CAP: String(GAS_CAP),
        RATE_LIMIT_REQUESTS: '100000',
      },
    })
    const cache = createMemoryCacheStore()
    const engineOptions = {
      rpcUrl: anvil.url,
      cache,
      cacheUrl: 'memory://',
      workers,
      gasCap: BigInt(config.chain.gas_cap),
      rpcTimeoutMs: config.chain.rpc_timeout_ms,
      maxStructLogSteps: config.limits.max_struct_log_steps,
      simulationTtlSeconds: config.cache.simulation_ttl_seconds,
      callTimeoutMs: config.server.request_timeout_ms,
    }
    const engine: Engine = workers > 1 ? await startWorkerPool(engineOptions) : await createWorkerPoolEngine(engineOptions)
    opened.push(engine)
    const lines: Record<string, unknown>[] = []
    const logger: HttpLogger = { info: (o) => lines.push(o as never), warn: (o) => lines.push(o as never), error: (o) => lines.push(o as never) }
    const server: Listening = await listen(createApp({ config, engine, cache, logger }), { host: '127.0.0.1', port: 0 })
    opened.push({ close: () => server.close(1000) })
    return { engine, rpc: rpcAt(server.url, config.api.auth_token), lines }
  }

  it('in process: a timed-out eth_call and debug_traceCall stop at their timeout; plain calls right after answer in their normal time', async () => {
    const { rpc } = await service(1, TIMEOUT_MS)
    await timedOutRunsThenPlainCalls(rpc, [loopEthCall(1), loopTraceCall(2)], TIMEOUT_MS)
  }, 120_000)

  it('on worker threads: timed-out runs on both workers stop in place (every worker ready throughout, none replaced); plain calls right after answer in their normal time', async () => {
    const { engine, rpc } = await service(2, TIMEOUT_MS)
    const pool = engine as WorkerPoolEngine
    // every worker stays ready throughout: none is replaced, none left starting up under load
    let notReady = 0
    const sampler = setInterval(() => (notReady += pool.stats().workers.some((w) => !w.ready) ? 1 : 0), 20)
    try {
      await timedOutRunsThenPlainCalls(rpc, [loopEthCall(1), loopTraceCall(2), loopEthCall(3), loopTraceCall(4)], TIMEOUT_MS)
    } finally {
      clearInterval(sampler)
    }
    expect(notReady).toBe(0)
    expect(pool.stats().workers.map((w) => w.starts)).toEqual([1, 1])
  }, 120_000)

  it('in process: a client that goes away mid-run ends the run at once', async () => {
    const { rpc, lines } = await service(1, LONG_TIMEOUT_MS)
    const normalMs = await plainTime(rpc)
    const client = new AbortController()
    const gone = rpc(loopEthCall(7), client.signal).catch((e: Error) => e)
    // the run is under way (its request is not logged while it runs)
    await new Promise((r) => setTimeout(r, 300))
    expect(lines.filter((l) => l.clientGone)).toHaveLength(0)
    const abortedAt = performance.now()
    client.abort()
    expect(await gone).toBeInstanceOf(Error)
    // the request's log line: it ended, its client gone, long before its timeout
    const line = await until('the log line of the abandoned request', () => lines.find((l) => l.clientGone), LONG_TIMEOUT_MS / 4)
    expect(performance.now() - abortedAt).toBeLessThan(LONG_TIMEOUT_MS / 4)
    expect(line.durationMs).toBeLessThan(LONG_TIMEOUT_MS / 4)
    const next = await rpc(plainCall(8))
    expect(next.json.result).toBe('0x')
    expect(next.ms).toBeLessThan(normalMs + TIMEOUT_MS / 2)
  }, 120_000)

  it('on worker threads: a client that goes away mid-run frees its worker at once, without replacing it', async () => {
    const { engine, rpc } = await service(2, LONG_TIMEOUT_MS)
    const pool = engine as WorkerPoolEngine
    await plainTime(rpc)
    const client = new AbortController()
    const gone = Promise.all([rpc(loopEthCall(7), client.signal), rpc(loopTraceCall(8), client.signal)]).catch((e: Error) => e)
    await until('both runs under way', () => (pool.stats().workers.every((w) => w.inflight === 1) ? true : undefined), LONG_TIMEOUT_MS / 4)
    const abortedAt = performance.now()
    client.abort()
    expect(await gone).toBeInstanceOf(Error)
    await until('no call in flight', () => (pool.stats().workers.every((w) => w.inflight === 0) ? true : undefined), LONG_TIMEOUT_MS / 4)
    expect(performance.now() - abortedAt).toBeLessThan(LONG_TIMEOUT_MS / 4)
    expect(pool.stats().workers.map((w) => w.starts)).toEqual([1, 1])
    expect((await rpc(plainCall(9))).json.result).toBe('0x')
  }, 120_000)

  describe('PROCESSES=2', () => {
    let child: ChildProcess | undefined
    afterAll(() => {
      if (child?.exitCode === null) child.kill('SIGKILL')
    })

    it('timed-out runs in both HTTP processes stop at their timeout; plain calls right after answer in their normal time', async () => {
      const port = await freePort()
      const env = {
        APP_ENV: 'test',
        PORT: String(port),
        PROCESSES: '2',
        WORKERS: '1',
        RPC_URL: anvil.url,
        CACHE_URL: 'memory://',
        REQUEST_TIMEOUT_MS: String(TIMEOUT_MS),
        GAS_CAP: String(GAS_CAP),
        RATE_LIMIT_REQUESTS: '100000',
        LOG_LEVEL: 'info',
      }
      child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
      let listening = false
      const answeredBy = new Set<number>()
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const entry = JSON.parse(line) as { msg?: string; process?: number; status?: number }
        if (entry.msg === 'HTTP processes listening') listening = true
        if (entry.msg === 'request' && entry.status === 504) answeredBy.add(entry.process!)
      })
      await until('every process listening', () => (listening ? true : undefined), 100_000)
      const rpc = rpcAt(`http://127.0.0.1:${port}`, loadConfig({ env: { APP_ENV: 'test' } }).api.auth_token)
      // connections are handed out round robin: four loops at once reach both processes
      await timedOutRunsThenPlainCalls(rpc, [loopEthCall(1), loopTraceCall(2), loopEthCall(3), loopTraceCall(4)], TIMEOUT_MS)
      await until('the 504s logged', () => (answeredBy.size === 2 ? true : undefined), TIMEOUT_MS)
    }, 180_000)
  })
})
