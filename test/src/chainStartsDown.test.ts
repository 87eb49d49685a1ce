/**
 * A named chain whose upstream is down when the service starts degrades alone: the deployment
 * starts, the chain shows `down` (with why) in GET /v1/chains and /v1/health, and its routes
 * answer 503 CHAIN_UNAVAILABLE (JSON-RPC: -32000) naming it, while the default chain answers.
 * A real Anvil started afterwards on its URL brings it up, its chain id checked; one that comes
 * up as another chain than its `chain_id` takes it out of service for good, logged and reported,
 * never serving the wrong chain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMemoryCacheStore } from '../../host/cache/memoryCacheStore.js'
import { createEngine } from '../../engine/index.js'
import type { EngineOptions } from '../../engine/types.js'
import { createChainSet, startNamedChains, type ChainSet } from '../../host/chains.js'
import { freePort, requireAnvil, startAnvil, type AnvilInstance } from '../support/anvil.js'
import { post, startTestApp, testToken, type TestApp } from './support/startTestApp.js'

const haveAnvil = requireAnvil()
const WHO = '0x00000000000000000000000000000000000b0b0b'
const base = { gasCap: 50_000_000n, rpcTimeoutMs: 2_000, maxStructLogSteps: 10_000, simulationTtlSeconds: 60 } satisfies Partial<EngineOptions>

describe.runIf(haveAnvil)('a named chain whose upstream is down at start', () => {
  const anvils: AnvilInstance[] = []
  const ports = { late: 0, wrong: 0 }
  const logged: { level: string; message: string }[] = []
  let chains: ChainSet
  let app: TestApp
  const cache = createMemoryCacheStore()

  beforeAll(async () => {
    ports.late = await freePort()
    ports.wrong = await freePort()
    const logger = {
      info: (_o: object, message: string) => logged.push({ level: 'info', message }),
      warn: (_o: object, message: string) => logged.push({ level: 'warn', message }),
      error: (_o: object, message: string) => logged.push({ level: 'error', message }),
    }
    const defaultEngine = await createEngine({ ...base, cache })
    const named = await startNamedChains(
      { late: { rpc_url: `http://127.0.0.1:${ports.late}`, chain_id: 31337 }, wrong: { rpc_url: `http://127.0.0.1:${ports.wrong}`, chain_id: 8453 } },
      cache,
      ({ rpcUrl, expectChainId, cache: ns }) => createEngine({ ...base, rpcUrl, cache: ns, expectChainId }),
      { retryMs: 200, logger },
    )
    chains = createChainSet(defaultEngine, named)
    app = await startTestApp({ engine: defaultEngine, chains, cache, env: { RATE_LIMIT_REQUESTS: '100000' } })
  }, 60_000)

  afterAll(async () => {
    await app?.close()
    await chains?.close()
    await Promise.all(anvils.map((a) => a.stop()))
  })

  const listed = async (name: string) => {
    const list = await (await app.fetch('/v1/chains', { headers: { authorization: `Bearer ${testToken}` } })).json()
    return list.data.find((c: { name: string }) => c.name === name)
  }
  async function until(name: string, status: string): Promise<Record<string, unknown>> {
    for (let i = 0; i < 300; i++) {
      const c = await listed(name)
      if (c.status === status) return c
      await new Promise((ok) => setTimeout(ok, 100))
    }
    throw new Error(`chain '${name}' never became ${status}: ${JSON.stringify(await listed(name))}`)
  }
  const balanceCall = (prefix: string) =>
    app.fetch(`${prefix}/v1/trace/call`, post({ call: { from: WHO, to: WHO, data: '0x' }, blockTag: 'latest', tracerConfig: { prestateTracer: {} } }))

  it('starts without it: the chain is down, its routes answer 503 CHAIN_UNAVAILABLE naming it, the default chain answers', async () => {
    expect(await listed('late')).toMatchObject({
      status: 'down',
      chainId: 31337,
      head: null,
      error: expect.stringContaining("chain 'late': its upstream does not answer"),
    })
    const rest = await balanceCall('/v1/chains/late')
    expect(rest.status).toBe(503)
    expect((await rest.json()).error).toMatchObject({ code: 'CHAIN_UNAVAILABLE', message: expect.stringContaining("chain 'late'") })
    const rpc = await (await app.fetch('/v1/chains/late/rpc', post({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }))).json()
    expect(rpc.error).toMatchObject({ code: -32000, message: expect.stringContaining("chain 'late'") })
    expect((await balanceCall('')).status).toBe(200)
    const health = await app.fetch('/v1/health')
    expect(health.status).toBe(200)
    const body = await health.json()
    expect(body.chains.find((c: { name: string }) => c.name === 'late')).toMatchObject({ status: 'down' })
    expect(logged.some((l) => l.level === 'warn' && l.message.includes("chain 'late'"))).toBe(true)
  })

  it('serves it once its upstream answers with the configured chain id', async () => {
    const anvil = await startAnvil({ port: ports.late })
    anvils.push(anvil)
    await anvil.rpc('anvil_setBalance', [WHO, '0x777'])
    expect(await until('late', 'ok')).toMatchObject({ chainId: 31337, head: '0x0' })
    const res = await balanceCall('/v1/chains/late')
    const body = await res.json()
    expect(res.status, JSON.stringify(body)).toBe(200)
    expect(body.data.prestateTracer[WHO].balance).toBe('0x777')
  })

  it('takes it out of service for good when its upstream comes up as another chain, logged and reported', async () => {
    anvils.push(await startAnvil({ port: ports.wrong }))
    const down = await until('wrong', 'down')
    for (let i = 0; i < 300 && !String((await listed('wrong')).error).includes('out of service'); i++) await new Promise((ok) => setTimeout(ok, 100))
    const reason = "chain 'wrong' is out of service: the upstream answers chain id 31337, not the configured 8453"
    expect((await listed('wrong')).error).toBe(reason)
    expect(down.head).toBeNull()
    const res = await balanceCall('/v1/chains/wrong')
    expect(res.status).toBe(503)
    expect((await res.json()).error.message).toBe(reason)
    expect(logged.some((l) => l.level === 'error' && l.message === reason)).toBe(true)
  })
})
