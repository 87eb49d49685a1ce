/**
 * The real app over real HTTP with a real engine — the embedded devnet, or a fork of `rpcUrl` —
 * for JSON-RPC tests: `rpc()` posts one request or a batch to /v1/rpc with the test token.
 */
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import type { CacheStore } from '../../../engine/state/store/cacheStore.js'
import { createEngine } from '../../../engine/index.js'
import type { Engine, EngineOptions } from '../../../engine/types.js'
import { post, startTestApp, type TestApp } from '../support/startTestApp.js'

export interface RpcApp extends TestApp {
  realEngine: Engine
  /** the endpoint URL with the token in its path (for tools that take only a URL) */
  rpcUrl: string
  /** POST a body (object, array or raw text) to /v1/rpc; status and parsed JSON (undefined for an empty body) */
  rpc(body: unknown, opts?: { token?: string | null; path?: string }): Promise<{ status: number; json: any; text: string }> // eslint-disable-line @typescript-eslint/no-explicit-any
  /** one call: its result, or throws the JSON-RPC error object */
  call<T = unknown>(method: string, params?: unknown[]): Promise<T>
}

export async function startRpcApp(
  opts: { rpcUrl?: string; env?: Record<string, string>; cache?: CacheStore; engine?: Partial<EngineOptions> } = {},
): Promise<RpcApp> {
  const cache = opts.cache ?? createMemoryCacheStore()
  const engine = await createEngine({
    rpcUrl: opts.rpcUrl,
    cache,
    gasCap: 50_000_000n,
    rpcTimeoutMs: 10_000,
    maxStructLogSteps: 1_000_000,
    simulationTtlSeconds: 3600,
    ...opts.engine,
  })
  const app = await startTestApp({ engine, cache, env: { RPC_URL: opts.rpcUrl ?? '', RATE_LIMIT_REQUESTS: '100000', ...opts.env } })
  let id = 0
  const rpc: RpcApp['rpc'] = async (body, o = {}) => {
    const res = await app.fetch(o.path ?? '/v1/rpc', post(body, { token: o.token }))
    const text = await res.text()
    return { status: res.status, text, json: text === '' ? undefined : JSON.parse(text) }
  }
  return {
    ...app,
    realEngine: engine,
    rpcUrl: `${app.url}/v1/rpc/${app.config.api.auth_token}`,
    rpc,
    async call<T>(method: string, params: unknown[] = []) {
      const { json } = await rpc({ jsonrpc: '2.0', id: ++id, method, params })
      if (json.error) throw Object.assign(new Error(json.error.message), json.error)
      return json.result as T
    },
    async close() {
      await app.close()
      await engine.close()
    },
  }
}
