/**
 * Arbitrum is not emulated, and says so: a run reaching an ArbOS precompile answers NOT_EMULATED
 * (HTTP 501, a JSON-RPC error) naming the precompile, and a block with one of Arbitrum's own
 * transaction types names the type — never a silent wrong answer. The chain is a real Anvil
 * configured with `kind = "arbitrum"`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMemoryCacheStore } from '../../host/cache/memoryCacheStore.js'
import { arbitrumRules } from '../../engine/chains/rollups/arbitrum.js'
import { createEngine, type Engine } from '../../engine/index.js'
import { isEngineError } from '../../engine/platform/errors.js'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../support/anvil.js'
import { post, startTestApp, type TestApp } from './support/startTestApp.js'

const haveAnvil = requireAnvil()
const ARB_SYS = '0x0000000000000000000000000000000000000064'
// ArbSys.arbBlockNumber()
const ARB_BLOCK_NUMBER = '0xa3b1b31d'

describe.runIf(haveAnvil)('an Arbitrum chain', () => {
  let anvil: AnvilInstance
  let engine: Engine
  let app: TestApp

  beforeAll(async () => {
    anvil = await startAnvil()
    engine = await createEngine({
      rpcUrl: anvil.url,
      cache: createMemoryCacheStore(),
      gasCap: 50_000_000n,
      rpcTimeoutMs: 10_000,
      maxStructLogSteps: 10_000,
      simulationTtlSeconds: 60,
      chainKind: 'arbitrum',
    })
    app = await startTestApp({ engine, env: { RPC_URL: anvil.url, RATE_LIMIT_REQUESTS: '100000' } })
  }, 60_000)

  afterAll(async () => {
    await app?.close()
    await engine?.close()
    await anvil?.stop()
  })

  it('answers 501 NOT_EMULATED naming the ArbOS precompile a simulation reaches', async () => {
    const res = await app.fetch(
      '/v1/simulate',
      post({ params: { calls: [{ from: DEV_ACCOUNTS[0], to: ARB_SYS, data: ARB_BLOCK_NUMBER }], blockTag: 'latest' } }),
    )
    const body = await res.json()
    expect(res.status).toBe(501)
    expect(body.error.code).toBe('NOT_EMULATED')
    expect(body.error.message).toContain('ArbSys (0x0000000000000000000000000000000000000064) is not emulated')
  })

  it('answers a JSON-RPC error for eth_call to an ArbOS precompile', async () => {
    const res = await app.fetch(
      '/v1/rpc',
      post({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ from: DEV_ACCOUNTS[0], to: ARB_SYS, data: ARB_BLOCK_NUMBER }, 'latest'] }),
    )
    const body = await res.json()
    expect(body.result).toBeUndefined()
    expect(body.error.message).toContain('ArbSys')
    expect(body.error.message).toContain('not emulated')
  })

  it('still runs ordinary calls', async () => {
    const res = await app.fetch('/v1/simulate', post({ params: { calls: [{ from: DEV_ACCOUNTS[0], to: DEV_ACCOUNTS[1], value: '0x1' }], blockTag: 'latest' } }))
    expect(res.status).toBe(200)
  })
})

describe('Arbitrum transaction types', () => {
  it('names the type a block holds instead of replaying it', async () => {
    const err = await arbitrumRules.decodeTx!({ type: '0x6a', hash: '0x01' }, undefined as never).catch((e: unknown) => e)
    expect(isEngineError(err) && err.code).toBe('NOT_EMULATED')
    expect((err as Error).message).toContain('transaction type 0x6a (ArbitrumInternalTx) is not emulated')
  })

  it('leaves Ethereum types to the Ethereum decoder', async () => {
    expect(await arbitrumRules.decodeTx!({ type: '0x2', hash: '0x01' }, undefined as never)).toBeUndefined()
  })
})
