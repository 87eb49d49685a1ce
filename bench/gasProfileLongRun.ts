/**
 * What tracer `gasProfile` costs a long run: a call of about a million steps with its sources known
 * (test/support/millionStepLoop.ts: every line change of every turn is a boundary the profiler
 * sees), run in process under `gasProfile` and under geth's callTracer, alternating, after one
 * warm run of each. The ratio of the medians is the result (goal ≤ 2).
 * `npx tsx bench/gasProfileLongRun.ts` runs this piece alone.
 *
 * @example
 * const r = await measureGasProfileLongRun(7)
 */
import { fileURLToPath } from 'node:url'
import { createGasProfile } from '../engine/execution/observers/gasProfile.js'
import { createCallTracer } from '../tracers/callTracer.js'
import { createMillionStepLoop } from '../test/support/millionStepLoop.js'

/** the bench's row; `BENCH_ONLY=gasProfile npm run bench` runs it (with the cheap parts of the bench) */
export const GAS_PROFILE_LONG_RUN_ROW = 'gasProfile of a million-step call with sources, against callTracer of it (in process)'

export async function measureGasProfileLongRun(rounds: number): Promise<{ callTracerMs: number[]; gasProfileMs: number[] }> {
  const loop = await createMillionStepLoop()
  try {
    const callTracer = () => loop.run([createCallTracer({})])
    const gasProfile = () => loop.run([createGasProfile({ sources: loop.sources })])
    await callTracer()
    await gasProfile()
    const callTracerMs: number[] = []
    const gasProfileMs: number[] = []
    for (let i = 0; i < rounds; i++) {
      callTracerMs.push(await callTracer())
      gasProfileMs.push(await gasProfile())
    }
    return { callTracerMs, gasProfileMs }
  } finally {
    await loop.close()
  }
}

export function gasProfileLongRunRows(r: { callTracerMs: number[]; gasProfileMs: number[] }): string[] {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  return [
    `\n| ${GAS_PROFILE_LONG_RUN_ROW} | median ms (${r.callTracerMs.length} runs each, alternating) |`,
    '|---|---|',
    `| callTracer | ${median(r.callTracerMs).toFixed(0)} |`,
    `| gasProfile | ${median(r.gasProfileMs).toFixed(0)} |`,
    `\ngasProfile / callTracer: **${(median(r.gasProfileMs) / median(r.callTracerMs)).toFixed(2)}** (goal ≤ 2)`,
  ]
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const line of gasProfileLongRunRows(await measureGasProfileLongRun(7))) console.log(line)
}
