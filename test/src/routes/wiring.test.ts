/**
 * The HTTP layer over the real engine (engine/index.ts createEngine on the embedded devnet, in
 * process): proves the wiring (normalized inputs in, canonical results and envelopes out). The
 * results' exactness is tested by the engine's own suites.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../../config/loadConfig.js'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { createEngine } from '../../../engine/index.js'
import type { Engine } from '../../../engine/types.js'
import { post, startTestApp, authed, type TestApp } from '../support/startTestApp.js'

const account0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const account1 = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const token = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
const balanceOf = (a: string) => `0x70a08231${a.slice(2).padStart(64, '0')}`
const transfer = (to: string, amount: bigint) => `0xa9059cbb${to.slice(2).padStart(64, '0')}${amount.toString(16).padStart(64, '0')}`
const gas = '0x100000'

describe('HTTP layer over the real engine (devnet)', () => {
  let app: TestApp
  let engine: Engine
  beforeAll(async () => {
    const config = loadConfig({ env: { APP_ENV: 'test' } })
    const cache = createMemoryCacheStore()
    engine = await createEngine({
      cache,
      gasCap: BigInt(config.chain.gas_cap),
      rpcTimeoutMs: config.chain.rpc_timeout_ms,
      maxStructLogSteps: config.limits.max_struct_log_steps,
      simulationTtlSeconds: config.cache.simulation_ttl_seconds,
    })
    app = await startTestApp({ engine, cache })
  })
  afterAll(async () => {
    await app?.close()
    await engine?.close()
  })

  it('health reports the devnet', async () => {
    const res = await app.fetch('/v1/health')
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ status: 'ok', chainId: 31337 })
  })

  it('simulate: an ERC-20 transfer with a checksummed sender succeeds, decoded, stored under its id', async () => {
    const res = await app.fetch(
      '/v1/simulate',
      post({
        params: { calls: [{ from: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', to: token, data: transfer(account1, 10n ** 18n), gas }], traceTransfers: true },
      }),
    )
    const body = await res.json()
    expect(res.status, JSON.stringify(body.error)).toBe(200)
    expect(body.data.status).toBe('success')
    expect(body.data.simulationId).toMatch(/^sim_[0-9a-f-]{36}$/)
    expect(body.data.gasUsed).toMatch(/^0x[1-9a-f][0-9a-f]*$/)
    const log = body.data.calls[0].logs[0]
    expect(log.address).toBe(token)
    expect(log.decoded.name).toBe('Transfer')
    expect(body.data.calls[0].transfers[0]).toMatchObject({ type: 'erc20', token, from: account0, to: account1 })

    const stored = await app.fetch(`/v1/simulations/${body.data.simulationId}`, authed())
    expect((await stored.json()).data).toEqual(body.data)
  })

  it('simulate: a transfer beyond the balance is a 422 with the revert and the full simulation', async () => {
    const res = await app.fetch('/v1/simulate', post({ params: { calls: [{ from: account1, to: token, data: transfer(account0, 10n ** 30n), gas }] } }))
    expect(res.status).toBe(422)
    const { error } = await res.json()
    expect(error.code).toBe('SIMULATION_EXECUTION_FAILED')
    expect(error.details.callIndex).toBe(0)
    expect(error.details.contractAddress).toBe(token)
    expect(error.details.simulation.status).toBe('reverted')
  })

  it('trace/call: callTracer and 4byteTracer keyed by name', async () => {
    const res = await app.fetch(
      '/v1/trace/call',
      post({ call: { from: account0, to: token, data: balanceOf(account0), gas }, tracerConfig: { callTracer: {}, '4byteTracer': true } }),
    )
    const body = await res.json()
    expect(res.status, JSON.stringify(body.error)).toBe(200)
    expect(body.data.callTracer).toMatchObject({ type: 'CALL', from: account0, to: token })
    expect(body.data['4byteTracer']).toEqual({ totalIdentifiers: 1, identifiers: { '0x70a08231': { count: 1, dataSize: 32 } } })
  })

  it('a block beyond the head is 404 BLOCK_NOT_FOUND', async () => {
    const res = await app.fetch('/v1/trace/call', post({ call: { from: account0, to: token, data: balanceOf(account0), gas }, blockNumber: '0xffffff' }))
    expect(res.status).toBe(404)
    expect((await res.json()).error.code).toBe('BLOCK_NOT_FOUND')
  })
})
