/**
 * GET /metrics of a real service in process, serving three chains on real upstreams: the default
 * chain and `other` each on an Anvil of their own, `flaky` on a third Anvil behind a front that
 * can hang (its URL carries a key, as a hosted provider's does) and whose Anvil is finally
 * stopped. Requests on one chain move that chain's series only; an upstream that stops answering
 * shows in `evmsim_upstream_up` and in the error and timeout counts; the exposition is valid
 * text format; no label carries a URL or the key; the endpoint wants the API's token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { createWorkerPoolEngine } from '../../../host/workers/index.js'
import { createChainSet, startNamedChains, type ChainSet } from '../../../host/chains.js'
import { requireAnvil, startAnvil, type AnvilInstance } from '../../support/anvil.js'
import { startHangingUpstream, type HangingUpstream } from '../../support/hangingUpstream.js'
import { labelValues, parsePromText, sampleSum, type Family } from '../../support/promText.js'
import { post, startTestApp, testToken, type TestApp } from '../../src/support/startTestApp.js'

const haveAnvil = requireAnvil()
const WHO = '0x00000000000000000000000000000000000b0b0b'
const engineOptions = { workers: 1, gasCap: 50_000_000n, rpcTimeoutMs: 1_000, headMaxAgeMs: 0, maxStructLogSteps: 10_000, simulationTtlSeconds: 60 }

describe.runIf(haveAnvil)('GET /metrics, in process, three chains', () => {
  let main: AnvilInstance
  let other: AnvilInstance
  let flakyNode: AnvilInstance
  let flaky: HangingUpstream
  let chains: ChainSet
  let app: TestApp
  const cache = createMemoryCacheStore()

  beforeAll(async () => {
    ;[main, other, flakyNode] = await Promise.all([startAnvil(), startAnvil(), startAnvil()])
    flaky = await startHangingUpstream(flakyNode.port)
    const defaultEngine = await createWorkerPoolEngine({ ...engineOptions, rpcUrl: main.url, cache })
    const named = await startNamedChains({ other: { rpc_url: other.url }, flaky: { rpc_url: flaky.url } }, cache, ({ rpcUrl, cache: ns }) =>
      createWorkerPoolEngine({ ...engineOptions, rpcUrl, cache: ns }),
    )
    chains = createChainSet(defaultEngine, named)
    app = await startTestApp({ engine: defaultEngine, chains, cache, env: { RATE_LIMIT_REQUESTS: '100000' } })
  }, 60_000)

  afterAll(async () => {
    await app?.close()
    await chains?.close()
    await flaky?.close()
    await Promise.all([main, other, flakyNode].map((a) => a?.stop()))
  })

  async function scrape(): Promise<Map<string, Family>> {
    const res = await app.fetch('/metrics', { headers: { authorization: `Bearer ${testToken}` } })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    return parsePromText(await res.text())
  }

  const traceCall = (prefix: string) =>
    app.fetch(`${prefix}/v1/trace/call`, post({ call: { from: WHO, to: WHO, data: '0x' }, blockTag: 'latest', tracerConfig: { callTracer: {} } }))
  const rpc = (prefix: string, method: string, params: unknown[] = []) => app.fetch(`${prefix}/v1/rpc`, post({ jsonrpc: '2.0', id: 1, method, params }))

  it('wants the API token, and is not served under a chain prefix', async () => {
    expect((await app.fetch('/metrics')).status).toBe(401)
    expect((await app.fetch('/metrics', { headers: { authorization: 'Bearer wrong' } })).status).toBe(401)
    expect((await app.fetch('/v1/chains/other/metrics', { headers: { authorization: `Bearer ${testToken}` } })).status).toBe(404)
  })

  it("counts a chain's requests, upstream calls and fork reads under that chain only", async () => {
    const before = await scrape()
    for (let i = 0; i < 3; i++) expect((await traceCall('/v1/chains/other')).status).toBe(200)
    expect((await rpc('/v1/chains/other', 'eth_blockNumber')).status).toBe(200)
    expect((await rpc('/v1/chains/other', 'no_suchMethod')).status).toBe(200)
    const after = await scrape()
    const moved = (name: string, labels: Record<string, string>) => sampleSum(after, name, labels) - sampleSum(before, name, labels)

    expect(moved('evmsim_http_requests_total', { chain: 'other', door: 'rest', route: '/v1/trace/call', status_class: '2xx' })).toBe(3)
    expect(moved('evmsim_http_request_duration_seconds_count', { chain: 'other', door: 'rest', route: '/v1/trace/call' })).toBe(3)
    expect(moved('evmsim_http_requests_total', { chain: 'other', door: 'rpc', route: 'eth_blockNumber' })).toBe(1)
    // a method no table serves is `other`: the caller's text never becomes a label
    expect(moved('evmsim_http_requests_total', { chain: 'other', door: 'rpc', route: 'other' })).toBe(1)
    expect(labelValues(after)).not.toContain('no_suchMethod')
    expect(moved('evmsim_upstream_requests_total', { chain: 'other', outcome: 'ok' })).toBeGreaterThan(0)
    expect(moved('evmsim_upstream_request_duration_seconds_count', { chain: 'other' })).toBeGreaterThan(0)
    expect(moved('evmsim_upstream_http_requests_total', { chain: 'other' })).toBeGreaterThan(0)
    // the first trace read WHO upstream, the next two from memory
    expect(moved('evmsim_fork_cache_misses_total', { chain: 'other' })).toBeGreaterThan(0)
    expect(moved('evmsim_fork_cache_hits_total', { chain: 'other', level: 'memory' })).toBeGreaterThan(0)
    expect(sampleSum(after, 'evmsim_chain_head_block', { chain: 'other' })).toBe(Number(BigInt(await other.rpc<string>('eth_blockNumber'))))

    // the default chain saw none of it (the scrape's own health probe aside)
    expect(moved('evmsim_http_requests_total', { chain: 'default', route: '/v1/trace/call' })).toBe(0)
    expect(moved('evmsim_fork_cache_misses_total', { chain: 'default' })).toBe(0)
    expect(moved('evmsim_upstream_requests_total', { chain: 'default', method: 'eth_getBalance' })).toBe(0)

    // and the other way round
    const before2 = after
    expect((await traceCall('')).status).toBe(200)
    const after2 = await scrape()
    const moved2 = (name: string, labels: Record<string, string>) => sampleSum(after2, name, labels) - sampleSum(before2, name, labels)
    expect(moved2('evmsim_http_requests_total', { chain: 'default', door: 'rest', route: '/v1/trace/call' })).toBe(1)
    expect(moved2('evmsim_fork_cache_misses_total', { chain: 'default' })).toBeGreaterThan(0)
    expect(moved2('evmsim_http_requests_total', { chain: 'other', route: '/v1/trace/call' })).toBe(0)
    expect(moved2('evmsim_fork_cache_misses_total', { chain: 'other' })).toBe(0)
  }, 60_000)

  it('labels each front door, route pattern and status class, an unknown chain as unknown', async () => {
    const before = await scrape()
    expect((await app.fetch('/v1/simulations/sim_doesnotexist', { headers: { authorization: `Bearer ${testToken}` } })).status).toBeLessThan(500)
    expect((await app.fetch('/v1/ui')).status).toBe(200)
    expect((await app.fetch('/v1/no/such/route', { headers: { authorization: `Bearer ${testToken}` } })).status).toBe(404)
    expect((await app.fetch('/v1/chains/nosuchchain/trace/call', post({}))).status).toBe(404)
    expect((await app.fetch('/v1/trace/call', post({}, { token: null }))).status).toBe(401)
    const after = await scrape()
    const moved = (labels: Record<string, string>) =>
      sampleSum(after, 'evmsim_http_requests_total', labels) - sampleSum(before, 'evmsim_http_requests_total', labels)
    const routes = new Set(after.get('evmsim_http_requests_total')!.samples.map((s) => s.labels.route))
    expect(routes.has('/v1/simulations/:simulationId')).toBe(true)
    expect(labelValues(after)).not.toContain('/v1/simulations/sim_doesnotexist')
    expect(moved({ door: 'viewer', route: '/v1/ui', status_class: '2xx' })).toBe(1)
    expect(moved({ door: 'rest', route: 'other', status_class: '4xx', chain: 'default' })).toBe(1)
    expect(moved({ chain: 'unknown', status_class: '4xx' })).toBe(1)
    expect(labelValues(after)).not.toContain('nosuchchain')
    // a middleware's answer (401) still names the route the request was for
    expect(moved({ door: 'rest', route: '/v1/trace/call', status_class: '4xx', chain: 'default' })).toBe(1)
  }, 30_000)

  it("follows an idle chain's head: the scrape's health probe reads it", async () => {
    await main.rpc('anvil_mine', ['0x3'])
    const head = Number(BigInt(await main.rpc<string>('eth_blockNumber')))
    expect(sampleSum(await scrape(), 'evmsim_chain_head_block', { chain: 'default' })).toBe(head)
  })

  it("counts a writable fork's JSON-RPC under fork-rpc, and the forks open under their chain", async () => {
    const before = await scrape()
    const created = await app.fetch('/v1/chains/other/forks', post({}))
    expect(created.status).toBe(201)
    const { forkId } = (await created.json()).data as { forkId: string }
    const res = await app.fetch(`/v1/chains/other/forks/${forkId}/rpc`, post({ jsonrpc: '2.0', id: 1, method: 'evm_mine', params: [] }))
    expect(res.status).toBe(200)
    const after = await scrape()
    const moved = (labels: Record<string, string>) =>
      sampleSum(after, 'evmsim_http_requests_total', labels) - sampleSum(before, 'evmsim_http_requests_total', labels)
    expect(moved({ door: 'fork-rpc', route: 'evm_mine', chain: 'other', status_class: '2xx' })).toBe(1)
    expect(moved({ door: 'rest', route: '/v1/forks', chain: 'other', status_class: '2xx' })).toBe(1)
    expect(labelValues(after).some((v) => v.includes(forkId))).toBe(false)
    expect(sampleSum(after, 'evmsim_forks_open', { chain: 'other' })).toBe(1)
    expect(sampleSum(after, 'evmsim_forks_open', { chain: 'default' })).toBe(0)
    expect((await app.fetch(`/v1/chains/other/forks/${forkId}`, { method: 'DELETE', headers: { authorization: `Bearer ${testToken}` } })).status).toBe(200)
    expect(sampleSum(await scrape(), 'evmsim_forks_open', { chain: 'other' })).toBe(0)
  }, 30_000)

  it('shows an upstream that stops answering: the health gauge falls, timeouts and errors count, the others stay up', async () => {
    const up = await scrape()
    expect(sampleSum(up, 'evmsim_upstream_up', { chain: 'flaky' })).toBe(1)
    expect(sampleSum(up, 'evmsim_upstream_up', { chain: 'default' })).toBe(1)
    expect(sampleSum(up, 'evmsim_cache_store_up')).toBe(1)

    // a node that accepts and never answers: timeouts
    flaky.hang(true)
    expect((await traceCall('/v1/chains/flaky')).status).toBe(502)
    const hung = await scrape()
    expect(sampleSum(hung, 'evmsim_upstream_up', { chain: 'flaky' })).toBe(0)
    expect(sampleSum(hung, 'evmsim_upstream_up', { chain: 'other' })).toBe(1)
    expect(
      sampleSum(hung, 'evmsim_upstream_requests_total', { chain: 'flaky', outcome: 'timeout' }) -
        sampleSum(up, 'evmsim_upstream_requests_total', { chain: 'flaky', outcome: 'timeout' }),
    ).toBeGreaterThan(0)
    expect(sampleSum(hung, 'evmsim_http_requests_total', { chain: 'flaky', status_class: '5xx' })).toBe(1)

    // a node that is gone: errors (the connection refused)
    flaky.hang(false)
    await flakyNode.stop()
    await flaky.close()
    const errorsBefore = sampleSum(hung, 'evmsim_upstream_requests_total', { chain: 'flaky', outcome: 'error' })
    let down = hung
    // the stall ends with the node's next answer (here: a refusal); poll until the error shows
    for (let i = 0; i < 40 && sampleSum(down, 'evmsim_upstream_requests_total', { chain: 'flaky', outcome: 'error' }) === errorsBefore; i++) {
      expect((await rpc('/v1/chains/flaky', 'eth_getBalance', [WHO, 'latest'])).status).toBe(200)
      down = await scrape()
    }
    expect(sampleSum(down, 'evmsim_upstream_requests_total', { chain: 'flaky', outcome: 'error' })).toBeGreaterThan(errorsBefore)
    expect(sampleSum(down, 'evmsim_upstream_up', { chain: 'flaky' })).toBe(0)
    expect(sampleSum(down, 'evmsim_upstream_up', { chain: 'default' })).toBe(1)
    expect((await traceCall('/v1/chains/other')).status).toBe(200)
  }, 60_000)

  it('never puts a URL, a host, a port or the key of an upstream in a label', async () => {
    const families = await scrape()
    const values = labelValues(families)
    expect(values.length).toBeGreaterThan(50)
    for (const v of values) {
      expect(v).not.toMatch(/:\/\/|127\.0\.0\.1|sk_test|key=/)
      for (const a of [main, other, flakyNode]) expect(v).not.toContain(String(a.port))
    }
    // the chains are there by name
    expect(new Set(families.get('evmsim_upstream_up')!.samples.map((s) => s.labels.chain))).toEqual(new Set(['default', 'other', 'flaky']))
    // runs and the process are reported too
    expect(families.get('evmsim_engines_ready')!.samples.map((s) => s.value)).toEqual([1, 1, 1])
    expect(families.get('process_cpu_user_seconds_total')?.type).toBe('counter')
    expect(families.get('evmsim_forks_open')?.type).toBe('gauge')
  }, 30_000)
})
