/**
 * The service on the embedded devnet with the demo contracts' build-info registered
 * (scripts/demo-contracts/build-info.json), as the browser tests of sources, the debugger and the
 * gas profile's exports need it: an engine of its own, its verified-sources service on port 1
 * where nothing listens, served by a test app.
 *
 * @example
 * const { engine, app } = await startDemoSourcesApp({ RATE_LIMIT_REQUESTS: '10000' })
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import { createEngine } from '../../engine/index.js'
import type { Engine } from '../../engine/types.js'
import { createMemoryCacheStore } from '../../host/cache/memoryCacheStore.js'
import { post, startTestApp, type TestApp } from '../src/support/startTestApp.js'

export async function startDemoSourcesApp(env?: Record<string, string>): Promise<{ engine: Engine; app: TestApp }> {
  const engine = await createEngine({
    cache: createMemoryCacheStore(),
    gasCap: 50_000_000n,
    rpcTimeoutMs: 10_000,
    maxStructLogSteps: 100_000,
    simulationTtlSeconds: 60,
    // the verified-sources service: port 1, where nothing listens
    sources: { maxBytes: 2 ** 24, sourcifyUrl: 'http://127.0.0.1:1' },
  })
  const app = await startTestApp({ engine, ...(env && { env }) })
  const buildInfo = JSON.parse(readFileSync(join(process.cwd(), 'scripts/demo-contracts/build-info.json'), 'utf8'))
  expect((await app.fetch('/v1/sources', post({ buildInfo }))).status).toBe(201)
  return { engine, app }
}
