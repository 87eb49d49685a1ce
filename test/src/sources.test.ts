/**
 * POST /v1/sources and GET /v1/sources over real HTTP, on the engine a deployment runs: a pool of
 * two worker threads on one memory:// store. What one worker registered, every worker lists; a bad
 * build-info is a VALIDATION_ERROR naming its path under `buildInfo`; a body past sources.max_mb is
 * 413 (the service's general body limit does not apply to it); a registration past the cap keeps
 * nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { contractsOfBuildInfo } from '../../engine/sources/buildInfo.js'
import { createMemoryCacheStore } from '../../host/cache/memoryCacheStore.js'
import { createWorkerPoolEngine, type WorkerPoolEngine } from '../../host/workers/index.js'
import { compileStandard, type StandardJsonPair } from '../support/solcStandard.js'
import { VAULT_SOURCES } from '../engine/sources/vaultSources.js'
import { authed, post, startTestApp, type TestApp } from './support/startTestApp.js'

const COUNTER = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Counter { uint256 public n; function inc() external { n += 1; } }
`
let app: TestApp
let pool: WorkerPoolEngine
let vault: StandardJsonPair

beforeAll(async () => {
  vault = compileStandard(VAULT_SOURCES)
  const cache = createMemoryCacheStore()
  pool = (await createWorkerPoolEngine({
    cache,
    cacheUrl: 'memory://',
    workers: 2,
    gasCap: 50_000_000n,
    rpcTimeoutMs: 5_000,
    maxStructLogSteps: 100_000,
    simulationTtlSeconds: 3600,
    sources: { maxBytes: 2 * 2 ** 20 },
  })) as WorkerPoolEngine
  app = await startTestApp({ engine: pool, cache, env: { SOURCES_MAX_MB: '2' } })
}, 120_000)
afterAll(async () => {
  await app?.close()
  await pool?.close()
})

const register = (body: unknown) => app.fetch('/v1/sources', post(body))

describe('POST /v1/sources', () => {
  it('registers a build-info: 201 with each contract with bytecode and its code hashes; every worker lists them', async () => {
    const res = await register({ buildInfo: { _format: 'hh-sol-build-info-1', ...vault } })
    expect(res.status).toBe(201)
    const body = await res.json()
    const expected = contractsOfBuildInfo(vault).map(({ name, file, runtimeCodeHash, creationCodeHash }) => ({ name, file, runtimeCodeHash, creationCodeHash }))
    expect(body).toEqual({ success: true, data: { contracts: expected } })
    // asked at once, the listings spread over both workers; each lists what one of them registered
    const listings = await Promise.all(Array.from({ length: 12 }, () => app.fetch('/v1/sources', authed()).then((r) => r.json())))
    for (const l of listings) expect(l.data.contracts).toEqual(expected)
    const served = pool.stats().workers.map((w) => w.served)
    expect(served.every((n) => n > 0)).toBe(true)
  })

  it.each([
    ['no buildInfo', {}, 'buildInfo'],
    ['a buildInfo that is no object', { buildInfo: 5 }, 'buildInfo'],
    ['no compiler output', { buildInfo: { input: {} } }, 'buildInfo.output'],
    ['output without its sources', { buildInfo: { input: {}, output: {} } }, 'buildInfo.output.sources'],
  ])('%s: 400 VALIDATION_ERROR naming the path', async (_, body, path) => {
    const res = await register(body)
    expect(res.status).toBe(400)
    const json = await res.json()
    expect(json.error.code).toBe('VALIDATION_ERROR')
    expect(json.error.details.issues[0].path).toBe(path)
  })

  it('compiler output without a source map, and another language: the path inside buildInfo', async () => {
    const noMap = structuredClone(vault)
    delete noMap.output.contracts['src/Vault.sol']!.Vault.evm.deployedBytecode.sourceMap
    const res = await register({ buildInfo: noMap })
    expect(res.status).toBe(400)
    expect((await res.json()).error.details.issues[0].path).toBe('buildInfo.output.contracts["src/Vault.sol"].Vault.evm.deployedBytecode.sourceMap')
    const vyper = structuredClone(vault)
    vyper.input.language = 'Vyper'
    const other = await register({ buildInfo: vyper })
    expect(other.status).toBe(400)
    expect((await other.json()).error).toMatchObject({ code: 'VALIDATION_ERROR', details: { issues: [{ path: 'buildInfo.input.language' }] } })
  })

  it('a body larger than the general limit but within sources.max_mb registers; past it, 413', async () => {
    const big = (kib: number, name: string) => {
      const build = compileStandard({ [`src/${name}.sol`]: COUNTER.replace('Counter', name) })
      // the source's text as a project's long comments and the nesting of a deep AST: both accepted
      ;(build.input.sources as Record<string, { content: string }>)[`src/${name}.sol`]!.content += `// ${'x'.repeat(kib * 1024)}\n`
      ;(build.input as Record<string, unknown>).deep = JSON.parse(`${'['.repeat(300)}${']'.repeat(300)}`)
      return { buildInfo: build }
    }
    expect(app.config.server.max_body_bytes).toBeLessThan(1200 * 1024)
    const within = await register(big(1200, 'Within'))
    expect(within.status).toBe(201)
    const past = await register(big(2100, 'Past'))
    expect(past.status).toBe(413)
    expect((await past.json()).error.code).toBe('PAYLOAD_TOO_LARGE')
  })

  it('a registration that would take the registered total past sources.max_mb: 413, nothing of it kept', async () => {
    const before = (await (await app.fetch('/v1/sources', authed())).json()).data.contracts
    const build = compileStandard({ 'src/Over.sol': COUNTER.replace('Counter', 'Over') })
    ;(build.input.sources as Record<string, { content: string }>)['src/Over.sol']!.content += `// ${'y'.repeat(900 * 1024)}\n`
    const res = await register({ buildInfo: build })
    expect(res.status).toBe(413)
    expect((await res.json()).error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { limit: 'sources.max_mb' } })
    expect((await (await app.fetch('/v1/sources', authed())).json()).data.contracts).toEqual(before)
  })
})
