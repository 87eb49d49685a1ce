/**
 * Debian's chromium, headless, for the browser tests: one persistent context in a profile folder of
 * its own, no sandbox (the tests run as root), nothing that reaches out on its own (updates, sync,
 * background networking), so every request a test sees is the page's.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Request } from 'playwright-core'

export const CHROMIUM_PATH = '/usr/bin/chromium'

export interface HeadlessChromium {
  context: BrowserContext
  /** the context closed and its profile folder removed */
  close(): Promise<void>
}

export async function launchHeadlessChromium(opts: { viewport?: { width: number; height: number } } = {}): Promise<HeadlessChromium> {
  const profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'))
  const context = await chromium
    .launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      ...(opts.viewport && { viewport: opts.viewport }),
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    })
    .catch((e: unknown) => {
      rmSync(profile, { recursive: true, force: true })
      throw e
    })
  return {
    context,
    async close() {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    },
  }
}

/** whether chromium is here; in CI its absence fails the test file that needs it (`what` names the test) */
export function requireChromium(what: string): boolean {
  if (existsSync(CHROMIUM_PATH)) return true
  const msg = `\n\n!!! ${CHROMIUM_PATH} is missing: the ${what} browser test cannot run (apt-get install chromium) !!!\n`
  if (process.env.CI === 'true') throw new Error(msg)
  console.warn(msg)
  return false
}

/**
 * Keeps a context's requests on 127.0.0.1: any other host is refused and its URL pushed to
 * `foreign` (a test asserts it stays empty); `seen` is told of every local request before it goes
 * on. A page closed with a request still going leaves nothing to continue: that is not an error.
 */
export async function keepRequestsLocal(context: BrowserContext, foreign: string[], seen?: (request: Request, url: URL) => void): Promise<void> {
  await context.route('**/*', (route) => {
    const request = route.request()
    const url = new URL(request.url())
    if (url.hostname !== '127.0.0.1') {
      foreign.push(url.href)
      return route.abort()
    }
    seen?.(request, url)
    return route.continue().catch(() => undefined)
  })
}
