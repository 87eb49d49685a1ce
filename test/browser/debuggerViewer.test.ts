/**
 * The trace viewer's source pane and debugger in chromium, over the embedded devnet with the demo
 * contracts' build-info registered: a DemoToken transfer of more than the sender holds reverts
 * inside the internal `_move`. The source pane shows DemoToken.sol whole with the revert line
 * marked; the debugger steps it by source line from its first line into `_move` and to the revert,
 * each step's opcode, stack and storage those of the struct log of the same call; "run to the
 * revert" asks for the first and the last page of steps only; stepping out of `_move` in a
 * transfer that succeeds comes back to `transfer` and "previous line" to the call, and `_move`
 * selected in the tree opens at its own first line. Step into the nested swap's call of its router
 * (sources registered) shows the router's steps, and step out returns after the call. The flame
 * chart's widest bars are the costliest functions of the gas profile. Screenshots go to
 * test-results/trace-viewer/ (gitignored; docs/trace-viewer-debugger.png and
 * docs/trace-viewer-source.png are copies).
 */
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { encodeFunctionData, type Abi } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Engine } from '../../engine/types.js'
import { post, testToken, type TestApp } from '../src/support/startTestApp.js'
import { startDemoSourcesApp } from '../support/demoSourcesApp.js'
import { keepRequestsLocal, launchHeadlessChromium, requireChromium, type HeadlessChromium } from '../support/chromium.js'
import { compileStandard } from '../support/solcStandard.js'
import { fillViewerCall, openViewerPage, traceInViewer } from '../support/viewerPage.js'
import { SWAP_SOURCES } from './scenarios.js'

const haveChromium = requireChromium('debugger viewer')

const DEMO_TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
const DEMO_TRANSFER_TX = '0x8849d23607d7c87b58414fda583340f2c2b6393f2461223972e42e81c7fda23b'
const ACCOUNT0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const ACCOUNT2 = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc'
/** where a state override places the nested swap's Scenario */
const SCENARIO = '0x00000000000000000000000000000000005ce4a1'
/** more DEMO than was ever minted: a transfer of it reverts inside _move */
const TOO_MUCH = (10n ** 40n).toString()
/** the debugger's page of steps in these tests: small, so the demo's frame spans several pages */
const PAGE = 64
const artifacts = join(process.cwd(), 'test-results', 'trace-viewer')
const SOURCE = readFileSync(join(process.cwd(), 'scripts/demo-contracts/DemoToken.sol'), 'utf8').split('\n')
/** the 1-based line of DemoToken.sol that holds `text` */
const lineOf = (text: string) => SOURCE.findIndex((l) => l.includes(text)) + 1

interface StructLog {
  pc: number
  op: string
  depth: number
  stack: string[]
  storage?: Record<string, string>
}
/** what the debugger shows of its current step */
interface Shown {
  step: number
  line: number | undefined
  op: string
  stack: string[]
  storage: Record<string, string>
}

