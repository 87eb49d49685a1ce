/**
 * Tracer `frameSteps` on the engine's trace service (in-process devnet): a page of a frame's steps
 * is the struct logger's steps of that frame in the same run — the top frame's and a nested one's,
 * a page across the step that opens a child (marked with the child's index), the last page ending
 * with `nextStep` null, a creation and the contract it creates; with the demo contracts'
 * build-info registered, the demo transfer's steps carry the line of DemoToken.sol they run and
 * the function (`DemoToken._move` inside the transfer), and the files come with their text; a
 * frame or step that is not there is a VALIDATION_ERROR naming the field.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { encodeFunctionData, type Abi, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDevnet, type Devnet } from '../../../../engine/chains/devnet/devnetChain.js'
import type { FrameSteps } from '../../../../engine/decoding/frameSteps/index.js'
import { createTraceService } from '../../../../engine/operations/trace/traceService.js'
import { createSourceRegistry } from '../../../../engine/sources/registry.js'
import type { TracerConfig } from '../../../../engine/types.js'
import { createMemoryCacheStore } from '../../../../host/cache/memoryCacheStore.js'
import type { StructLog } from '../../../../tracers/structLogger.js'
import { compileStandard, type StandardJsonPair } from '../../../support/solcStandard.js'
import { FROM, HELPER, PROFILED, PROFILED_SOURCES, traceProfiled } from './gasProfileFixture.js'

/** the devnet's demo DEMO transfer (test/browser/sourcesViewer.test.ts) */
const DEMO_TRANSFER_TX: Hex = '0x8849d23607d7c87b58414fda583340f2c2b6393f2461223972e42e81c7fda23b'

let devnet: Devnet
let pair: StandardJsonPair
const artifact = (name: string) => pair.output.contracts['src/Profiled.sol']![name]
const run = (n: bigint) => encodeFunctionData({ abi: artifact('Profiled').abi as Abi, functionName: 'run', args: [n] })

beforeAll(async () => {
  devnet = await createDevnet()
  pair = compileStandard(PROFILED_SOURCES)
})
afterAll(() => devnet?.close())

async function service(register?: unknown) {
  const sources = createSourceRegistry({ cache: createMemoryCacheStore(), maxBytes: 2 ** 24 })
  if (register) await sources.register(register as StandardJsonPair)
  return createTraceService(devnet, { gasCap: 50_000_000n, maxStructLogSteps: 1_000_000, sources })
}

async function traceRun(tracerConfig: TracerConfig) {
  const result = await traceProfiled(devnet, pair, run(6n), tracerConfig, false)
  return result as { frameSteps: FrameSteps; structLogger: { structLogs: StructLog[] } }
}

/** the struct log's steps of each frame that ran code, by its path (`0` the top, `0/0` its first child) */
function framesOf(logs: StructLog[]): Map<string, StructLog[]> {
  const frames = new Map<string, StructLog[]>([['', []]])
  const stack: { path: string; calls: number }[] = [{ path: '', calls: 0 }]
  for (const log of logs) {
    while (log.depth < stack.length) stack.pop()
    if (log.depth > stack.length) {
      const parent = stack[stack.length - 1]!
      const path = `${parent.path}/${parent.calls++}`
      stack.push({ path, calls: 0 })
      frames.set(path, [])
    }
    frames.get(stack[stack.length - 1]!.path)!.push(log)
  }
  return frames
}

/** a page's steps against the struct log's: the same values; storage where the struct log prints it, else as at the step before */
function expectSameSteps(page: FrameSteps, logs: StructLog[]) {
  expect(page.steps.length).toBeGreaterThan(0)
  let storage: Record<string, string> | undefined
  page.steps.forEach((s, i) => {
    const log = logs[page.fromStep + i]!
    expect(s.step).toBe(page.fromStep + i)
    const values = (l: Pick<StructLog, 'pc' | 'op' | 'gas' | 'gasCost' | 'stack' | 'memory' | 'error'>) => [
      l.pc,
      l.op,
      l.gas,
      l.gasCost,
      l.stack,
      l.memory ?? [],
      l.error,
    ]
    expect(values(s)).toEqual(values(log))
    expect(log.depth).toBe(page.frame.depth)
    if (log.storage) expect(s.storage).toEqual(log.storage)
    else if (storage) expect(s.storage).toEqual(storage)
    storage = s.storage
  })
}

