/**
 * The real app over real HTTP on a free port, over the real engine — on the embedded devnet or
 * forking an upstream (`rpcUrl`) — with forks in memory or in Redis (`forkStore`). Tests point
 * real clients (viem, ethers, cast) at the forks it creates.
 */
import { loadConfig, type ServiceConfig } from '../../../config/loadConfig.js'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { createEngine } from '../../../engine/index.js'
import type { ForkStore } from '../../../engine/chains/forks/types.js'
import type { Engine } from '../../../engine/types.js'
import { createApp } from '../../../src/app.js'
import { createLogger } from '../../../src/logger.js'
import { listen } from '../../../host/server.js'
import type { Hex } from 'viem'
import { startAnvil, type AnvilInstance } from '../../support/anvil.js'

export interface ForkApp {
  url: string
  config: ServiceConfig
  engine: Engine
  /** a JSON request with the test token; the status and JSON answer */
  request(method: string, path: string, body?: unknown): Promise<{ status: number; retryAfter: string | null; json: any }> // eslint-disable-line @typescript-eslint/no-explicit-any
  /** creates a fork; its id and its JSON-RPC URL with the token in the path (what a tool without headers uses) */
  createFork(body?: Record<string, unknown>): Promise<{ forkId: string; rpcUrl: string; data: any }> // eslint-disable-line @typescript-eslint/no-explicit-any
  /** one JSON-RPC call on a fork: the whole answer (result or error) */
  rpc(
    forkId: string,
    method: string,
    params?: unknown[],
  ): Promise<{ status: number; retryAfter: string | null; result?: any; error?: { code: number; message: string; data?: unknown } }> // eslint-disable-line @typescript-eslint/no-explicit-any
  close(): Promise<void>
}

export async function startForkApp(opts: { rpcUrl?: string; forkStore?: ForkStore; env?: Record<string, string> } = {}): Promise<ForkApp> {
  const config = loadConfig({ env: { APP_ENV: 'test', RPC_URL: opts.rpcUrl ?? '', RATE_LIMIT_REQUESTS: '100000', ...opts.env } })
  const cache = createMemoryCacheStore()
  const engine = await createEngine({
    cache,
    ...(opts.rpcUrl && { rpcUrl: opts.rpcUrl }),
    gasCap: BigInt(config.chain.gas_cap),
    rpcTimeoutMs: config.chain.rpc_timeout_ms,
    headMaxAgeMs: 0,
    maxStructLogSteps: config.limits.max_struct_log_steps,
    simulationTtlSeconds: config.cache.simulation_ttl_seconds,
    ...(opts.forkStore && { forkStore: opts.forkStore }),
    // FORK_TEST_DEBUG=1 prints what the engine logs (an unexpected error's cause)
    ...(process.env.FORK_TEST_DEBUG && {
      logger: { info: () => {}, warn: console.warn, error: (o: object, m?: string) => console.error(m, JSON.stringify(o)) },
    }),
    forkLimits: {
      maxForks: config.forks.max_forks,
      defaultTtlSeconds: config.forks.default_ttl_seconds,
      maxBlocks: config.forks.max_blocks,
      maxStateBytes: config.forks.max_state_mb * 2 ** 20,
    },
  })
  const logger = createLogger({ level: 'silent', secrets: [] })
  const server = await listen(createApp({ config, engine, cache, logger }), { host: '127.0.0.1', port: 0 })
  const token = config.api.auth_token
  let id = 0
  const request: ForkApp['request'] = async (method, path, body) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    })
    const text = await res.text()
    return { status: res.status, retryAfter: res.headers.get('retry-after'), json: text ? JSON.parse(text) : undefined }
  }
  return {
    url: server.url,
    config,
    engine,
    request,
    async createFork(body = {}) {
      const res = await request('POST', '/v1/forks', body)
      if (res.status !== 201) throw new Error(`POST /v1/forks answered ${res.status}: ${JSON.stringify(res.json)}`)
      return { forkId: res.json.data.forkId, rpcUrl: `${res.json.data.rpcUrl}/${token}`, data: res.json.data }
    },
    async rpc(forkId, method, params = []) {
      const res = await request('POST', `/v1/forks/${forkId}/rpc`, { jsonrpc: '2.0', id: ++id, method, params })
      return { status: res.status, retryAfter: res.retryAfter, ...res.json }
    },
    async close() {
      await server.close(1000)
      await engine.close()
    },
  }
}

/**
 * The two sides of a differential on one upstream: an Anvil forking it at its current block, and
 * the service (in process) forking it; `forkBlock` is that block, for POST /v1/forks.
 */
export async function startForkPair(upstream: AnvilInstance): Promise<{ forkBlock: Hex; anvilFork: AnvilInstance; app: ForkApp; close(): Promise<void> }> {
  const forkBlock = await upstream.rpc<Hex>('eth_blockNumber')
  const anvilFork = await startAnvil({ args: ['--fork-url', upstream.url, '--fork-block-number', String(BigInt(forkBlock))] })
  const app = await startForkApp({ rpcUrl: upstream.url })
  return {
    forkBlock,
    anvilFork,
    app,
    async close() {
      await app.close()
      await anvilFork.stop()
    },
  }
}
