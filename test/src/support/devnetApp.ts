/** The real app (createApp) over real HTTP on a free port, over the real engine on the embedded devnet. */
import { loadConfig } from '../../../config/loadConfig.js'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { createEngine } from '../../../engine/index.js'
import type { Engine } from '../../../engine/types.js'
import { createApp } from '../../../src/app.js'
import { createLogger } from '../../../src/logger.js'
import { listen } from '../../../host/server.js'

export interface DevnetApp {
  engine: Engine
  /** the app's origin, e.g. http://127.0.0.1:40123 */
  url: string
  /** POST (with a body) or GET, with the test token; the JSON answer */
  request(path: string, body?: unknown): Promise<{ status: number; json: any }> // eslint-disable-line @typescript-eslint/no-explicit-any
  close(): Promise<void>
}

export async function startDevnetApp(): Promise<DevnetApp> {
  const config = loadConfig({ env: { APP_ENV: 'test', RPC_URL: '' } })
  const cache = createMemoryCacheStore()
  const engine = await createEngine({
    cache,
    gasCap: BigInt(config.chain.gas_cap),
    rpcTimeoutMs: config.chain.rpc_timeout_ms,
    maxStructLogSteps: config.limits.max_struct_log_steps,
    simulationTtlSeconds: config.cache.simulation_ttl_seconds,
  })
  const logger = createLogger({ level: 'silent', secrets: [] })
  const server = await listen(createApp({ config, engine, cache, logger }), { host: '127.0.0.1', port: 0 })
  return {
    engine,
    url: server.url,
    async request(path, body) {
      const res = await fetch(`${server.url}/v1${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${config.api.auth_token}` },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      })
      return { status: res.status, json: await res.json() }
    },
    async close() {
      await server.close(1000)
      await engine.close()
    },
  }
}