describe('frameSteps', () => {
  it('the top frame, page by page: each page is the struct log of that frame, the call step names its child, the last page ends', async () => {
    const whole = await traceRun({ structLogger: {}, callTracer: {}, frameSteps: { frame: [], maxSteps: 4096 } })
    const top = framesOf(whole.structLogger.structLogs).get('')!
    expect(whole.frameSteps.totalSteps).toBe(top.length)
    expect(whole.frameSteps.nextStep).toBeNull()
    expectSameSteps(whole.frameSteps, top)
    expect(whole.frameSteps.frame).toMatchObject({ path: [], type: 'CALL', address: PROFILED, depth: 1 })
    expect(whole.frameSteps.frame.contract).toBeUndefined()
    expect(whole.frameSteps.steps.some((s) => s.op === 'SSTORE' && Object.keys(s.storage).length > 0)).toBe(true)

    // a page across the STATICCALL to the helper: the step that opens it carries the child's index
    const call = top.findIndex((l) => l.op === 'STATICCALL')
    expect(call).toBeGreaterThan(0)
    const across = (await traceRun({ structLogger: {}, frameSteps: { frame: [], fromStep: call - 2, maxSteps: 5 } })).frameSteps
    expectSameSteps(across, top)
    expect(across.totalSteps).toBe(top.length)
    expect(across.steps.map((s) => s.child)).toEqual([undefined, undefined, 0, undefined, undefined])
    expect(across.nextStep).toBe(call + 3)
    expect(across.steps.every((s) => s.source === undefined && s.function === undefined)).toBe(true)

    const last = (await traceRun({ frameSteps: { frame: [], fromStep: top.length - 3, maxSteps: 10 } })).frameSteps
    expectSameSteps(last, top)
    expect(last.steps.length).toBe(3)
    expect(last.nextStep).toBeNull()
  })

  it('a nested frame: its own steps only, at its depth, equal to the struct log of that frame', async () => {
    const r = await traceRun({ structLogger: {}, frameSteps: { frame: [0], maxSteps: 4096 } })
    const child = framesOf(r.structLogger.structLogs).get('/0')!
    expect(r.frameSteps.frame).toMatchObject({ path: [0], type: 'STATICCALL', address: HELPER, depth: 2 })
    expect(r.frameSteps.totalSteps).toBe(child.length)
    expectSameSteps(r.frameSteps, child)
    const paged = (await traceRun({ structLogger: {}, frameSteps: { frame: [0], fromStep: 10, maxSteps: 7 } })).frameSteps
    expectSameSteps(paged, child)
    expect(paged.nextStep).toBe(17)
    expect(paged.totalSteps).toBe(child.length)
  })

  it('a frame or step that is not there: VALIDATION_ERROR naming the field', async () => {
    const failure = (config: TracerConfig) =>
      traceRun(config).then(
        () => undefined,
        (e: { code: string; message: string; details: unknown }) => e,
      )
    const none = await failure({ frameSteps: { frame: [3] } })
    expect(none).toMatchObject({ code: 'VALIDATION_ERROR', details: { issues: [{ path: 'tracerConfig.frameSteps.frame' }] } })
    expect(none?.message).toContain('frame [] made 1 call')
    const deeper = await failure({ frameSteps: { frame: [0, 0] } })
    expect(deeper?.message).toContain('frame [0] made 0 calls')
    const past = await failure({ frameSteps: { frame: [0], fromStep: 100_000 } })
    expect(past).toMatchObject({ code: 'VALIDATION_ERROR', details: { issues: [{ path: 'tracerConfig.frameSteps.fromStep' }] } })
    // a call to an account without code: its frame is there, and ran no step
    const plain = (await service()).traceCall({
      call: { from: FROM, to: '0x00000000000000000000000000000000000e0a00', data: '0x' },
      block: { tag: 'latest' },
      tracerConfig: { frameSteps: { frame: [] } },
    })
    const noCode = await plain.then(
      () => undefined,
      (e: { code: string; message: string }) => e,
    )
    expect(noCode).toMatchObject({ code: 'VALIDATION_ERROR', details: { issues: [{ path: 'tracerConfig.frameSteps.frame' }] } })
    expect(noCode?.message).toContain('ran no code')
  })
})

