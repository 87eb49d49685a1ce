/**
 * Several chains in one process: a default chain and named ones under /v1/chains/{name}/, each on
 * its own real Anvil. Two of them share a chain id (31337) and one cache store, so an answer from
 * the other chain's fork cache would show; the third is an OP-stack node. The same request under
 * each prefix answers that chain's state; GET /v1/chains and /v1/health list them; an unknown
 * chain is 404 CHAIN_NOT_FOUND; a chain id that does not match its upstream fails the start
 * naming the chain; a chain whose upstream is down degrades alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMemoryCacheStore } from '../../host/cache/memoryCacheStore.js'
import { createEngine } from '../../engine/index.js'
import type { EngineOptions } from '../../engine/types.js'
import { createChainSet, startNamedChains, type ChainSet } from '../../host/chains.js'
import { requireAnvil, startAnvil, type AnvilInstance } from '../support/anvil.js'
import { startOpAnvil } from '../support/opAnvil.js'
import { post, startTestApp, testToken, type TestApp } from './support/startTestApp.js'

const haveAnvil = requireAnvil()
const WHO = '0x00000000000000000000000000000000000b0b0b'
const base = { gasCap: 50_000_000n, rpcTimeoutMs: 2_000, maxStructLogSteps: 10_000, simulationTtlSeconds: 60 } satisfies Partial<EngineOptions>

describe.runIf(haveAnvil)('several chains in one deployment', () => {
  let main: AnvilInstance
  let other: AnvilInstance
  let op: AnvilInstance
  let chains: ChainSet
  let app: TestApp
  const cache = createMemoryCacheStore()

  beforeAll(async () => {
    ;[main, other, op] = await Promise.all([startAnvil(), startAnvil(), startOpAnvil('isthmus')])
    // the same account, three balances
    await main.rpc('anvil_setBalance', [WHO, '0x111'])
    await other.rpc('anvil_setBalance', [WHO, '0x222'])
    await op.rpc('anvil_setBalance', [WHO, '0x333'])
    const defaultEngine = await createEngine({ ...base, rpcUrl: main.url, cache })
    const named = await startNamedChains(
      { other: { rpc_url: other.url, chain_id: 31337 }, op: { rpc_url: op.url, kind: 'op-stack', hardfork: 'isthmus' } },
      cache,
      ({ rpcUrl, hardfork, chainKind, expectChainId, cache: ns }) => createEngine({ ...base, rpcUrl, cache: ns, hardfork, chainKind, expectChainId }),
    )
    chains = createChainSet(defaultEngine, named)
    app = await startTestApp({ engine: defaultEngine, chains, cache, env: { RATE_LIMIT_REQUESTS: '100000' } })
  }, 60_000)

  afterAll(async () => {
    await app?.close()
    await chains?.close()
    await Promise.all([main, other, op].map((a) => a?.stop()))
  })

  /** WHO's balance as a traced call on the chain behind `prefix` reads it (engine state, not a passthrough) */
  async function balanceVia(prefix: string): Promise<string> {
    const res = await app.fetch(
      `${prefix}/v1/trace/call`,
      post({ call: { from: WHO, to: WHO, data: '0x' }, blockTag: 'latest', tracerConfig: { prestateTracer: {} } }),
    )
    const body = await res.json()
    expect(res.status, JSON.stringify(body)).toBe(200)
    return body.data.prestateTracer[WHO].balance
  }

  it("answers the same request from each chain's own state, two chains of one id never sharing cache entries", async () => {
    // twice each: the second answer comes from the fork cache, which must be the chain's own
    for (let round = 0; round < 2; round++) {
      expect(await balanceVia('')).toBe('0x111')
      expect(await balanceVia('/v1/chains/other')).toBe('0x222')
      expect(await balanceVia('/v1/chains/op')).toBe('0x333')
    }
  })

  it('serves the JSON-RPC endpoint of each chain, the token in the path too', async () => {
    const call = { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }
    const ids = []
    for (const path of ['/v1/rpc', '/v1/chains/op/v1/rpc', `/v1/chains/op/rpc/${testToken}`]) {
      const res = await app.fetch(path, post(call, path.includes(testToken) ? { token: null } : {}))
      ids.push((await res.json()).result)
    }
    expect(ids).toEqual(['0x7a69', '0xa', '0xa'])
  })

  it('lists the chains with their id, kind, head and health', async () => {
    const res = await app.fetch('/v1/chains', { headers: { authorization: `Bearer ${testToken}` } })
    const body = await res.json()
    expect(res.status).toBe(200)
    expect(
      body.data.map((c: { name: string; chainId: number; kind: string; status: string; default: boolean }) => [c.name, c.chainId, c.kind, c.status, c.default]),
    ).toEqual([
      ['default', 31337, 'ethereum', 'ok', true],
      ['other', 31337, 'ethereum', 'ok', false],
      ['op', 10, 'op-stack', 'ok', false],
    ])
    for (const c of body.data) expect(c.head).toMatch(/^0x[0-9a-f]+$/)
    const health = await (await app.fetch('/v1/health')).json()
    expect(health.chains.map((c: { name: string }) => c.name)).toEqual(['other', 'op'])
    const opHealth = await (await app.fetch('/v1/chains/op/health')).json()
    expect(opHealth).toMatchObject({ status: 'ok', chainId: 10 })
  })

  it('answers 404 CHAIN_NOT_FOUND for an unknown chain, REST and JSON-RPC alike', async () => {
    const rest = await app.fetch('/v1/chains/nope/v1/simulate', post({ params: { calls: [{ from: WHO, to: WHO }] } }))
    expect(rest.status).toBe(404)
    expect((await rest.json()).error).toMatchObject({ code: 'CHAIN_NOT_FOUND', message: "no chain named 'nope'" })
    const rpc = await app.fetch('/v1/chains/nope/rpc', post({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }))
    const body = await rpc.json()
    expect(body.error.message).toContain("no chain named 'nope'")
  })

  it('fails the start naming the chain whose upstream answers another chain id', async () => {
    await expect(
      startNamedChains({ base: { rpc_url: main.url, chain_id: 8453 } }, cache, ({ rpcUrl, expectChainId, cache: ns }) =>
        createEngine({ ...base, rpcUrl, cache: ns, expectChainId }),
      ),
    ).rejects.toThrow("chain 'base': the upstream answers chain id 31337, not the configured 8453")
  })

  it("keeps answering on the other chains when one chain's upstream is down", async () => {
    await other.stop()
    // an account no earlier request read: its state can only come from the (stopped) upstream
    const res = await app.fetch(
      '/v1/chains/other/v1/trace/call',
      post({ call: { from: WHO, to: '0x00000000000000000000000000000000000dead1', data: '0x' }, blockTag: 'latest', tracerConfig: { prestateTracer: {} } }),
    )
    expect(res.status).toBeGreaterThanOrEqual(500)
    expect(await balanceVia('')).toBe('0x111')
    expect(await balanceVia('/v1/chains/op')).toBe('0x333')
    const list = await (await app.fetch('/v1/chains', { headers: { authorization: `Bearer ${testToken}` } })).json()
    expect(list.data.find((c: { name: string }) => c.name === 'other')).toMatchObject({ status: 'degraded', head: null })
    const health = await app.fetch('/v1/health')
    expect(health.status).toBe(200)
  })
})
