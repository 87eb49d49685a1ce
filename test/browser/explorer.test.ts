import type { BrowserContext } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, testToken, type TestApp } from '../src/support/startTestApp.js'
import { launchHeadlessChromium, requireChromium, type HeadlessChromium } from '../support/chromium.js'

const haveChromium = requireChromium('API explorer')

describe.runIf(haveChromium)('API explorer (/v1/openapi/docs) in chromium', () => {
  let app: TestApp
  let context: BrowserContext
  let browser: HeadlessChromium | undefined
  const foreign: string[] = []

  beforeAll(async () => {
    app = await startTestApp()
    browser = await launchHeadlessChromium()
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
  })

  it('Try it out on GET /health shows the live response, with no request leaving 127.0.0.1', async () => {
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await page.goto(`${app.url}/v1/openapi/docs`, { waitUntil: 'networkidle' })

    // the block of /v1/health itself, not of /v1/health/live or /v1/health/ready
    const health = page.locator('.opblock-get').filter({ has: page.locator('.opblock-summary-path[data-path="/v1/health"]') })
    await health.locator('.opblock-summary').click()
    await health.getByRole('button', { name: 'Try it out' }).click()
    await health.getByRole('button', { name: 'Execute' }).click()

    const body = health.locator('.responses-wrapper .live-responses-table .response-col_description pre').first()
    await expect.poll(async () => (await body.textContent()) ?? '', { timeout: 15_000 }).toContain('"status"')
    const shown = JSON.parse((await body.textContent())!) as { status: string; chainId: number }
    expect(shown.status).toBe('ok')
    expect(shown.chainId).toBe(31337)

    expect(errors).toEqual([])
    expect(foreign).toEqual([])
    await page.close()
  })

  it('Authorize with the bearer token makes protected endpoints answer (401 without it)', async () => {
    const page = await context.newPage()
    await page.goto(`${app.url}/v1/openapi/docs`, { waitUntil: 'networkidle' })
    const op = page.locator('.opblock-get', { hasText: '/v1/simulations/' })
    let triedOut = false
    const execute = async () => {
      if (!triedOut) {
        triedOut = true
        await op.getByRole('button', { name: 'Try it out' }).click()
        await op.locator('input[placeholder="simulationId"]').fill('sim_11111111-2222-4333-8444-555555555555')
      }
      // Wait for this click's own response: the table may still show the previous one, so
      // reading it straight away would race the new request.
      const answered = page.waitForResponse((r) => r.url().includes('/v1/simulations/'), { timeout: 15_000 })
      await op.getByRole('button', { name: 'Execute' }).click()
      const networkStatus = String((await answered).status())
      const status = op.locator('.live-responses-table .response .response-col_status').first()
      await expect.poll(async () => ((await status.textContent()) ?? '').trim().slice(0, 3), { timeout: 15_000 }).toBe(networkStatus)
      return networkStatus
    }
    await op.locator('.opblock-summary').click()
    expect(await execute()).toBe('401')

    await page
      .getByRole('button', { name: /Authorize/ })
      .first()
      .click()
    const dialog = page.locator('.dialog-ux')
    await expect.poll(async () => (await dialog.textContent()) ?? '').toContain('bearerAuth')
    expect(await dialog.textContent()).toContain('X-API-Key')
    const bearer = dialog.locator('.auth-container', { hasText: 'bearerAuth' })
    await bearer.locator('input').fill(testToken)
    await bearer.locator('input').press('Enter') // submits that scheme's form: Authorize
    await expect.poll(async () => (await bearer.textContent()) ?? '').toMatch(/Authorized|Logout/)
    await page.locator('.dialog-ux .close-modal').click()

    await op.locator('.live-responses-table').waitFor()
    expect(await execute()).toBe('404')
    expect(foreign).toEqual([])
    await page.close()
  })
})
