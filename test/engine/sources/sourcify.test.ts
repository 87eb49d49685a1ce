/**
 * Verified sources by address from a Sourcify-compatible service (a test server serving APIv2
 * documents made from real solc output): the first lookup fetches once, a second lookup and a
 * second registry on the same store fetch nothing (answers, "not verified" too, are kept in the
 * cache store by chain, address and code hash); the service down, failing or hanging gives no
 * sources and a warning, within the upstream time budget, and keeps nothing.
 */
import { type Hex, bytesToHex, encodeAbiParameters } from 'viem'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createSourceRegistry, type SourceRegistry } from '../../../engine/sources/registry.js'
import { contractOfDocument, createSourcifySources } from '../../../engine/sources/verifiedSources.js'
import type { CacheStore } from '../../../engine/state/store/cacheStore.js'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { compileStandard, type StandardJsonPair } from '../../support/solcStandard.js'
import { apiV2Document, type SourcifyServer, startSourcifyServer } from '../../support/sourcifyServer.js'
import { inProcessChain, link } from './deploy.js'
import { VAULT_SOURCES } from './vaultSources.js'

const CHAIN_ID = 1
let build: StandardJsonPair
let server: SourcifyServer
const at: Record<'vault' | 'math' | 'unverified', { address: Hex; code: Uint8Array }> = {} as never

beforeAll(async () => {
  build = compileStandard(VAULT_SOURCES)
  const chain = await inProcessChain()
  at.math = await chain.create(`0x${build.output.contracts['src/Math.sol']!.Math.evm.bytecode.object}`)
  const v = build.output.contracts['src/Vault.sol']!.Vault
  at.vault = await chain.create(
    (link(v.evm.bytecode.object, v.evm.bytecode.linkReferences, 'Math', at.math.address) + encodeAbiParameters([{ type: 'uint256' }], [5n]).slice(2)) as Hex,
  )
  const f = build.output.contracts['src/Vault.sol']!.Factory
  at.unverified = await chain.create(link(f.evm.bytecode.object, f.evm.bytecode.linkReferences, 'Math', at.math.address))
  server = await startSourcifyServer({
    [`${CHAIN_ID}:${at.vault.address.toLowerCase()}`]: apiV2Document(build, 'src/Vault.sol', 'Vault', CHAIN_ID, at.vault.address, {
      runtime: bytesToHex(at.vault.code),
    }),
    [`${CHAIN_ID}:${at.math.address.toLowerCase()}`]: apiV2Document(build, 'src/Math.sol', 'Math', CHAIN_ID, at.math.address, {
      runtime: bytesToHex(at.math.code),
    }),
  })
}, 60_000)
afterAll(() => server?.close())
afterEach(() => {
  server.mode = 'serve'
  server.requests.length = 0
})

const registryOn = (cache: CacheStore, url = server.url, budgetMs = 2_000): SourceRegistry =>
  createSourceRegistry({ cache, maxBytes: 2 ** 24, verified: createSourcifySources({ url, cache, budgetMs, maxBytes: 2 ** 24 }) })

