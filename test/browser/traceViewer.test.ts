/**
 * The trace viewer (/v1/ui) in chromium (headless, Debian's binary through playwright-core) over
 * the real app and engine on the embedded devnet. Every request must stay on 127.0.0.1 (anything
 * else is blocked and recorded); screenshots go to test-results/trace-viewer/ (gitignored).
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserContext } from 'playwright-core'
import { encodeFunctionData } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMemoryCacheStore } from '../../host/cache/memoryCacheStore.js'
import { createEngine } from '../../engine/index.js'
import type { Engine } from '../../engine/types.js'
import { startTestApp, testToken, type TestApp } from '../src/support/startTestApp.js'
import { scenarioContracts } from './scenarios.js'
import { launchHeadlessChromium, requireChromium, type HeadlessChromium } from '../support/chromium.js'
import { fillViewerCall, openViewerPage, traceInViewer } from '../support/viewerPage.js'

const haveChromium = requireChromium('trace viewer')

const DEMO_TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
const DEMO_TRANSFER_TX = '0x8849d23607d7c87b58414fda583340f2c2b6393f2461223972e42e81c7fda23b'
const ACCOUNT0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const ACCOUNT1 = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const SCENARIO = '0x00000000000000000000000000000000005ce4a1'
const FANOUT = '0x000000000000000000000000000000000000fa40'
const artifacts = join(process.cwd(), 'test-results', 'trace-viewer')

describe.runIf(haveChromium)('trace viewer (/v1/ui) in chromium', () => {
  let engine: Engine
  let app: TestApp
  let context: BrowserContext
  let browser: HeadlessChromium | undefined
  const foreign: string[] = []

  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true })
    engine = await createEngine({
      cache: createMemoryCacheStore(),
      gasCap: 50_000_000n,
      rpcTimeoutMs: 10_000,
      maxStructLogSteps: 100_000,
      simulationTtlSeconds: 60,
    })
    // a page loads two dozen assets and the debugger asks for the selected frame's steps: room for every test's pages
    app = await startTestApp({ engine, env: { RATE_LIMIT_REQUESTS: '10000' } })
    browser = await launchHeadlessChromium({ viewport: { width: 1280, height: 900 } })
    context = browser.context
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url())
      if (url.hostname === '127.0.0.1') return route.continue()
      foreign.push(url.href)
      return route.abort()
    })
  })

  afterAll(async () => {
    await browser?.close()
    await app?.close()
    await engine?.close()
  })

  it('the demo transaction shows transfer(address,uint256) with its arguments and the decoded Transfer event', async () => {
    const errors: string[] = []
    const page = await openViewerPage(context, app.url, testToken, errors, '/')
    await page.getByRole('textbox', { name: 'Transaction hash' }).fill(DEMO_TRANSFER_TX)
    await traceInViewer(page)

    const top = page.locator('#tree > [role=treeitem]').first()
    const row = top.locator(':scope > .row')
    await expect.poll(() => row.textContent()).toContain('transfer(')
    const text = (await row.textContent())!
    expect(text).toContain('CALL')
    expect(text).toContain('DEMO') // the token's symbol labels its address
    expect(text).toContain('to: 0x7099…79c8')
    expect(text).toContain('value: 1000000000000000000000')
    expect(await row.locator('.fn').getAttribute('title')).toContain('transfer(address,uint256)')
    const event = top.locator('.log .row').first()
    expect(await event.textContent()).toContain('Transfer(from: 0xf39f…2266, to: 0x7099…79c8, value: 1000000000000000000000)')
    expect(await event.textContent()).toContain('Transfer 1000 DEMO from 0xf39f…2266 to 0x7099…79c8')
    // transfers, balances (prestate diff) and the raw JSON of every tracer
    expect(await page.locator('#transfers').textContent()).toContain('DEMO')
    expect(await page.locator('#state').textContent()).toContain(DEMO_TOKEN)
    expect(await page.locator('#raw a').allTextContents()).toEqual(['callTracer.json', 'prestateTracer.json', 'callTree.json', 'gasProfile.json'])
    await page.screenshot({ path: join(artifacts, 'demo-transfer.png'), fullPage: true })

    // the keyboard reaches the log row's parent and closes it
    await top.focus()
    await page.keyboard.press('ArrowLeft')
    expect(await top.getAttribute('aria-expanded')).toBe('false')
    await page.keyboard.press('Enter')
    expect(await top.getAttribute('aria-expanded')).toBe('true')
    expect(errors).toEqual([])
    expect(foreign).toEqual([])
    await page.close()
  })

  it('a reverting call shows its revert reason on the failing frame', async () => {
    const errors: string[] = []
    const page = await openViewerPage(context, app.url, testToken, errors, '/')
    await fillViewerCall(page, { from: ACCOUNT1, to: DEMO_TOKEN, fn: 'transferFrom(address,address,uint256)', args: [ACCOUNT0, ACCOUNT1, '5'] })
    await traceInViewer(page)

    const failing = page.locator('#tree [role=treeitem].failed').first()
    await expect.poll(() => failing.locator(':scope > .row .revert').textContent()).toContain('DEMO: allowance exceeded')
    expect(await failing.getAttribute('class')).toContain('fail-path')
    expect(await failing.locator(':scope > .row .fn').textContent()).toContain('transferFrom(from: 0xf39f…2266, to: 0x7099…79c8, value: 5)')
    expect(await failing.locator(':scope > .row .addr b').textContent()).toBe('DEMO') // a reverted frame's contract is labelled too
    expect(await page.locator('#summary').textContent()).toContain('failed')
    await page.screenshot({ path: join(artifacts, 'revert.png'), fullPage: true })
    expect(errors).toEqual([])
    expect(foreign).toEqual([])
    await page.close()
  })

  it('a nested swap shows the tree: router, pair and token calls with their events', async () => {
    const errors: string[] = []
    const page = await openViewerPage(context, app.url, testToken, errors, '/')
    const { Scenario } = scenarioContracts()
    await page.getByRole('radio', { name: 'Call' }).check()
    await page.getByRole('textbox', { name: 'From' }).fill(ACCOUNT0)
    await page.getByRole('textbox', { name: 'To', exact: true }).fill(SCENARIO)
    await page.getByRole('textbox', { name: 'Data' }).fill(encodeFunctionData({ abi: Scenario!.abi, functionName: 'run', args: [10n ** 18n, 1n] }))
    await page.locator('summary', { hasText: 'State overrides' }).click()
    await page.getByRole('textbox', { name: /^State overrides/ }).fill(JSON.stringify({ [SCENARIO]: { code: Scenario!.deployedBytecode } }))
    await page.getByRole('textbox', { name: /^ABIs/ }).fill(JSON.stringify({ [SCENARIO]: Scenario!.abi }))
    await page.getByRole('textbox', { name: /^Labels/ }).fill(JSON.stringify({ [SCENARIO]: 'scenario' }))
    await traceInViewer(page)

    const tree = page.locator('#tree')
    const top = tree.locator(':scope > [role=treeitem] > .row')
    expect(await top.textContent()).toContain('scenario')
    expect(await top.textContent()).toContain('run(amountIn: 1000000000000000000, amountOutMin: 1)')
    const swap = tree.locator('[role=treeitem]', { has: page.locator(':scope > .row .fn b', { hasText: 'swapExactTokensForTokens' }) })
    await expect.poll(() => swap.count()).toBe(1)
    expect(await swap.getAttribute('aria-level')).toBe('2')
    // depth 2 is open by default: the router's calls are there, the pair's swap among them
    const pairSwap = swap.locator(':scope > ul > [role=treeitem]', { has: page.locator(':scope > .row .fn b', { hasText: /^swap$/ }) })
    await expect.poll(() => pairSwap.count()).toBe(1)
    expect(await pairSwap.getAttribute('aria-expanded')).toBe('false') // level 3 starts closed
    await pairSwap.locator(':scope > .row').click()
    expect(await pairSwap.getAttribute('aria-expanded')).toBe('true')
    await page.screenshot({ path: join(artifacts, 'nested-swap.png'), fullPage: true })
    const inner = (await pairSwap.locator(':scope > ul > li > .row').allTextContents()).join('\n')
    expect(inner).toMatch(/CALL 0x[0-9a-f]{4}…[0-9a-f]{4} → USDC 0x[0-9a-f]{4}…[0-9a-f]{4} transfer\(to: 0xf39f…2266, value: \d+\)/)
    expect(inner).toMatch(/event Swap\(sender: .*, amount0In: 1000000000000000000, amount1In: 0, amount0Out: 0, amount1Out: \d+, to: 0xf39f…2266\)/)
    expect(await swap.locator(':scope > .row .result').textContent()).toMatch(/→ \(amounts: \[1000000000000000000, \d+\]\)/)
    expect(errors).toEqual([])
    expect(foreign).toEqual([])
    await page.close()
  })

  it('a trace of 1,200+ frames opens with only what is on screen built, deep levels closed, and stays keyboard usable', async () => {
    const errors: string[] = []
    const page = await openViewerPage(context, app.url, testToken, errors, '/')
    const { Fanout } = scenarioContracts()
    await page.getByRole('radio', { name: 'Call' }).check()
    await page.getByRole('textbox', { name: 'From' }).fill(ACCOUNT0)
    await page.getByRole('textbox', { name: 'To', exact: true }).fill(FANOUT)
    await page.getByRole('textbox', { name: 'Function' }).fill('fan')
    await page.getByRole('textbox', { name: 'Arguments (JSON array)' }).fill('["1200", "40"]')
    await page.locator('summary', { hasText: 'State overrides' }).click()
    await page.getByRole('textbox', { name: /^State overrides/ }).fill(JSON.stringify({ [FANOUT]: { code: Fanout!.deployedBytecode } }))
    await page.getByRole('textbox', { name: /^ABIs/ }).fill(JSON.stringify({ [FANOUT]: Fanout!.abi }))
    await traceInViewer(page)

    // 1 + 1200 leaves + 41 dives
    expect(await page.locator('#summary').textContent()).toContain('1242 frames')
    // the first batch of the root's children is built, nothing below the closed levels
    expect(await page.locator('#tree [role=treeitem]').count()).toBe(1 + 200)
    const more = page.getByRole('button', { name: /show 200 more of 1001/ })
    await more.click()
    expect(await page.locator('#tree [role=treeitem]').count()).toBe(1 + 400)
    const leaf = page.locator('#tree [role=treeitem]').nth(3)
    expect(await leaf.locator(':scope > .row').textContent()).toContain('leaf(i: 2)')
    expect(await leaf.locator(':scope > .row').textContent()).toContain('→ (4)')
    // keyboard: focus the top, walk down, open the path of dives with → and reach a closed level
    const top = page.locator('#tree > [role=treeitem]')
    await top.focus()
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('ArrowDown')
    expect(await page.locator(':focus > .row .fn').textContent()).toContain('leaf(i: 1)')
    await page.keyboard.press('End')
    await page.keyboard.press('Home')
    expect(await page.locator(':focus').getAttribute('aria-level')).toBe('1')
    await page.screenshot({ path: join(artifacts, 'large-trace.png') })
    expect(errors).toEqual([])
    expect(foreign).toEqual([])
    await page.close()
  })
})
