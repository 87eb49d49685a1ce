/**
 * Tracer gasProfile's exports opened in speedscope itself: the devnet's demo transfer profiled with
 * the demo contracts' build-info registered (so `DemoToken::transfer` and its internal `_move` are
 * frames), its `folded` text and its `speedscope` document served beside speedscope's static
 * release (npm `speedscope`) on 127.0.0.1 and opened with `#profileURL=`. The Sandwich view's table
 * lists every function of the profile with its total and self gas as the profile has them; no
 * request leaves 127.0.0.1. Screenshots go to test-results/speedscope/ (gitignored).
 */
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../engine/index.js'
import type { Engine } from '../../engine/types.js'
import { createMemoryCacheStore } from '../../host/cache/memoryCacheStore.js'
import { post, startTestApp, type TestApp } from '../src/support/startTestApp.js'
import { launchHeadlessChromium, requireChromium, type HeadlessChromium } from '../support/chromium.js'
import { requireSpeedscope, serveSpeedscope, type SpeedscopeServer } from '../support/speedscopeRelease.js'

const ready = requireChromium('speedscope') && requireSpeedscope('speedscope')

const DEMO_TRANSFER_TX = '0x8849d23607d7c87b58414fda583340f2c2b6393f2461223972e42e81c7fda23b'
const artifacts = join(process.cwd(), 'test-results', 'speedscope')

interface GasProfile {
  executionGas: number
  functions: { contract: string; function: string; kind: string; selfGas: number; totalGas: number }[]
  folded: string
  speedscope: { name: string }
}

interface SandwichRow {
  name: string
  total: string
  self: string
}

/** speedscope's page with what it logged, its errors and every URL it asked for */
async function openSpeedscope(context: BrowserContext, url: string) {
  const page = await context.newPage()
  const logged: string[] = []
  const errors: string[] = []
  const requested: string[] = []
  page.on('console', (m) => (m.type() === 'error' ? errors : logged).push(m.text()))
  page.on('pageerror', (e) => errors.push(e.message))
  page.on('request', (r) => requested.push(r.url()))
  const res = await page.goto(url, { waitUntil: 'networkidle' })
  expect(res?.status()).toBe(200)
  return { page, logged, errors, requested }
}

/** the Sandwich table's rows (virtualised: a short profile's rows are all drawn) */
async function sandwichRows(page: Page): Promise<SandwichRow[]> {
  const rows = page.locator('tr').filter({ has: page.locator('td:nth-child(3)') })
  await expect.poll(() => rows.count(), { timeout: 10_000 }).toBeGreaterThan(0)
  return rows.evaluateAll((trs) =>
    trs.map((tr) => {
      const [total, self, name] = [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')
      return { name: name!, total: total!, self: self! }
    }),
  )
}

describe.runIf(ready)('gasProfile exports opened in speedscope, in chromium', () => {
  let engine: Engine
  let app: TestApp
  let browser: HeadlessChromium | undefined
  let context: BrowserContext
  let speedscope: SpeedscopeServer
  let profile: GasProfile
  const foreign: string[] = []

  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true })
    engine = await createEngine({
      cache: createMemoryCacheStore(),
      gasCap: 50_000_000n,
      rpcTimeoutMs: 10_000,
      maxStructLogSteps: 100_000,
      simulationTtlSeconds: 60,
      // the verified-sources service: port 1, where nothing listens
      sources: { maxBytes: 2 ** 24, sourcifyUrl: 'http://127.0.0.1:1' },
    })
    app = await startTestApp({ engine })
    const buildInfo = JSON.parse(readFileSync(join(process.cwd(), 'scripts/demo-contracts/build-info.json'), 'utf8'))
    expect((await app.fetch('/v1/sources', post({ buildInfo }))).status).toBe(201)
    const res = await app.fetch('/v1/trace/tx', post({ transactionHash: DEMO_TRANSFER_TX, tracerConfig: { gasProfile: true } }))
    expect(res.status).toBe(200)
    profile = (await res.json()).data.gasProfile
    speedscope = await serveSpeedscope([
      { name: 'demo-transfer.folded', type: 'text/plain; charset=utf-8', body: profile.folded },
      { name: 'gas-profile.speedscope.json', type: 'application/json', body: JSON.stringify(profile.speedscope) },
    ])
    browser = await launchHeadlessChromium({ viewport: { width: 1100, height: 440 } })
    context = browser.context
    // nothing leaves this machine: a request elsewhere is noted and refused
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url())
      if (url.hostname !== '127.0.0.1') {
        foreign.push(url.href)
        return route.abort()
      }
      return route.continue()
    })
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await speedscope?.close()
    await app?.close()
    await engine?.close()
  })

  it('the profile has the demo transfer’s external and internal functions', () => {
    const kinds = Object.fromEntries(profile.functions.map((f) => [`${f.contract}::${f.function}`, f.kind]))
    expect(kinds).toMatchObject({ 'DemoToken::transfer': 'external', 'DemoToken::_move': 'internal' })
  })

  for (const file of [
    { name: 'demo-transfer.folded', importer: 'Importing as collapsed stack format', title: () => 'demo-transfer.folded' },
    { name: 'gas-profile.speedscope.json', importer: 'Importing as speedscope json file', title: () => profile.speedscope.name },
  ])
    it(`imports ${file.name}: the Sandwich table lists every function with its total and self gas`, async () => {
      const { page, logged, errors, requested } = await openSpeedscope(context, speedscope.pageFor(file.name, 'sandwich'))
      await expect.poll(() => page.title(), { timeout: 10_000 }).toBe(`${file.title()} - speedscope`)
      expect(logged).toContain(file.importer)
      const rows = await sandwichRows(page)
      const grouped = (n: number) => page.evaluate((v) => v.toLocaleString(), n)
      expect(rows.map((r) => r.name).sort()).toEqual(profile.functions.map((f) => `${f.contract}::${f.function}`).sort())
      for (const f of profile.functions) {
        const row = rows.find((r) => r.name === `${f.contract}::${f.function}`)!
        expect(row.total, row.name).toMatch(new RegExp(`^${await grouped(f.totalGas)} \\(`))
        expect(row.self, row.name).toMatch(new RegExp(`^${await grouped(f.selfGas)} \\(`))
      }
      // the top function is the whole execution
      const whole = await grouped(profile.executionGas)
      const top = rows.find((r) => r.total.startsWith(`${whole} (`))
      expect(top?.total).toMatch(/\(100%\)$/)

      // _move selected: its callers and callees drawn beside the table
      await page.locator('tr', { hasText: 'DemoToken::_move' }).click()
      await page.screenshot({ path: join(artifacts, `${file.name}-sandwich.png`) })
      // the run in time order: transfer's own gas, then _move inside it
      await page.getByText('Time Order').click({ timeout: 5_000 })
      await page.screenshot({ path: join(artifacts, `${file.name}-time-order.png`) })
      expect(errors).toEqual([])
      expect(speedscope.served).toContain(`/profiles/${file.name}`)
      expect(requested.filter((u) => new URL(u).hostname !== '127.0.0.1')).toEqual([])
      expect(foreign).toEqual([])
      await page.close()
    }, 30_000)
})