/** the debugger's current step, read from the page */
async function shown(page: Page): Promise<Shown> {
  const dbg = page.locator('#debugger-body')
  const current = await page
    .locator('#source-pane li.current-line')
    .getAttribute('data-line', { timeout: 1000 })
    .catch(() => null)
  const rows = await dbg.locator('table.storage tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.children[0]!.textContent!, tr.children[1]!.textContent!]))
  return {
    step: Number(await dbg.getAttribute('data-step')),
    line: current === null ? undefined : Number(current),
    op: (await dbg.locator('.op').textContent())!,
    stack: await dbg.locator('ol.stack li').allTextContents(),
    storage: Object.fromEntries(rows),
  }
}

/** a key pressed in the debugger, its next step awaited (the same step when the move goes nowhere) */
async function press(page: Page, key: string): Promise<Shown> {
  const dbg = page.locator('#debugger-body')
  await dbg.focus()
  await page.keyboard.press(key)
  // a move disables the buttons until its step is shown
  await expect.poll(() => dbg.locator('button[data-move=next]').isEnabled(), { timeout: 30_000 }).toBe(true)
  return shown(page)
}

/**
 * The step as the struct log of the same call has it: its opcode and stack (the debugger lists the
 * top first), and the storage touched so far, which the struct log prints on SLOAD and SSTORE
 * steps only: the last such step's at or before it (`withStorage`: the frame is the transaction's
 * only one, so no other frame touched its contract's storage before).
 */
function expectLikeStructLog(seen: Shown, own: StructLog[], withStorage = true) {
  const log = own[seen.step]!
  expect(seen.op).toBe(log.op)
  expect(seen.stack).toEqual([...log.stack].reverse())
  if (!withStorage) return
  const last = own.slice(0, seen.step + 1).findLast((l) => l.storage !== undefined)
  expect(seen.storage).toEqual(last?.storage ?? {})
}

describe.runIf(haveChromium)('the trace viewer’s source pane and debugger, in chromium', () => {
  let engine: Engine
  let app: TestApp
  let context: BrowserContext
  let browser: HeadlessChromium | undefined
  const foreign: string[] = []
  /** the frameSteps configuration of every trace the page asked for, with its authorization */
  const stepRequests: { frameSteps: { frame: number[]; fromStep: number; maxSteps: number; withFiles: boolean }; authorization?: string }[] = []
  const asked: { call?: unknown }[] = []

  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true })
    // the debugger asks a request per page of steps: room for every test's pages
    ;({ engine, app } = await startDemoSourcesApp({ RATE_LIMIT_REQUESTS: '10000' }))
    browser = await launchHeadlessChromium({ viewport: { width: 1280, height: 1000 } })
    context = browser.context
    await keepRequestsLocal(context, foreign, (request, url) => {
      if (!url.pathname.startsWith('/v1/trace/')) return
      const body = request.postDataJSON()
      if (body.tracerConfig?.frameSteps) stepRequests.push({ frameSteps: body.tracerConfig.frameSteps, authorization: request.headers().authorization })
      else asked.push(body)
    })
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await app?.close()
    await engine?.close()
  })

  /** the failing transfer traced in a fresh page; the service's own answers for the same call */
  async function traceFailingTransfer(errors: string[]) {
    const page = await openViewerPage(context, app.url, testToken, errors, `/v1/ui?stepPage=${PAGE}`)
    await fillViewerCall(page, { from: ACCOUNT2, to: DEMO_TOKEN, fn: 'transfer(address,uint256)', args: [ACCOUNT0, TOO_MUCH] })
    stepRequests.length = 0
    await traceInViewer(page)
    const tracerConfig = { callTree: { internal: true }, structLogger: true, gasProfile: true }
    const data = (await (await app.fetch('/v1/trace/call', post({ call: asked.at(-1)?.call, tracerConfig }))).json()).data
    // the top frame calls no other contract: its own steps are the struct log's steps at depth 1
    const own = (data.structLogger.structLogs as StructLog[]).filter((l) => l.depth === 1)
    expect(data.callTree.calls.every((c: { type: string }) => c.type === 'INTERNAL')).toBe(true)
    await expect.poll(() => page.locator('#debugger-body').getAttribute('data-step'), { timeout: 30_000 }).not.toBeNull()
    return { page, data, own }
  }

  it('a failing transfer: the source pane shows DemoToken.sol with the revert line; the debugger runs to the revert asking for the first and the last page only', async () => {
    const errors: string[] = []
    const { page, data, own } = await traceFailingTransfer(errors)
    const revertLine: number = data.callTree.source.line

    const pane = page.locator('#source-pane')
    const files = pane.getByRole('combobox', { name: 'Source file' })
    expect(await files.locator('option').allTextContents()).toContain('DemoToken.sol')
    expect(await pane.locator('li.revert-line').getAttribute('data-line')).toBe(String(revertLine))
    expect(await pane.locator('li.revert-line code').textContent()).toBe(SOURCE[revertLine - 1])
    // the whole file, each line once
    expect(await pane.locator('ol.code > li').count()).toBe(SOURCE.length)
    expect(await pane.locator('.marks').textContent()).toContain(`reverted at DemoToken.sol:${revertLine}:${data.callTree.source.column}`)

    // the first page came with the files, for the top frame, with the page's token
    expect(stepRequests[0]).toEqual({ frameSteps: { frame: [], fromStep: 0, maxSteps: PAGE, withFiles: true }, authorization: `Bearer ${testToken}` })
    const status = page.locator('#debugger-body .dbg-state')
    expect(await status.textContent()).toContain(`of ${own.length}`)
    const last = own.length - 1
    expect(last).toBeGreaterThanOrEqual(2 * PAGE) // three pages at least: one is skipped below

    await page.getByRole('button', { name: 'Run to the revert' }).click()
    await expect.poll(() => page.locator('#debugger-body').getAttribute('data-step')).toBe(String(last))
    const end = await shown(page)
    expectLikeStructLog(end, own)
    expect(end.op).toBe('REVERT')
    expect(end.line).toBe(revertLine)
    // the page of the revert and nothing between
    const lastPage = Math.floor(last / PAGE) * PAGE
    expect(stepRequests.map((r) => r.frameSteps.fromStep)).toEqual([0, lastPage])
    expect(stepRequests.every((r) => r.frameSteps.maxSteps === PAGE && r.authorization === `Bearer ${testToken}`)).toBe(true)
    await page
      .locator('.debug-split > section')
      .first()
      .screenshot({ path: join(artifacts, 'source-pane.png') })
    expect(errors).toEqual([])
    expect(foreign).toEqual([])
    await page.close()
  })

  it('the debugger steps a failing transfer by line from its first line into _move and to the revert, each step’s stack and storage the struct log’s', async () => {
    const errors: string[] = []
    const { page, data, own } = await traceFailingTransfer(errors)
    const first = await shown(page)
    // the first step with a line: every step before it has none
    expect(first.line).toBeDefined()
    expectLikeStructLog(first, own)

    // next line until the call of _move; step into it; next line until the frame's end
    const visited = [first]
    const call = lineOf('_move(msg.sender, to, value);')
    for (let i = 0; i < 20 && visited.at(-1)!.line !== call; i++) visited.push(await press(page, 'ArrowDown'))
    expect(visited.at(-1)!.line).toBe(call)
    const into = await press(page, 'ArrowRight')
    expect(await page.locator('#debugger-body .step-facts').textContent()).toContain('DemoToken._move')
    visited.push(into)
    for (let i = 0; i < 20 && visited.at(-1)!.step !== own.length - 1; i++) visited.push(await press(page, 'ArrowDown'))
    const end = visited.at(-1)!
    expect(end.step).toBe(own.length - 1)
    expect(end.op).toBe('REVERT')
    expect(end.line).toBe(data.callTree.source.line)

    // forwards only, each move to another line; through _move's lines that ran
    const steps = visited.map((v) => v.step)
    expect(steps).toEqual([...steps].sort((a, b) => a - b))
    expect(new Set(steps).size).toBe(steps.length)
    const lines = visited.map((v) => v.line)
    expect(lines).toContain(lineOf('function transfer('))
    expect(lines).toContain(lineOf('uint256 bal = balanceOf[from];'))
    expect(lines).toContain(lineOf('if (bal < value) revert'))
    // every step shown is the struct log's: opcode, stack, storage; the sender's balance was read on the way
    for (const v of visited) expectLikeStructLog(v, own)
    const withStorage = visited.find((v) => Object.keys(v.storage).length > 0)
    expect(withStorage).toBeDefined()

    // back to the step that read the balance: previous line from the revert
    const back = await press(page, 'ArrowUp')
    expect(back.step).toBeLessThan(end.step)
    expect(visited.map((v) => v.step)).toContain(back.step)
    expectLikeStructLog(back, own)
    // the screenshot where the storage shows what _move read
    const reading = visited.indexOf(withStorage!)
    await press(page, 'Home')
    for (let i = 0; i < 40 && (await shown(page)).step < visited[reading]!.step; i++)
      await press(page, (await shown(page)).line === call ? 'ArrowRight' : 'ArrowDown')
    expect((await shown(page)).step).toBe(visited[reading]!.step)
    await page.locator('#debugger-body').blur()
    await page.locator('.debug-split').screenshot({ path: join(artifacts, 'debugger.png') })

    // the flame chart: the widest bar under `all` is the costliest function, the widest under it the next
    const fns = [...(data.gasProfile.functions as { contract: string; function: string; totalGas: number }[])].sort((a, b) => b.totalGas - a.totalGas)
    const widest = async (top: number) =>
      page
        .locator(`#gas .flame .bar[style*="top:${top}px"], #gas .flame .bar[style*="top: ${top}px"]`)
        .evaluateAll((bars) => bars.sort((a, b) => b.getBoundingClientRect().width - a.getBoundingClientRect().width).map((b) => b.getAttribute('data-name')))
    expect((await widest(22))[0]).toBe(`${fns[0]!.contract}::${fns[0]!.function}`)
    expect((await widest(44))[0]).toBe(`${fns[1]!.contract}::${fns[1]!.function}`)
    expect(errors).toEqual([])
    expect(foreign).toEqual([])
    await page.close()
  })

  it('a transfer that succeeds: step out of _move comes back to transfer, previous line to the call; _move selected in the tree opens at its first line', async () => {
    const errors: string[] = []
    const page = await openViewerPage(context, app.url, testToken, errors, `/v1/ui?stepPage=${PAGE}`)
    await page.getByRole('textbox', { name: 'Transaction hash' }).fill(DEMO_TRANSFER_TX)
    await traceInViewer(page)
    await expect.poll(() => page.locator('#debugger-body').getAttribute('data-step'), { timeout: 30_000 }).not.toBeNull()
    expect(await page.getByRole('button', { name: 'Run to the end' }).count()).toBe(1)
    expect(await page.locator('#source-pane li.revert-line').count()).toBe(0)
    const call = lineOf('_move(msg.sender, to, value);')
    let at = await shown(page)
    for (let i = 0; i < 20 && at.line !== call; i++) at = await press(page, 'ArrowDown')
    expect(at.line).toBe(call)
    const into = await press(page, 'ArrowRight')
    expect(into.line).toBeGreaterThanOrEqual(lineOf('function _move('))
    const out = await press(page, 'ArrowLeft')
    expect(out.step).toBeGreaterThan(into.step)
    expect(await page.locator('#debugger-body .step-facts').textContent()).toContain('DemoToken.transfer')
    expect(out.line).toBeGreaterThanOrEqual(call)
    expect(out.line).toBeLessThan(lineOf('function approve('))
    const back = await press(page, 'ArrowUp')
    expect(back.step).toBeLessThanOrEqual(at.step)

    // the internal _move selected in the tree: the debugger opens its frame at _move's own first line
    await page.locator('#tree [role=treeitem].internal > .row').click()
    await expect.poll(async () => (await shown(page)).step, { timeout: 30_000 }).toBe(into.step)
    expect((await shown(page)).line).toBe(into.line)
    expect(await page.locator('#debugger-body .step-facts').textContent()).toContain('DemoToken._move')
    expect(errors).toEqual([])
    expect(foreign).toEqual([])
    await page.close()
  })

  it('step into a call to another contract shows the child frame’s steps, the struct log’s; step out comes back after the call', async () => {
    // the nested swap with its sources registered: Scenario.run() calls the Router it deployed
    const compiled = compileStandard(SWAP_SOURCES)
    expect((await app.fetch('/v1/sources', post({ buildInfo: compiled }))).status).toBe(201)
    const scenario = compiled.output.contracts['Swap.sol']!.Scenario as { abi: Abi; evm: { deployedBytecode: { object: string } } }
    const text = SWAP_SOURCES['Swap.sol'].split('\n')
    const swapLine = text.findIndex((l) => l.includes('router.swapExactTokensForTokens(')) + 1
    const errors: string[] = []
    const page = await openViewerPage(context, app.url, testToken, errors, `/v1/ui?stepPage=${PAGE}`)
    await page.getByRole('radio', { name: 'Call' }).check()
    await page.getByRole('textbox', { name: 'From' }).fill(ACCOUNT0)
    await page.getByRole('textbox', { name: 'To', exact: true }).fill(SCENARIO)
    await page.getByRole('textbox', { name: 'Data' }).fill(encodeFunctionData({ abi: scenario.abi, functionName: 'run', args: [10n ** 18n, 1n] }))
    await page.locator('summary', { hasText: 'State overrides' }).click()
    const code = `0x${scenario.evm.deployedBytecode.object}`
    await page.getByRole('textbox', { name: /^State overrides/ }).fill(JSON.stringify({ [SCENARIO]: { code } }))
    await traceInViewer(page)
    const dbg = page.locator('#debugger-body')
    await expect.poll(() => dbg.getAttribute('data-step'), { timeout: 30_000 }).not.toBeNull()
    expect(await page.getByRole('combobox', { name: 'Source file' }).inputValue()).toBe('Swap.sol')

    let at = await shown(page)
    for (let i = 0; i < 40 && at.line !== swapLine; i++) at = await press(page, 'ArrowDown')
    expect(at.line).toBe(swapLine)
    // step into: straight into the router, or first onto the line's step that calls it; `at` the
    // top frame's step it was entered from
    for (let i = 0; i < 5 && (await dbg.getAttribute('data-frame')) === '[]'; i++) {
      const before = await shown(page)
      if ((await press(page, 'ArrowRight')).step !== before.step) at = before
    }
    const frame = JSON.parse((await dbg.getAttribute('data-frame'))!) as number[]
    expect(frame).toHaveLength(1)
    expect(await dbg.locator('.frame-name').textContent()).toBe('Scenario::run › Router::swapExactTokensForTokens')
    const child = await shown(page)
    // the router's first line: its contract (the dispatcher), as the top frame's
    expect(child.line).toBe(text.findIndex((l) => l.includes('contract Router {')) + 1)

    // the child's own steps in the struct log: the depth-2 steps after the top frame's call step, up to its return
    const data = (
      await (
        await app.fetch('/v1/trace/call', post({ call: asked.at(-1)?.call, stateOverrides: { [SCENARIO]: { code } }, tracerConfig: { structLogger: true } }))
      ).json()
    ).data
    const logs = data.structLogger.structLogs as StructLog[]
    let topSteps = -1
    const lineAt = logs.findIndex((l) => l.depth === 1 && ++topSteps === at.step)
    // the line's call: its first step that the router's steps follow
    const callAt = logs.findIndex((l, i) => i >= lineAt && l.depth === 1 && logs[i + 1]?.depth === 2)
    const end = logs.findIndex((l, i) => i > callAt && l.depth === 1)
    const own = logs.slice(callAt + 1, end).filter((l) => l.depth === 2)
    expect(logs[callAt]!.op).toBe('CALL')
    // (the storage the router's register() wrote earlier in the transaction is not in these steps: stack and opcode)
    expectLikeStructLog(child, own, false)
    const next = await press(page, 'ArrowDown')
    expectLikeStructLog(next, own, false)

    // out of the router's function: back in run(), after the call
    const out = await press(page, 'ArrowLeft')
    expect(await dbg.getAttribute('data-frame')).toBe('[]')
    expect(out.step).toBeGreaterThan(at.step)
    expect(out.line).toBeGreaterThanOrEqual(swapLine)
    expect(errors).toEqual([])
    expect(foreign).toEqual([])
    await page.close()
  })
})