describe('verified sources from a Sourcify-compatible service', () => {
  it('reads an APIv2 document into the contract, matching the deployed code', () => {
    const doc = apiV2Document(build, 'src/Vault.sol', 'Vault', CHAIN_ID, at.vault.address, { runtime: bytesToHex(at.vault.code) })
    const contract = contractOfDocument(doc)
    expect(contract).toMatchObject({ name: 'Vault', file: 'src/Vault.sol', compiler: { version: build.solcVersion } })
    expect(Object.values(contract!.sources).find((s) => s.path === 'src/Vault.sol')?.content).toBe(VAULT_SOURCES['src/Vault.sol'])
    expect(contract!.runtime.sourceMap).toBe(build.output.contracts['src/Vault.sol']!.Vault.evm.deployedBytecode.sourceMap)
    expect(
      contractOfDocument({ ...doc, compilation: { ...doc.compilation, language: 'Vyper' }, stdJsonInput: { ...doc.stdJsonInput, language: 'Vyper' } }),
    ).toBeUndefined()
    expect(contractOfDocument({ not: 'a document' })).toBeUndefined()
  })

  it('the first lookup fetches once; a second, and a second registry on the same store, fetch nothing', async () => {
    const cache = createMemoryCacheStore()
    const first = registryOn(cache)
    const frames = [at.vault, at.math]
    const one = await first.resolve(CHAIN_ID, frames)
    expect(one).toMatchObject({ added: true, warnings: [] })
    expect(one.index.matchRuntime(at.vault.code)?.name).toBe('Vault')
    expect(one.index.matchRuntime(at.math.code)?.name).toBe('Math')
    expect(server.requests.sort()).toEqual([`/v2/contract/1/${at.math.address}?fields=all`, `/v2/contract/1/${at.vault.address}?fields=all`].sort())
    const two = await first.resolve(CHAIN_ID, frames)
    expect(two.added).toBe(false)
    expect(two.index.matchRuntime(at.vault.code)?.name).toBe('Vault')
    const other = await registryOn(cache).resolve(CHAIN_ID, frames)
    expect(other.added).toBe(true)
    expect(other.index.matchRuntime(at.vault.code)?.name).toBe('Vault')
    expect(server.requests).toHaveLength(2)
  })

  it('"not verified" is kept too: asked once, for every registry on the store', async () => {
    const cache = createMemoryCacheStore()
    const miss = await registryOn(cache).resolve(CHAIN_ID, [at.unverified])
    expect(miss).toMatchObject({ added: false, warnings: [] })
    expect(miss.index.matchRuntime(at.unverified.code)).toBeUndefined()
    await registryOn(cache).resolve(CHAIN_ID, [at.unverified])
    expect(server.requests).toHaveLength(1)
    // the same address holding other code is another question
    await registryOn(cache).resolve(CHAIN_ID, [{ address: at.unverified.address, code: at.math.code }])
    expect(server.requests).toHaveLength(2)
  })

  it('a document whose recompiled code is not the code at the address gives no sources', async () => {
    const cache = createMemoryCacheStore()
    // the vault's document served for the factory's address
    const wrong = await startSourcifyServer({
      [`${CHAIN_ID}:${at.unverified.address.toLowerCase()}`]: apiV2Document(build, 'src/Vault.sol', 'Vault', CHAIN_ID, at.unverified.address, {
        runtime: '0x',
      }),
    })
    try {
      const r = await registryOn(cache, wrong.url).resolve(CHAIN_ID, [at.unverified])
      expect(r.added).toBe(false)
      expect(r.index.matchRuntime(at.unverified.code)).toBeUndefined()
      expect(wrong.requests).toHaveLength(1)
    } finally {
      await wrong.close()
    }
  })

  it('the service down: no sources, a warning, nothing kept (asked again next time)', async () => {
    const cache = createMemoryCacheStore()
    const down = await startSourcifyServer({})
    const url = down.url
    await down.close()
    const r = await registryOn(cache, url).resolve(CHAIN_ID, [at.vault])
    expect(r.added).toBe(false)
    expect(r.warnings).toEqual([expect.stringContaining('could not be reached')])
    expect(r.warnings[0]).not.toContain(url)
    // the same store with the service up: fetched now
    const up = await registryOn(cache).resolve(CHAIN_ID, [at.vault])
    expect(up.index.matchRuntime(at.vault.code)?.name).toBe('Vault')
    expect(server.requests).toHaveLength(1)
  })

  it('the service failing: a warning with its status', async () => {
    server.mode = 'fail'
    const r = await registryOn(createMemoryCacheStore()).resolve(CHAIN_ID, [at.vault])
    expect(r).toMatchObject({ added: false, warnings: [expect.stringContaining('HTTP 500')] })
  })

  it('the service hanging: answers within the upstream time budget, with a warning', async () => {
    server.mode = 'hang'
    const started = Date.now()
    const registry = registryOn(createMemoryCacheStore(), server.url, 400)
    const r = await registry.resolve(CHAIN_ID, [at.vault, at.math])
    const took = Date.now() - started
    expect(took).toBeGreaterThanOrEqual(350)
    expect(took).toBeLessThan(2_000)
    expect(r.added).toBe(false)
    expect(r.warnings).toEqual([expect.stringContaining('within the upstream time budget (400 ms)')])
    expect(r.index.matchRuntime(at.vault.code)).toBeUndefined()
    // the next trace does not wait out the budget again: the service rests, the warning stays
    const asked = server.requests.length
    const again = Date.now()
    const next = await registry.resolve(CHAIN_ID, [at.vault])
    expect(Date.now() - again).toBeLessThan(200)
    expect(next.warnings).toEqual(r.warnings)
    expect(server.requests).toHaveLength(asked)
  })

  it('without a service configured, resolve is the index and asks nothing', async () => {
    const registry = createSourceRegistry({ cache: createMemoryCacheStore(), maxBytes: 2 ** 24 })
    const r = await registry.resolve(CHAIN_ID, [at.vault])
    expect(r).toMatchObject({ added: false, warnings: [] })
    expect(server.requests).toHaveLength(0)
  })
})
