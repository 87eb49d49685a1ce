/**
 * The registry in the cache store: what one registry registers, another on the same store (another
 * worker, process or instance) knows at its next look; two registering at once lose nothing; the
 * cap refuses whole and keeps nothing; the same build-info twice is stored once; a number taken
 * whose entry never came blocks nothing after it.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { EngineError } from '../../../engine/platform/errors.js'
import { createSourceRegistry } from '../../../engine/sources/registry.js'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { compileStandard, type StandardJsonPair } from '../../support/solcStandard.js'
import { type Chain, inProcessChain } from './deploy.js'
import { VAULT_SOURCES } from './vaultSources.js'

const COUNTER = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Counter { uint256 public n; function inc() external { n += 1; } }
`
let vaultBuild: StandardJsonPair
let counterBuild: StandardJsonPair
let chain: Chain
let counterCode: Uint8Array

beforeAll(async () => {
  vaultBuild = compileStandard(VAULT_SOURCES)
  counterBuild = compileStandard({ 'src/Counter.sol': COUNTER })
  chain = await inProcessChain()
  counterCode = (await chain.create(`0x${counterBuild.output.contracts['src/Counter.sol']!.Counter.evm.bytecode.object}`)).code
}, 60_000)

const MiB = 2 ** 20

describe('the source registry', () => {
  it('registers a build-info and lists its contracts with their code hashes', async () => {
    const registry = createSourceRegistry({ cache: createMemoryCacheStore(), maxBytes: 8 * MiB })
    expect((await registry.index()).empty).toBe(true)
    const registered = await registry.register(vaultBuild)
    expect(registered.map((r) => r.name).sort()).toEqual(['Factory', 'Math', 'Vault'])
    expect(await registry.list()).toEqual(registered)
    expect((await registry.index()).empty).toBe(false)
  })

  it('another registry on the same store knows what the first registered at its next look', async () => {
    const cache = createMemoryCacheStore()
    const a = createSourceRegistry({ cache, maxBytes: 8 * MiB })
    const b = createSourceRegistry({ cache, maxBytes: 8 * MiB })
    expect((await b.index()).matchRuntime(counterCode)).toBeUndefined()
    await a.register(counterBuild)
    expect((await b.index()).matchRuntime(counterCode)?.name).toBe('Counter')
    expect((await b.list()).map((r) => r.name)).toEqual(['Counter'])
  })

  it('two registering at once on one store lose nothing', async () => {
    const cache = createMemoryCacheStore()
    const registries = [0, 1, 2, 3].map(() => createSourceRegistry({ cache, maxBytes: 8 * MiB }))
    const builds = [
      vaultBuild,
      counterBuild,
      compileStandard({ 'src/A.sol': COUNTER.replace('Counter', 'A') }),
      compileStandard({ 'src/B.sol': COUNTER.replace('Counter', 'B') }),
    ]
    await Promise.all(registries.map((r, i) => r.register(builds[i])))
    const reader = createSourceRegistry({ cache, maxBytes: 8 * MiB })
    expect((await reader.list()).map((r) => r.name).sort()).toEqual(['A', 'B', 'Counter', 'Factory', 'Math', 'Vault'])
  })

  it('stores the same build-info once', async () => {
    const cache = createMemoryCacheStore()
    const a = createSourceRegistry({ cache, maxBytes: 8 * MiB })
    await a.register(counterBuild)
    await createSourceRegistry({ cache, maxBytes: 8 * MiB }).register(structuredClone(counterBuild))
    expect((await cache.increment('sources:count', 60, 0)).count).toBe(1)
    expect(await createSourceRegistry({ cache, maxBytes: 8 * MiB }).list()).toHaveLength(1)
  })

  it('a build registered again with its lines moved, not its code, is shown in its newer source', async () => {
    const cache = createMemoryCacheStore()
    const registry = createSourceRegistry({ cache, maxBytes: 8 * MiB })
    await registry.register(counterBuild)
    const moved = `// a comment line moves every line below it\n${COUNTER}`
    await registry.register(compileStandard({ 'src/Counter.sol': moved }))
    expect((await cache.increment('sources:count', 60, 0)).count).toBe(2)
    const known = (await createSourceRegistry({ cache, maxBytes: 8 * MiB }).index()).matchRuntime(counterCode)
    expect(Object.values(known!.sources).find((f) => f.path === 'src/Counter.sol')?.content).toBe(moved)
  })

  it('refuses past the cap with PAYLOAD_TOO_LARGE and keeps nothing of the refused build-info', async () => {
    const cache = createMemoryCacheStore()
    const counterOnly = createSourceRegistry({ cache, maxBytes: 8 * MiB })
    await counterOnly.register(counterBuild)
    const used = (await cache.increment('sources:bytes', 60, 0)).count
    expect(used).toBeGreaterThan(0)
    // room for the counter twice over, not for the vault's sources and ASTs
    const capped = createSourceRegistry({ cache, maxBytes: used * 3 })
    const refused = await capped.register(vaultBuild).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(EngineError)
    expect((refused as EngineError).code).toBe('PAYLOAD_TOO_LARGE')
    expect((refused as EngineError).message).toContain('sources.max_mb')
    expect((await cache.increment('sources:bytes', 60, 0)).count).toBe(used)
    expect((await capped.list()).map((r) => r.name)).toEqual(['Counter'])
    // what fits still registers
    await capped.register(compileStandard({ 'src/A.sol': COUNTER.replace('Counter', 'A') }))
    expect((await capped.list()).map((r) => r.name)).toEqual(['Counter', 'A'])
  })

  it('a number taken whose entry never came blocks nothing registered after it', async () => {
    const cache = createMemoryCacheStore()
    // a registration whose process died between taking its number and writing its entry
    await cache.increment('sources:count', 100 * 365 * 86_400, 1)
    const a = createSourceRegistry({ cache, maxBytes: 8 * MiB })
    await a.register(counterBuild)
    const b = createSourceRegistry({ cache, maxBytes: 8 * MiB })
    expect((await b.index()).matchRuntime(counterCode)?.name).toBe('Counter')
  })

  it('a build-info it cannot use is a VALIDATION_ERROR and nothing is stored', async () => {
    const cache = createMemoryCacheStore()
    const registry = createSourceRegistry({ cache, maxBytes: 8 * MiB })
    await expect(registry.register({ input: {} })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' })
    expect((await cache.increment('sources:count', 60, 0)).count).toBe(0)
    expect((await cache.increment('sources:bytes', 60, 0)).count).toBe(0)
  })
})
