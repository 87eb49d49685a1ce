/**
 * Sources over one Redis: two instances (each its app, its engine and its own connection to the
 * store). A build-info registered on one is listed by the other and recognises the code deployed
 * from it there; verified sources one instance fetched from the Sourcify-compatible service, the
 * other finds in the store, asking the service nothing. Under CI a missing Redis fails the test.
 */
import { randomUUID } from 'node:crypto'
import { type Hex, bytesToHex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../engine/index.js'
import { createSourceRegistry, type SourceRegistry } from '../../engine/sources/registry.js'
import { createSourcifySources } from '../../engine/sources/verifiedSources.js'
import type { CacheStore } from '../../engine/state/store/cacheStore.js'
import type { Engine } from '../../engine/types.js'
import { compileStandard, type StandardJsonPair } from '../support/solcStandard.js'
import { apiV2Document, type SourcifyServer, startSourcifyServer } from '../support/sourcifyServer.js'
import { connectedRedisStore } from '../support/redisStore.js'
import { inProcessChain } from '../engine/sources/deploy.js'
import { authed, post, startTestApp, type TestApp } from './support/startTestApp.js'

const REDIS_URL = process.env.REDIS_URL
if (!REDIS_URL && process.env.CI === 'true') throw new Error('REDIS_URL is not set: the shared-sources tests need a real redis-server')

const COUNTER = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Counter { uint256 public n; function inc() external { n += 1; } }
`

interface Instance {
  cache: CacheStore
  engine: Engine
  app: TestApp
}

describe.runIf(REDIS_URL)('sources shared by two instances over one Redis', () => {
  const prefix = `sourcestest-${randomUUID()}:`
  let build: StandardJsonPair
  let counter: { address: Hex; code: Uint8Array }
  let sourcify: SourcifyServer
  const instances: Instance[] = []

  const start = async (): Promise<Instance> => {
    const cache = await connectedRedisStore(REDIS_URL!, prefix)
    const engine = await createEngine({ cache, gasCap: 50_000_000n, rpcTimeoutMs: 5_000, maxStructLogSteps: 100_000, simulationTtlSeconds: 3600 })
    const app = await startTestApp({ engine, cache })
    return { cache, engine, app }
  }

  beforeAll(async () => {
    build = compileStandard({ 'src/Counter.sol': COUNTER })
    const chain = await inProcessChain()
    counter = await chain.create(`0x${build.output.contracts['src/Counter.sol']!.Counter.evm.bytecode.object}`)
    sourcify = await startSourcifyServer({
      [`1:${counter.address.toLowerCase()}`]: apiV2Document(build, 'src/Counter.sol', 'Counter', 1, counter.address, { runtime: bytesToHex(counter.code) }),
    })
    instances.push(await start(), await start())
  }, 60_000)
  afterAll(async () => {
    for (const i of instances) {
      await i.app.close()
      await i.engine.close()
      await i.cache.close()
    }
    await sourcify?.close()
  })

  it('registered on one instance, listed by the other and matched there', async () => {
    const [a, b] = instances as [Instance, Instance]
    expect((await (await b.app.fetch('/v1/sources', authed())).json()).data.contracts).toEqual([])
    const res = await a.app.fetch('/v1/sources', post({ buildInfo: build }))
    expect(res.status).toBe(201)
    const registered = (await res.json()).data.contracts
    expect(registered.map((c: { name: string }) => c.name)).toEqual(['Counter'])
    expect((await (await b.app.fetch('/v1/sources', authed())).json()).data.contracts).toEqual(registered)
    // the store b reads holds the registration whole: an index over it recognises the deployed code
    const onB = createSourceRegistry({ cache: b.cache, maxBytes: 2 ** 24 })
    expect((await onB.index()).matchRuntime(counter.code)?.name).toBe('Counter')
  })

  it('verified sources fetched by one instance are found by the other in the store, nothing fetched again', async () => {
    // a key space of its own, where nothing is registered: the code is known only from the service
    const own = `${prefix}verified:`
    const stores = await Promise.all([connectedRedisStore(REDIS_URL!, own), connectedRedisStore(REDIS_URL!, own)])
    try {
      const [a, b] = stores.map((cache) =>
        createSourceRegistry({ cache, maxBytes: 2 ** 24, verified: createSourcifySources({ url: sourcify.url, cache, budgetMs: 2_000, maxBytes: 2 ** 24 }) }),
      ) as [SourceRegistry, SourceRegistry]
      const frames = [{ address: counter.address, code: counter.code }]
      expect((await a.index()).matchRuntime(counter.code)).toBeUndefined()
      const first = await a.resolve(1, frames)
      expect(first).toMatchObject({ added: true, warnings: [] })
      expect(first.index.matchRuntime(counter.code)?.name).toBe('Counter')
      expect(sourcify.requests).toHaveLength(1)
      const second = await b.resolve(1, frames)
      expect(second.index.matchRuntime(counter.code)?.name).toBe('Counter')
      expect(sourcify.requests).toHaveLength(1)
    } finally {
      await Promise.all(stores.map((s) => s.close()))
    }
  })
})
