/**
 * The trace viewer driven as a user drives it: the page opened and the API token entered once, a
 * call typed into the form, the Trace button pressed and its answer awaited.
 */
import type { BrowserContext, Page } from 'playwright-core'
import { expect } from 'vitest'

/** a page at `path` (the viewer, or a path that leads to it) with the token entered; page errors go to `errors` */
export async function openViewerPage(context: BrowserContext, origin: string, token: string, errors: string[], path = '/v1/ui'): Promise<Page> {
  const page = await context.newPage()
  page.on('pageerror', (e) => errors.push(e.message))
  const res = await page.goto(`${origin}${path}`, { waitUntil: 'networkidle' })
  expect(res?.status()).toBe(200)
  expect(new URL(page.url()).pathname).toBe('/v1/ui')
  await page.getByLabel('API token').fill(token)
  await page.getByRole('button', { name: 'Use token' }).click()
  await expect.poll(() => page.locator('#token-state').textContent()).toContain('token set')
  return page
}

/** the form switched to a call from `from` to `to` of `fn` with its JSON arguments */
export async function fillViewerCall(page: Page, call: { from: string; to: string; fn: string; args: unknown[] }): Promise<void> {
  await page.getByRole('radio', { name: 'Call' }).check()
  await page.getByRole('textbox', { name: 'From' }).fill(call.from)
  await page.getByRole('textbox', { name: 'To', exact: true }).fill(call.to)
  await page.getByRole('textbox', { name: 'Function' }).fill(call.fn)
  await page.getByRole('textbox', { name: 'Arguments (JSON array)' }).fill(JSON.stringify(call.args))
}

/** Trace pressed, its answer awaited; the answer is no error of the request itself */
export async function traceInViewer(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Trace' }).click()
  await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toMatch(/done|:/)
  expect(await page.locator('#status').getAttribute('class')).not.toBe('error')
}
