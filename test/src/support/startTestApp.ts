/**
 * Starts the real app (createApp) over real HTTP on a free port, with the test config plus
 * environment-style overrides, an in-memory cache store and a logger whose lines are kept for
 * assertions (e.g. that no secret is ever logged).
 */
import type { ChainSet } from '../../../host/chains.js'
import { Writable } from 'node:stream'
import { loadConfig, type ServiceConfig } from '../../../config/loadConfig.js'
import type { CacheStore } from '../../../engine/state/store/cacheStore.js'
import type { Engine } from '../../../engine/types.js'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { createApp } from '../../../src/app.js'
import { createLogger } from '../../../src/logger.js'
import { listen, type DrainFlag, type Listening } from '../../../host/server.js'
import { createTestEngine, type TestEngine } from './testEngine.js'

export interface TestApp {
  url: string
  config: ServiceConfig
  engine: TestEngine
  cache: CacheStore
  /** parsed JSON log lines */
  logs: Record<string, unknown>[]
  /** every log byte written, for secret scans */
  rawLogs(): string
  fetch(path: string, init?: RequestInit): Promise<TestResponse>
  close(): Promise<void>
}

/** a Response whose json() is loosely typed: tests assert on its shape */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type TestResponse = Omit<Response, 'json'> & { json(): Promise<any> }

export interface StartTestAppOptions {
  /** environment variables as an operator would set them (APP_ENV defaults to test) */
  env?: Record<string, string>
  /** default: a fresh test engine; a real Engine works too (then only its Engine methods are used) */
  engine?: TestEngine | Engine
  cache?: CacheStore
  /** named chains served under /v1/chains/{name}/ (host/chains.ts) */
  chains?: ChainSet
  /** the process's drain flag (host/server.ts): set it to answer as a draining process */
  drain?: DrainFlag
}

export async function startTestApp(opts: StartTestAppOptions = {}): Promise<TestApp> {
  const config = loadConfig({ env: { APP_ENV: 'test', ...opts.env } })
  const engine = (opts.engine ?? createTestEngine()) as TestEngine
  const cache = opts.cache ?? createMemoryCacheStore()
  let raw = ''
  const logs: Record<string, unknown>[] = []
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      raw += chunk.toString('utf8')
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) logs.push(JSON.parse(line) as Record<string, unknown>)
      done()
    },
  })
  const logger = createLogger({ level: 'info', secrets: [config.chain.rpc_url, config.api.auth_token], destination: sink })
  const app = createApp({ config, engine, cache, logger, ...(opts.chains && { chains: opts.chains }), ...(opts.drain && { drain: opts.drain }) })
  const server: Listening = await listen(app, { host: '127.0.0.1', port: 0 })
  return {
    url: server.url,
    config,
    engine,
    cache,
    logs,
    rawLogs: () => raw,
    fetch: (path, init) => fetch(server.url + path, init) as Promise<TestResponse>,
    close: () => server.close(1000),
  }
}

/** JSON POST with the test token (config/test.toml) unless `token` says otherwise */
export function post(body: unknown, opts: { token?: string | null; headers?: Record<string, string> } = {}): RequestInit {
  const token = opts.token === undefined ? testToken : opts.token
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token !== null && { authorization: `Bearer ${token}` }), ...opts.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  }
}

export const testToken = 'test-token-0123456789abcdef'
export const authed = (headers: Record<string, string> = {}): RequestInit => ({ headers: { authorization: `Bearer ${testToken}`, ...headers } })
