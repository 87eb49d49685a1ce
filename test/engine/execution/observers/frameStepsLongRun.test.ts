/**
 * A page of a million-step frame keeps only the page: the source-known Solidity loop of about a
 * million steps (test/support/millionStepLoop.ts) paged from its middle, the heap in use during the
 * run — sampled by a tracer beside it every 50,000 steps — stays within a bound the frame's steps
 * would pass; the page is the asked one, its steps placed in `loop` and `_step` by the source map.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { frameStepsReport } from '../../../../engine/decoding/frameSteps/index.js'
import { createFrameSteps } from '../../../../engine/execution/observers/frameSteps.js'
import { createMillionStepLoop, heapSampler } from '../../../support/millionStepLoop.js'

let loop: Awaited<ReturnType<typeof createMillionStepLoop>>

beforeAll(async () => {
  loop = await createMillionStepLoop()
})
afterAll(() => loop?.close())

describe('frame steps of a million-step frame', () => {
  it('keep the page only: bounded heap, the asked steps with their lines and functions', async () => {
    const config = { frame: [], fromStep: 500_000, maxSteps: 4096 }
    await loop.run([createFrameSteps(config, { sources: loop.sources })])
    const observer = createFrameSteps(config, { sources: loop.sources })
    const sampler = heapSampler(50_000)
    const before = process.memoryUsage().heapUsed
    await loop.run([observer, sampler.tracer])
    const page = frameStepsReport(observer.result(), config)

    expect(page.totalSteps).toBeGreaterThan(1_000_000)
    // a million kept steps of even 32 bytes each would pass this bound
    expect(sampler.s.peak - before).toBeLessThan(24 * 2 ** 20)
    expect(page.steps.map((s) => s.step)).toEqual(Array.from({ length: 4096 }, (_, i) => 500_000 + i))
    expect(page.nextStep).toBe(500_000 + 4096)
    expect(new Set(page.steps.map((s) => s.function))).toEqual(new Set(['L.loop', 'L._step']))
    const inStep = page.steps.filter((s) => s.function === 'L._step' && s.source)
    expect(inStep.length).toBeGreaterThan(0)
    expect(new Set(inStep.map((s) => s.source!.line))).toEqual(new Set([11]))
    expect(page.steps.some((s) => s.op === 'SSTORE' && Object.keys(s.storage).length === 4)).toBe(true)
  }, 60_000)
})
