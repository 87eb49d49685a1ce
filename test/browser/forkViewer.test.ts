/**
 * The trace viewer on a writable fork, in chromium: a transaction the fork mined (a token
 * transfer) is traced by hash through the fork's REST route when the Fork field holds the fork's
 * id — typed, picked from the live forks, or given as `?fork=` — and is unknown to the chain
 * itself. The screenshot goes to test-results/trace-viewer/ (gitignored).
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { BrowserContext, Page } from 'playwright-core'
import { createPublicClient, createWalletClient, http, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { foundry } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { forkContracts } from '../src/forks/contracts.js'
import { startForkApp, type ForkApp } from '../src/forks/forkApp.js'
import { launchHeadlessChromium, requireChromium, type HeadlessChromium } from '../support/chromium.js'

const haveChromium = requireChromium('fork viewer')
const shots = fileURLToPath(new URL('../../test-results/trace-viewer/', import.meta.url))
const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
const BOB = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'

describe.runIf(haveChromium)('trace viewer on a fork', () => {
  let app: ForkApp
  let context: BrowserContext
  let browser: HeadlessChromium | undefined
  let forkId: string
  let transfer: Hex
  let token: Hex

  beforeAll(async () => {
    app = await startForkApp()
    const fork = await app.createFork({ label: 'viewer' })
    forkId = fork.forkId
    const { Token } = forkContracts()
    const wallet = createWalletClient({ account, chain: foundry, transport: http(fork.rpcUrl) })
    const pub = createPublicClient({ chain: foundry, transport: http(fork.rpcUrl), cacheTime: 0 })
    token = (await pub.waitForTransactionReceipt({ hash: await wallet.deployContract({ abi: Token.abi, bytecode: Token.bytecode, args: [10n ** 24n] }) }))
      .contractAddress!
    transfer = await wallet.writeContract({ address: token, abi: Token.abi, functionName: 'transfer', args: [BOB, 12345n] })
    await pub.waitForTransactionReceipt({ hash: transfer })
    browser = await launchHeadlessChromium({ viewport: { width: 1280, height: 900 } })
    context = browser.context
    await context.route('**/*', (route) => (new URL(route.request().url()).hostname === '127.0.0.1' ? route.continue() : route.abort()))
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await app?.close()
  })

  /** the viewer with the token set for the tab */
  async function open(): Promise<Page> {
    const page = await context.newPage()
    await page.goto(`${app.url}/v1/ui`, { waitUntil: 'networkidle' })
    await page.getByLabel('API token').fill(app.config.api.auth_token)
    await page.getByRole('button', { name: 'Use token' }).click()
    return page
  }

  async function trace(page: Page, hash: Hex): Promise<string> {
    await page.getByRole('textbox', { name: 'Transaction hash' }).fill(hash)
    await page.getByRole('button', { name: 'Trace' }).click()
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toMatch(/done|:/)
    return (await page.locator('#status').textContent())!
  }

  it('traces a fork-mined transaction through the fork, which the chain does not know', async () => {
    const page = await open()
    // the live forks are offered in the field
    await expect.poll(() => page.locator('#fork-list option').evaluateAll((os) => os.map((o) => o.getAttribute('value')))).toContain(forkId)
    expect(await trace(page, transfer)).toMatch(/TRANSACTION_NOT_FOUND/)
    await page.getByRole('combobox', { name: 'Fork' }).fill(forkId)
    expect(await trace(page, transfer)).toMatch(/^done/)
    await expect.poll(() => page.locator('#summary').textContent()).toMatch(/success.*top call transfer/)
    expect(await page.locator('#tree').textContent()).toContain('transfer(')
    expect(await page.locator('#transfers').textContent()).toContain('12,345')
    // the address bar keeps the fork: the link opens the same trace
    expect(new URL(page.url()).search).toBe(`?fork=${forkId}&tx=${transfer}`)
    await page.close()
  }, 60_000)

  it('opens ?fork=…&tx=… straight away', async () => {
    const page = await open()
    await page.goto(`${app.url}/v1/ui?fork=${forkId}&tx=${transfer}`, { waitUntil: 'networkidle' })
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toMatch(/^done/)
    expect(await page.getByRole('combobox', { name: 'Fork' }).inputValue()).toBe(forkId)
    await expect.poll(() => page.locator('#summary').textContent()).toMatch(/success/)
    mkdirSync(shots, { recursive: true })
    await page.screenshot({ path: join(shots, 'fork-transaction.png'), fullPage: true })
    await page.close()
  }, 60_000)

  it("traces a call on the fork's head", async () => {
    const page = await open()
    await page.getByRole('radio', { name: 'Call' }).check()
    await page.getByRole('combobox', { name: 'Fork' }).fill(forkId)
    await page.getByRole('textbox', { name: 'From' }).fill(account.address)
    await page.getByRole('textbox', { name: 'To', exact: true }).fill(token)
    await page.getByRole('textbox', { name: 'Function' }).fill('balanceOf(address)')
    await page.getByRole('textbox', { name: 'Arguments (JSON array)' }).fill(JSON.stringify([BOB]))
    await page.getByRole('button', { name: 'Trace' }).click()
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toMatch(/^done/)
    // the token the fork deployed answers with the transfer the fork mined
    expect(await page.locator('#tree').textContent()).toMatch(/balanceOf\(.*\).*12345/)
    await page.close()
  }, 60_000)

  it('refuses a malformed fork id before sending anything', async () => {
    const page = await open()
    await page.getByRole('combobox', { name: 'Fork' }).fill('not-a-fork')
    expect(await trace(page, transfer)).toMatch(/fork: fork_ followed by a UUID/)
    await page.close()
  }, 60_000)
})
