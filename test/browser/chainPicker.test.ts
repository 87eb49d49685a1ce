import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../engine/index.js'
import { createChainSet, type ChainSet } from '../../host/chains.js'
import { createMemoryCacheStore } from '../../host/cache/memoryCacheStore.js'
import { requireAnvil, startAnvil, type AnvilInstance } from '../support/anvil.js'
import { startTestApp, testToken, type TestApp } from '../src/support/startTestApp.js'
import { launchHeadlessChromium, requireChromium, type HeadlessChromium } from '../support/chromium.js'

const haveChromium = requireChromium('chain picker')
const haveAnvil = requireAnvil()
const DEMO_TRANSFER_TX = '0x8849d23607d7c87b58414fda583340f2c2b6393f2461223972e42e81c7fda23b'

describe.runIf(haveChromium && haveAnvil)('trace viewer chain picker', () => {
  let anvil: AnvilInstance
  let chains: ChainSet
  let app: TestApp
  let context: BrowserContext
  let browser: HeadlessChromium | undefined
  const opts = { gasCap: 50_000_000n, rpcTimeoutMs: 10_000, maxStructLogSteps: 10_000, simulationTtlSeconds: 60 }

  beforeAll(async () => {
    anvil = await startAnvil()
    const devnet = await createEngine({ ...opts, cache: createMemoryCacheStore() })
    chains = createChainSet(devnet, { anvil: await createEngine({ ...opts, rpcUrl: anvil.url, cache: createMemoryCacheStore() }) })
    app = await startTestApp({ engine: devnet, chains })
    browser = await launchHeadlessChromium()
    context = browser.context
    await context.route('**/*', (route) => (new URL(route.request().url()).hostname === '127.0.0.1' ? route.continue() : route.abort()))
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await app?.close()
    await chains?.close()
    await anvil?.stop()
  })

  async function open(path: string): Promise<Page> {
    const page = await context.newPage()
    await page.goto(`${app.url}${path}`, { waitUntil: 'networkidle' })
    await page.getByLabel('API token').fill(testToken)
    await page.getByRole('button', { name: 'Use token' }).click()
    await expect.poll(() => page.locator('#chain-field').isVisible()).toBe(true)
    return page
  }

  async function traceDemo(page: Page): Promise<string> {
    await page.getByRole('textbox', { name: 'Transaction hash' }).fill(DEMO_TRANSFER_TX)
    await page.getByRole('button', { name: 'Trace' }).click()
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toMatch(/done|:/)
    return (await page.locator('#status').textContent())!
  }

  it('lists the chains and traces on the one picked', async () => {
    const page = await open('/v1/ui')
    expect(await page.locator('#chain option').allTextContents()).toEqual(['default · ethereum · id 31337', 'anvil · ethereum · id 31337'])
    expect(await traceDemo(page)).not.toMatch(/TRANSACTION_NOT_FOUND/)
    await page.getByRole('combobox', { name: 'Chain' }).selectOption('anvil')
    expect(await traceDemo(page)).toMatch(/TRANSACTION_NOT_FOUND/)
    await page.close()
  })

  it('starts on the chain its path names', async () => {
    const page = await open('/v1/chains/anvil/ui')
    // the picker is filled from GET /v1/chains after the field shows: its value settles then
    await expect.poll(() => page.getByRole('combobox', { name: 'Chain' }).inputValue()).toBe('anvil')
    await page.close()
  })
})
