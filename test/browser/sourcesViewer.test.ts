/**
 * The trace viewer (/v1/ui) in chromium over the embedded devnet with the demo contracts'
 * build-info registered (POST /v1/sources, as the README's tour does): frames read
 * `DemoToken::transfer(…)`, the internal `_move` sits nested among the calls and events with its
 * arguments and gas, and a call that reverts inside `_move` shows the line it stopped at and the
 * backtrace; a call into code nobody registered, with the verified-sources service unreachable,
 * shows the trace's warning. The gas view draws tracer gasProfile as a flame chart that zooms on a
 * click, with the costliest lines and the speedscope document to download; storage changes read by
 * variable (`balanceOf[0x…]`), and an override by name typed in the overrides box reaches the
 * service. Screenshots go to test-results/trace-viewer/ (gitignored).
 */
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserContext } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Engine } from '../../engine/types.js'
import { post, testToken, type TestApp } from '../src/support/startTestApp.js'
import { startDemoSourcesApp } from '../support/demoSourcesApp.js'
import { keepRequestsLocal, launchHeadlessChromium, requireChromium, type HeadlessChromium } from '../support/chromium.js'
import { fillViewerCall, openViewerPage, traceInViewer } from '../support/viewerPage.js'

const haveChromium = requireChromium('sources viewer')

const DEMO_TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
const DEMO_TRANSFER_TX = '0x8849d23607d7c87b58414fda583340f2c2b6393f2461223972e42e81c7fda23b'
const ACCOUNT0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const ACCOUNT2 = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc'
/** more DEMO than was ever minted: a transfer of it reverts inside _move */
const TOO_MUCH = (10n ** 40n).toString()
const artifacts = join(process.cwd(), 'test-results', 'trace-viewer')
const grouped = (n: bigint) => n.toLocaleString('en-US')

