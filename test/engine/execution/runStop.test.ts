/**
 * A run stops in place where its stop says (engine/execution/runStop.ts): the check sits in front
 * of ethereumjs' Interpreter.runStep (a private method: this fails loudly if an upgrade moves it),
 * reaches a loop that never waits for anything, nested calls and traced runs alike, and a watched
 * run lets the event loop in while it computes. A run without a stop is untouched.
 */
import { describe, expect, it, afterAll } from 'vitest'
import type { Hex } from 'viem'
import { createEngine } from '../../../engine/index.js'
import { runStopInstalled, YIELD_EVERY_MS } from '../../../engine/execution/runStop.js'
import type { CallParams, Engine, RunAt } from '../../../engine/types.js'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { ON_CHAIN } from '../../../engine/types.js'

const FROM: Hex = '0x0000000000000000000000000000000000000001'
const LOOP_AT: Hex = '0x00000000000000000000000000000000000100f0'
const CALLER_AT: Hex = '0x00000000000000000000000000000000000100f1'
/** JUMPDEST PUSH1 0 JUMP: 12 gas a turn, forever */
const LOOP_CODE: Hex = '0x5b600056'
/** CALL(gas, LOOP_AT, 0, 0, 0, 0, 0): the loop one frame down */
const CALLER_CODE: Hex = `0x6000600060006000600073${LOOP_AT.slice(2)}5af100`
const GAS = 2_000_000_000n

let engine: Engine
const loop = (to: Hex = LOOP_AT): CallParams => ({
  call: { from: FROM, to, data: '0x', gas: GAS },
  block: { tag: 'latest' },
  stateOverrides: { [LOOP_AT]: { code: LOOP_CODE }, [CALLER_AT]: { code: CALLER_CODE } },
})
const outcome = (p: Promise<unknown>) =>
  p.then(
    () => ({ code: 'none' }),
    (e: { code?: string; message?: string }) => ({ code: e.code, message: e.message }),
  )

describe('stopping a run in place', () => {
  afterAll(async () => {
    await engine?.close()
  })

  it('finds the interpreter step it guards', async () => {
    engine = await createEngine({ cache: createMemoryCacheStore(), gasCap: GAS, rpcTimeoutMs: 10_000, maxStructLogSteps: 1_000, simulationTtlSeconds: 60 })
    expect(runStopInstalled).toBe(true)
  })

  it('stops a loop that never yields at its deadline, one frame down too, untraced and traced', async () => {
    const ms = 200
    for (const run of [
      (e: Engine, at: RunAt) => e.call(at, loop()),
      (e: Engine, at: RunAt) => e.call(at, loop(CALLER_AT)),
      (e: Engine, at: RunAt) => e.traceCall(at, { ...loop(), tracerConfig: { callTracer: {} } }),
    ]) {
      const t0 = performance.now()
      const got = await outcome(run(engine, { stop: { deadline: Date.now() + ms } }))
      expect(got).toEqual({ code: 'EXECUTION_TIMEOUT', message: 'the request ran past its time limit: its run was stopped' })
      // the check comes every few thousand steps: well within the deadline's own length past it
      expect(performance.now() - t0).toBeLessThan(2 * ms + 500)
    }
  })

  it('starts no run for a request already given up, and stops one when it is given up meanwhile', async () => {
    const given = new AbortController()
    given.abort()
    expect(await outcome(engine.call({ stop: { signal: given.signal } }, loop()))).toEqual({
      code: 'EXECUTION_TIMEOUT',
      message: 'the request was given up (it timed out or its client went away): its run was stopped',
    })
    // a timer set before the run fires while it computes (the run lets the event loop in), and
    // the abort it sends stops the run
    const later = new AbortController()
    const t0 = performance.now()
    setTimeout(() => later.abort(), 10 * YIELD_EVERY_MS)
    expect((await outcome(engine.call({ stop: { signal: later.signal } }, loop()))).code).toBe('EXECUTION_TIMEOUT')
    expect(performance.now() - t0).toBeLessThan(40 * YIELD_EVERY_MS + 500)
  })

  it('leaves a run without a stop, or with a distant one, to end as it would', async () => {
    const ends: CallParams = { ...loop(), call: { ...loop().call, gas: 100_000n } }
    const plain = await engine.call(ON_CHAIN, ends)
    expect(plain.status).toBe('failed')
    expect(plain.error).toBe('out of gas')
    expect(await engine.call({ stop: { deadline: Date.now() + 60_000, signal: new AbortController().signal } }, ends)).toEqual(plain)
  })
})
