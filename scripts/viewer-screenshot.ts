/**
 * Regenerates docs/trace-viewer.png, the README's picture of the trace viewer on the devnet's
 * demo transfer: starts the service on the embedded devnet (127.0.0.1, free port), opens
 * /v1/ui?tx=… in Debian's chromium (playwright-core) with the test token, and saves the top of
 * the page. Run: npx tsx scripts/viewer-screenshot.ts
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { loadConfig } from '../config/loadConfig.js'
import { createMemoryCacheStore } from '../host/cache/memoryCacheStore.js'
import { createEngine } from '../engine/index.js'
import { createApp } from '../src/app.js'
import { createLogger } from '../src/logger.js'
import { listen } from '../host/server.js'

const DEMO_TRANSFER_TX = '0x8849d23607d7c87b58414fda583340f2c2b6393f2461223972e42e81c7fda23b'

const config = loadConfig({ env: { APP_ENV: 'test', RPC_URL: '' } })
const cache = createMemoryCacheStore()
const engine = await createEngine({
  cache,
  gasCap: BigInt(config.chain.gas_cap),
  rpcTimeoutMs: config.chain.rpc_timeout_ms,
  maxStructLogSteps: config.limits.max_struct_log_steps,
  simulationTtlSeconds: 60,
})
const server = await listen(createApp({ config, engine, cache, logger: createLogger({ level: 'silent', secrets: [] }) }), { host: '127.0.0.1', port: 0 })
const profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'))
const context = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1280, height: 760 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
})
try {
  await context.route('**/*', (route) => (new URL(route.request().url()).hostname === '127.0.0.1' ? route.continue() : route.abort()))
  const page = await context.newPage()
  await page.goto(`${server.url}/v1/ui`)
  await page.evaluate(`sessionStorage.setItem('evm-sim.token', ${JSON.stringify(config.api.auth_token ?? '')})`)
  await page.goto(`${server.url}/v1/ui?tx=${DEMO_TRANSFER_TX}`, { waitUntil: 'networkidle' })
  await page.locator('#tree .log').first().waitFor()
  await page.screenshot({ path: join(process.cwd(), 'docs', 'trace-viewer.png') })
} finally {
  await context.close()
  rmSync(profile, { recursive: true, force: true })
  await server.close(1000)
  await engine.close()
}