describe.runIf(haveChromium)('trace viewer with the contracts’ sources, in chromium', () => {
  let engine: Engine
  let app: TestApp
  let context: BrowserContext
  let browser: HeadlessChromium | undefined
  const foreign: string[] = []
  /** the body of every trace the page asked for */
  const asked: { call?: unknown; tracerConfig: { callTree: unknown } }[] = []

  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true })
    // the debugger asks a request per page of steps: room for every test's pages
    ;({ engine, app } = await startDemoSourcesApp({ RATE_LIMIT_REQUESTS: '10000' }))
    browser = await launchHeadlessChromium({ viewport: { width: 1280, height: 900 } })
    context = browser.context
    await keepRequestsLocal(context, foreign, (request, url) => {
      // the debugger's pages of steps (tracer frameSteps) are test/browser/debuggerViewer.test.ts'
      if (url.pathname.startsWith('/v1/trace/') && !request.postDataJSON().tracerConfig?.frameSteps) asked.push(request.postDataJSON())
    })
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await app?.close()
    await engine?.close()
  })

  it('a transfer reads DemoToken::transfer with the internal _move nested under it, its event inside, its gas, and the keyboard walks into it', async () => {
    const errors: string[] = []
    const page = await openViewerPage(context, app.url, testToken, errors)
    await page.getByRole('textbox', { name: 'Transaction hash' }).fill(DEMO_TRANSFER_TX)
    await traceInViewer(page)
    expect(asked.at(-1)?.tracerConfig.callTree).toEqual({ internal: true })

    const top = page.locator('#tree > [role=treeitem]')
    const topRow = top.locator(':scope > .row')
    await expect.poll(() => topRow.textContent()).toContain('DemoToken::transfer(to: 0x7099…79c8, value: 1000000000000000000000)')
    expect(await topRow.locator('.contract').getAttribute('title')).toBe('DemoToken.sol')
    const internal = top.locator(':scope > ul > [role=treeitem].internal')
    await expect.poll(() => internal.count()).toBe(1)
    expect(await internal.getAttribute('aria-level')).toBe('2')
    const row = (await internal.locator(':scope > .row > .main').textContent())! + (await internal.locator(':scope > .row > .gas').textContent())
    expect(row).toMatch(/^internal DemoToken::_move\(from: 0xf39f…2266, to: 0x7099…79c8, value: 1000000000000000000000\)/)
    // the gas shown is the trace's own, from entering _move to leaving it
    const tree = (await (await app.fetch('/v1/trace/tx', post({ transactionHash: DEMO_TRANSFER_TX, tracerConfig: { callTree: { internal: true } } }))).json())
      .data.callTree
    const moveGas = BigInt(tree.calls[0].gasUsed)
    expect(moveGas).toBeGreaterThan(0n)
    expect(row).toContain(grouped(moveGas))
    // the Transfer event was emitted inside _move: it is listed under it, not beside it
    expect(await internal.locator(':scope > ul > .log .row').textContent()).toContain('Transfer(from: 0xf39f…2266')
    expect(await page.locator('#summary').textContent()).toContain('2 frames (1 internal) · top call DemoToken::transfer')
    expect(await page.locator('#backtrace').textContent()).toBe('')
    await page.screenshot({ path: join(artifacts, 'sources-transfer.png'), fullPage: true })

    // keyboard: from the top down into the internal frame; its detail names it
    await top.focus()
    await page.keyboard.press('ArrowDown')
    expect(await page.locator(':focus').getAttribute('class')).toContain('internal')
    const detail = (await page.locator('#detail').textContent())!
    expect(detail).toContain('INTERNAL')
    expect(detail).toContain('_move(address,address,uint256)')
    expect(detail).toContain(grouped(moveGas))
    await page.keyboard.press('ArrowLeft') // closes _move (its event is inside it)
    expect(await page.locator(':focus').getAttribute('aria-expanded')).toBe('false')
    await page.keyboard.press('ArrowLeft')
    expect(await page.locator(':focus').getAttribute('aria-level')).toBe('1')
    expect(errors).toEqual([])
    expect(foreign).toEqual([])
    await page.close()
  })

  it('a transfer reverting inside _move shows the reverted internal frame, the line it stopped at and the backtrace', async () => {
    const errors: string[] = []
    const page = await openViewerPage(context, app.url, testToken, errors)
    await fillViewerCall(page, { from: ACCOUNT2, to: DEMO_TOKEN, fn: 'transfer(address,uint256)', args: [ACCOUNT0, TOO_MUCH] })
    await traceInViewer(page)
    expect(asked.at(-1)?.tracerConfig.callTree).toEqual({ internal: true })

    // the place shown is the trace's own (the optimizer shares one REVERT among the contract's
    // reverts, so the source map may name another statement than the one that failed), and the
    // text shown is that line of the file
    const answer = await app.fetch('/v1/trace/call', post({ call: asked.at(-1)?.call, tracerConfig: { callTree: { internal: true } } }))
    const {
      source,
      backtrace: [innermost],
    } = (await answer.json()).data.callTree
    const { line, column } = source
    expect(innermost).toEqual({ contract: 'DemoToken', function: 'transfer', file: 'DemoToken.sol', line, column })
    const text = readFileSync(join(process.cwd(), 'scripts/demo-contracts/DemoToken.sol'), 'utf8').split('\n')[line - 1]!
    expect(source.text).toBe(text)
    const backtrace = page.locator('#backtrace')
    await expect.poll(() => backtrace.textContent()).toContain(`at DemoToken.transfer (DemoToken.sol:${line}:${column})`)
    expect(await page.locator('#summary').textContent()).toContain(`at DemoToken.sol:${line}`)
    const internal = page.locator('#tree [role=treeitem].internal')
    expect(await internal.getAttribute('class')).toContain('failed')
    expect(await internal.locator(':scope > .row').textContent()).toContain(`_move(from: 0x3c44…93bc, to: 0xf39f…2266, value: ${TOO_MUCH})`)
    expect(await internal.locator(':scope > .row .revert').textContent()).toContain('reverted')
    // the root is selected: its detail shows the file, line, column and the line's text
    const figure = page.locator('#detail figure.source')
    expect(await figure.locator('figcaption').textContent()).toContain(`DemoToken.sol:${line}:${column}`)
    expect(await figure.locator('pre').textContent()).toContain(text.trim())
    await page.screenshot({ path: join(artifacts, 'sources-revert.png'), fullPage: true })
    expect(errors).toEqual([])
    expect(foreign).toEqual([])
    await page.close()
  })

  it('the gas view draws the profile as a flame chart that zooms on a click, lists the costliest lines and downloads the speedscope document; storage changes read by variable', async () => {
    const errors: string[] = []
    const page = await openViewerPage(context, app.url, testToken, errors)
    await page.getByRole('textbox', { name: 'Transaction hash' }).fill(DEMO_TRANSFER_TX)
    await traceInViewer(page)
    // one request: the gas profile rides with the other tracers
    expect(asked.at(-1)?.tracerConfig).toMatchObject({ callTree: { internal: true }, prestateTracer: { diffMode: true }, gasProfile: true })
    const answer = (
      await (
        await app.fetch('/v1/trace/tx', post({ transactionHash: DEMO_TRANSFER_TX, tracerConfig: { gasProfile: true, prestateTracer: { diffMode: true } } }))
      ).json()
    ).data
    const profile = answer.gasProfile as {
      functions: { contract: string; function: string; selfGas: number; totalGas: number }[]
      lines: { file: string; line: number; gas: number }[]
    }
    const fn = (name: string) => profile.functions.find((f) => f.function === name)!

    const chart = page.locator('#gas .flame')
    const transfer = chart.locator('.bar[data-name="DemoToken::transfer"]')
    const move = chart.locator('.bar[data-name="DemoToken::_move"]')
    await expect.poll(() => transfer.count()).toBe(1)
    expect(await move.count()).toBe(1)
    // hover: the function's self and total gas, as the profile has them
    const title = (await move.getAttribute('title'))!
    expect(title).toContain(`self ${grouped(BigInt(fn('_move').selfGas))} gas`)
    expect(title).toContain(`total ${grouped(BigInt(fn('_move').totalGas))} gas`)
    await move.hover()
    const chartBox = (await chart.boundingBox())!
    const before = (await move.boundingBox())!
    // _move spends part of transfer's gas: narrower than the chart, as wide as its share of the top
    expect(before.width).toBeLessThan(chartBox.width - 2)
    expect(before.width / chartBox.width).toBeCloseTo(fn('_move').totalGas / fn('transfer').totalGas, 1)
    await page.locator('#gas').screenshot({ path: join(artifacts, 'gas-profile.png') })
    await move.click()
    await expect.poll(async () => (await move.boundingBox())!.width).toBeCloseTo(chartBox.width, 0)
    await page.locator('#gas').screenshot({ path: join(artifacts, 'gas-profile-zoomed.png') })
    // the top bar zooms back out
    await chart.locator('.bar.root').click()
    await expect.poll(async () => (await move.boundingBox())!.width).toBeCloseTo(before.width, 0)
    // the keyboard reaches the bars: Enter on a focused bar zooms on it
    await move.focus()
    await page.keyboard.press('Enter')
    await expect.poll(async () => (await move.boundingBox())!.width).toBeCloseTo(chartBox.width, 0)

    // the costliest lines, costliest first: a DemoToken.sol line on top, as the profile has it
    const top = [...profile.lines].sort((a, b) => b.gas - a.gas)[0]!
    const firstRow = page.locator('#gas table.gas-lines tbody tr').first()
    expect(await firstRow.textContent()).toContain(`DemoToken.sol:${top.line}${grouped(BigInt(top.gas))}`)
    expect(await page.locator('#gas table.gas-lines tbody tr').count()).toBe(Math.min(20, profile.lines.length))

    // the speedscope document, downloaded as a .json file
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download speedscope JSON' }).click()])
    expect(download.suggestedFilename()).toMatch(/\.json$/)
    const saved = JSON.parse(readFileSync((await download.path())!, 'utf8'))
    expect(saved.$schema).toBe('https://www.speedscope.app/file-format-schema.json')
    expect(saved.shared.frames.map((f: { name: string }) => f.name)).toContain('DemoToken::_move')

    // storage: the token's balances by variable, decoded, the raw slot on a second line
    const decoded = answer.prestateTracer.decoded[DEMO_TOKEN] as { variable: string; slots: string[]; before: string; after: string }[]
    const sender = decoded.find((d) => d.variable.toLowerCase() === `balanceof[${ACCOUNT0}]`)!
    expect(sender).toBeDefined()
    const row = page.locator('#state tr.decoded', { hasText: sender.variable })
    await expect.poll(() => row.count()).toBe(1)
    const text = (await row.textContent())!
    expect(text).toContain(grouped(BigInt(sender.before)))
    expect(text).toContain(grouped(BigInt(sender.after)))
    expect(text).toContain(`-${grouped(BigInt(sender.before) - BigInt(sender.after))}`)
    expect(await row.locator('td').first().getAttribute('title')).toContain(sender.slots[0])
    // the slots a variable explains are not listed again raw
    expect(await page.locator('#state td.mono', { hasText: /^slot / }).count()).toBe(0)
    await page.locator('#state').screenshot({ path: join(artifacts, 'storage-by-variable.png') })
    expect(errors).toEqual([])
    expect(foreign).toEqual([])
    await page.close()
  })

  it('overrides by name from the overrides box: a balance set as balanceOf[…] lets an empty account transfer, its change read by variable', async () => {
    const errors: string[] = []
    const page = await openViewerPage(context, app.url, testToken, errors)
    await fillViewerCall(page, { from: ACCOUNT2, to: DEMO_TOKEN, fn: 'transfer(address,uint256)', args: [ACCOUNT0, '1000'] })
    await page.locator('summary', { hasText: 'State overrides' }).click()
    const overrides = { [DEMO_TOKEN]: { variables: { [`balanceOf[${ACCOUNT2}]`]: '5000' } } }
    await page.getByRole('textbox', { name: /^State overrides/ }).fill(JSON.stringify(overrides))
    await traceInViewer(page)
    expect((asked.at(-1) as { stateOverrides?: unknown }).stateOverrides).toEqual(overrides)
    expect(await page.locator('#summary').textContent()).toContain('success')
    const row = page.locator('#state tr.decoded', { hasText: new RegExp(`balanceOf\\[${ACCOUNT2}\\]`, 'i') })
    await expect.poll(() => row.count()).toBe(1)
    expect((await row.textContent())!.replace(/\s+/g, ' ')).toMatch(/5,000.*4,000.*-1,000/)
    expect(errors).toEqual([])
    expect(foreign).toEqual([])
    await page.close()
  })

  it('a call into code no source is known for, the verified-sources service unreachable: the trace answers and the page lists its warning', async () => {
    const errors: string[] = []
    const page = await openViewerPage(context, app.url, testToken, errors)
    const unknown = '0x00000000000000000000000000000000000c0de1'
    await page.getByRole('radio', { name: 'Call' }).check()
    await page.getByRole('textbox', { name: 'From' }).fill(ACCOUNT0)
    await page.getByRole('textbox', { name: 'To', exact: true }).fill(unknown)
    await page.locator('summary', { hasText: 'State overrides' }).click()
    // PUSH1 1, PUSH1 0, SSTORE, STOP: code that runs and is no registered contract
    await page.getByRole('textbox', { name: /^State overrides/ }).fill(JSON.stringify({ [unknown]: { code: '0x600160005500' } }))
    await traceInViewer(page)
    const warnings = page.locator('#warnings li')
    await expect.poll(() => warnings.count()).toBe(1)
    expect(await warnings.textContent()).toMatch(/^warning sources: .*traced without its verified sources/)
    expect(await page.locator('#summary').textContent()).toContain('success')
    expect(await page.locator('#tree > [role=treeitem] .contract').count()).toBe(0)
    await page.screenshot({ path: join(artifacts, 'sources-warning.png') })
    expect(errors).toEqual([])
    expect(foreign).toEqual([])
    await page.close()
  })
})
