/**
 * Tracer gasProfile's exports opened in speedscope itself: the devnet's demo transfer profiled with
 * the demo contracts' build-info registered (so `DemoToken::transfer` and its internal `_move` are
 * frames), and a call into code without sources that calls itself before it calls the token (a
 * frame named by its address and selector, recursion). Each profile's `folded` text and
 * `speedscope` document are served beside speedscope's static release (npm `speedscope`) on
 * 127.0.0.1 and opened with `#profileURL=`. The Sandwich view's table lists every function of the
 * profile with its total and self gas as the profile has them (speedscope counts a function once
 * in a stack that holds it twice, as `totalGas` counts activations); no request leaves 127.0.0.1.
 * Screenshots go to test-results/speedscope/ (gitignored).
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Engine } from '../../engine/types.js'
import { post, type TestApp } from '../src/support/startTestApp.js'
import { startDemoSourcesApp } from '../support/demoSourcesApp.js'
import { keepRequestsLocal, launchHeadlessChromium, requireChromium, type HeadlessChromium } from '../support/chromium.js'
import { requireSpeedscope, serveSpeedscope, type SpeedscopeServer } from '../support/speedscopeRelease.js'

const ready = requireChromium('speedscope') && requireSpeedscope('speedscope')

const DEMO_TRANSFER_TX = '0x8849d23607d7c87b58414fda583340f2c2b6393f2461223972e42e81c7fda23b'
const DEMO_TOKEN = '5fbdb2315678afecb367f032d93f642f64180aa3'
const ACCOUNT0 = 'f39fd6e51aad88f6f4ce6ab8827279cfffb92266'
/** code nobody registered: called with a depth word, it calls itself until the depth is 3, then asks the token for a balance */
const RECURSING = '0x00000000000000000000000000000000000c0de1'
const RECURSING_CODE = `0x${[
  '600035', // PUSH1 0, CALLDATALOAD: the depth
  '80600311604e57', // DUP1, PUSH1 3, GT, PUSH1 0x4e, JUMPI: under 3, recurse
  '6370a0823160e01b600052', // balanceOf's selector at memory 0
  `73${ACCOUNT0}600452`, // its owner after it
  `602060006024600073${DEMO_TOKEN}5afa`, // STATICCALL(gas, token, 0, 0x24, 0, 0x20)
  '5000', // POP, STOP
  '5b600101600052', // 0x4e: JUMPDEST, the depth plus one at memory 0
  '60006000602060006000305af1', // CALL(gas, itself, 0, 0, 0x20, 0, 0)
  '5000', // POP, STOP
].join('')}`
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
  /** the demo transfer (sources, an internal frame) and the recursing call (no sources, recursion, a sourced callee) */
  const profiles: Record<string, GasProfile> = {}
  const foreign: string[] = []

  async function gasProfileOf(path: string, body: object): Promise<GasProfile> {
    const res = await app.fetch(path, post({ ...body, tracerConfig: { gasProfile: true } }))
    expect(res.status).toBe(200)
    return (await res.json()).data.gasProfile
  }

  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true })
    ;({ engine, app } = await startDemoSourcesApp())
    profiles['demo-transfer'] = await gasProfileOf('/v1/trace/tx', { transactionHash: DEMO_TRANSFER_TX })
    profiles.recursion = await gasProfileOf('/v1/trace/call', {
      call: { from: `0x${ACCOUNT0}`, to: RECURSING, data: `0x${'00'.repeat(32)}` },
      stateOverrides: { [RECURSING]: { code: RECURSING_CODE } },
    })
    speedscope = await serveSpeedscope(
      Object.entries(profiles).flatMap(([name, p]) => [
        { name: `${name}.folded`, type: 'text/plain; charset=utf-8', body: p.folded },
        { name: `${name}.speedscope.json`, type: 'application/json', body: JSON.stringify(p.speedscope) },
      ]),
    )
    browser = await launchHeadlessChromium({ viewport: { width: 1100, height: 440 } })
    context = browser.context
    // nothing leaves this machine: a request elsewhere is noted and refused
    await keepRequestsLocal(context, foreign)
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await speedscope?.close()
    await app?.close()
    await engine?.close()
  })

  it('the profiles: the demo transfer’s external and internal functions; a recursing frame without sources around a token call', () => {
    const kinds = Object.fromEntries(profiles['demo-transfer']!.functions.map((f) => [`${f.contract}::${f.function}`, f.kind]))
    expect(kinds).toMatchObject({ 'DemoToken::transfer': 'external', 'DemoToken::_move': 'internal' })
    const [outer, token] = profiles.recursion!.functions
    expect(outer).toMatchObject({ contract: RECURSING, calls: 4, totalGas: profiles.recursion!.executionGas })
    expect(token).toMatchObject({ contract: 'DemoToken', function: 'balanceOf', calls: 1 })
  })

  const imports = [
    { file: 'demo-transfer.folded', importer: 'Importing as collapsed stack format' },
    { file: 'demo-transfer.speedscope.json', importer: 'Importing as speedscope json file' },
    { file: 'recursion.folded', importer: 'Importing as collapsed stack format' },
    { file: 'recursion.speedscope.json', importer: 'Importing as speedscope json file' },
  ]
  for (const { file, importer } of imports)
    it(`imports ${file}: the Sandwich table lists every function with its total and self gas`, async () => {
      const profile = profiles[file.slice(0, file.indexOf('.'))]!
      const { page, logged, errors, requested } = await openSpeedscope(context, speedscope.pageFor(file, 'sandwich'))
      // the page's title: a document's own name, else the file's
      const title = file.endsWith('.json') ? profile.speedscope.name : file
      await expect.poll(() => page.title(), { timeout: 10_000 }).toBe(`${title} - speedscope`)
      expect(logged).toContain(importer)
      const rows = await sandwichRows(page)
      const grouped = (n: number) => page.evaluate((v) => v.toLocaleString(), n)
      const names = profile.functions.map((f) => `${f.contract}::${f.function}`)
      expect(rows.map((r) => r.name).sort()).toEqual([...names].sort())
      for (const f of profile.functions) {
        const row = rows.find((r) => r.name === `${f.contract}::${f.function}`)!
        expect(row.total, row.name).toMatch(new RegExp(`^${await grouped(f.totalGas)} \\(`))
        expect(row.self, row.name).toMatch(new RegExp(`^${await grouped(f.selfGas)} \\(`))
      }
      // the top function is the whole execution
      const whole = await grouped(profile.executionGas)
      expect(rows.find((r) => r.total.startsWith(`${whole} (`))?.total).toMatch(/\(100%\)$/)

      // a callee (the least total gas) selected: its callers and callees drawn beside the table; then the run in time order
      const callee = [...profile.functions].sort((a, b) => a.totalGas - b.totalGas)[0]!
      await page.locator('tr', { hasText: `${callee.contract}::${callee.function}` }).click()
      await page.screenshot({ path: join(artifacts, `${file}-sandwich.png`) })
      await page.getByText('Time Order').click({ timeout: 5_000 })
      await page.screenshot({ path: join(artifacts, `${file}-time-order.png`) })
      expect(errors).toEqual([])
      expect(speedscope.served).toContain(`/profiles/${file}`)
      expect(requested.filter((u) => new URL(u).hostname !== '127.0.0.1')).toEqual([])
      expect(foreign).toEqual([])
      await page.close()
    }, 30_000)
})