describe('frameSteps with the contracts’ sources', () => {
  it('a creation: the constructor, then the contract it creates, each named by its sources and equal to the struct log', async () => {
    const traces = await service(pair)
    const deploy = (tracerConfig: TracerConfig) =>
      traces.traceCall({ call: { from: FROM, data: `0x${artifact('Profiled').evm.bytecode.object}` }, block: { tag: 'latest' }, tracerConfig }) as Promise<{
        frameSteps: FrameSteps
        structLogger: { structLogs: StructLog[] }
      }>
    const top = await deploy({ structLogger: {}, frameSteps: { frame: [], maxSteps: 4096 } })
    const frames = framesOf(top.structLogger.structLogs)
    expect(top.frameSteps.frame).toMatchObject({ type: 'CREATE', contract: { name: 'Profiled' } })
    expectSameSteps(top.frameSteps, frames.get('')!)
    expect(new Set(top.frameSteps.steps.map((s) => s.function))).toEqual(new Set(['Profiled.constructor']))
    expect(top.frameSteps.steps.find((s) => s.op === 'CREATE')?.child).toBe(0)
    const created = (await deploy({ frameSteps: { frame: [0], maxSteps: 4096 } })).frameSteps
    expect(created.frame).toMatchObject({ type: 'CREATE', depth: 2, contract: { name: 'Helper' } })
    expectSameSteps(created, frames.get('/0')!)
    expect(created.steps.some((s) => s.source && s.function === 'Helper.constructor')).toBe(true)
  })

  it('functionDepth counts the internal calls open at each step: a recursion of 25 calls of _fib, six deep', async () => {
    const r = (await traceProfiled(devnet, pair, run(6n), { frameSteps: { frame: [], maxSteps: 4096 } }, true)) as { frameSteps: FrameSteps }
    const steps = r.frameSteps.steps.filter((s) => s.source)
    for (const s of steps) expect(s.functionDepth! > 0, `${s.function} at step ${s.step}`).toBe(s.function === 'Profiled._fib')
    // fib(6) calls itself down to fib(1): six open at once at the deepest
    expect(Math.max(...steps.map((s) => s.functionDepth!))).toBe(6)
    // each call is one step up in depth: fib(6) makes 25 calls of _fib in all
    let entered = 0
    for (let i = 1; i < steps.length; i++) if (steps[i]!.functionDepth! > steps[i - 1]!.functionDepth!) entered++
    expect(entered).toBe(25)
  })

  it('the demo transfer: each step’s line and function, _move inside transfer, the files with their text', async () => {
    const buildInfo = JSON.parse(readFileSync(join(process.cwd(), 'scripts/demo-contracts/build-info.json'), 'utf8'))
    const traces = await service(buildInfo)
    const r = (await traces.traceTransaction(DEMO_TRANSFER_TX, { structLogger: {}, frameSteps: { frame: [], maxSteps: 4096, withFiles: true } })) as {
      frameSteps: FrameSteps
      structLogger: { structLogs: StructLog[] }
    }
    const page = r.frameSteps
    expectSameSteps(page, r.structLogger.structLogs)
    expect(page.frame.contract?.name).toBe('DemoToken')
    const file = page.files!.find((f) => f.path === page.frame.contract!.file)!
    expect(file.content).toContain('contract DemoToken')
    const lines = file.content!.split('\n')
    const text = (s: FrameSteps['steps'][number]) => lines[s.source!.line - 1]!
    // the write of the sender's balance: an SSTORE on the line that says so, inside _move, called from transfer
    const stores = page.steps.filter((s) => s.op === 'SSTORE')
    expect(stores.length).toBe(2)
    expect(text(stores[0]!)).toContain('balanceOf[from] = bal - value')
    expect(text(stores[1]!)).toContain('balanceOf[to] += value')
    expect(stores.map((s) => s.function)).toEqual(['DemoToken._move', 'DemoToken._move'])
    expect(stores.map((s) => s.functionDepth)).toEqual([1, 1])
    expect(stores[0]!.source!.column).toBeGreaterThan(1)
    const fns = new Set(page.steps.map((s) => s.function))
    expect(fns).toEqual(new Set(['DemoToken.transfer', 'DemoToken._move']))
    // compiler-generated code has no line; every other step's line is in the file
    expect(page.steps.some((s) => s.source === null)).toBe(true)
    for (const s of page.steps) if (s.source) expect(s.source.line).toBeLessThanOrEqual(lines.length)
    const event = page.steps.find((s) => s.op === 'LOG3')!
    expect(text(event)).toContain('emit Transfer(from, to, value)')
  })
})
