/**
 * A gas profile of a million steps is built while the run goes, never from kept steps: a Solidity
 * loop of about a million steps (its sources known, so every line change of every turn is a
 * boundary the profiler sees) profiles into a handful of functions and lines, the heap in use
 * during the run — sampled by a tracer beside it every 50,000 steps — stays within a bound a list
 * of the steps would pass. Its time against the same run under geth's callTracer is the bench's
 * (bench/gasProfileLongRun.ts, goal ≤ 2×).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { gasProfileReport } from '../../../../engine/decoding/gasProfile/index.js'
import { createGasProfile } from '../../../../engine/execution/observers/gasProfile.js'
import type { Tracer } from '../../../../tracers/types.js'
import { createMillionStepLoop, LOOP_BODY_LINE, LOOP_TURNS } from '../../../support/millionStepLoop.js'

let loop: Awaited<ReturnType<typeof createMillionStepLoop>>

beforeAll(async () => {
  loop = await createMillionStepLoop()
})
afterAll(() => loop?.close())

/** the heap in use, read every `every` steps (and the steps counted) */
function heapSampler(every: number) {
  const s = { steps: 0, peak: 0 }
  const tracer: Tracer = {
    readsMemory: false,
    wantsStep: () => ++s.steps % every === 0,
    onOpcode: () => {
      s.peak = Math.max(s.peak, process.memoryUsage().heapUsed)
    },
    result: () => s,
  }
  return { tracer, s }
}

describe('a gas profile of a million steps', () => {
  it('is built while it runs: bounded heap, a few functions and lines', async () => {
    // one run first: the heap then holds what a first run builds once (compiled code, tables)
    await loop.run([createGasProfile({ sources: loop.sources })])
    const profile = createGasProfile({ sources: loop.sources })
    const sampler = heapSampler(50_000)
    const before = process.memoryUsage().heapUsed
    await loop.run([profile, sampler.tracer])
    const report = await gasProfileReport(profile.result())

    expect(sampler.s.steps).toBeGreaterThan(1_000_000)
    // a million kept steps of even 32 bytes each would pass this bound
    expect(sampler.s.peak - before).toBeLessThan(24 * 2 ** 20)
    expect(report.functions.map((f) => `${f.contract}::${f.function}:${f.calls}`).sort()).toEqual([`L::_step:${LOOP_TURNS}`, 'L::loop:1'])
    expect(report.lines.length).toBeLessThan(12)
    expect(report.folded.trim().split('\n')).toHaveLength(2)
    const body = report.lines.find((l) => l.line === LOOP_BODY_LINE)!
    expect(body.hits).toBeGreaterThanOrEqual(LOOP_TURNS)
    expect(report.functions.reduce((s, f) => s + f.selfGas, 0)).toBe(report.executionGas)
  }, 60_000)
})
