/**
 * The conformance ratchet: every geth tracer fixture runs; a fixture listed in passing.json that
 * no longer matches fails the suite. The count is printed so progress shows in CI logs.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { CORPUS, listFixtures, runFixture, type FixtureOutcome } from './fixtures.js'
import { runFlatChecks, runFlatTracerChecks } from './flatCheck.js'

const ratchet = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'passing.json'), 'utf8')) as string[]

describe('geth tracer conformance', () => {
  it('keeps every fixture of passing.json matching geth', async () => {
    expect(existsSync(CORPUS), `conformance corpus missing at ${CORPUS}`).toBe(true)
    const fixtures = listFixtures()
    expect(fixtures.length).toBe(49)
    const outcomes: FixtureOutcome[] = []
    for (const f of fixtures) outcomes.push(await runFixture(f))
    const passed = outcomes.filter((o) => o.pass).map((o) => o.name)
    console.log(`conformance: ${passed.length}/${fixtures.length} fixtures match`)
    const regressed = outcomes.filter((o) => !o.pass && ratchet.includes(o.name)).map((o) => `${o.name}: ${o.detail}`)
    expect(regressed).toEqual([])
    // the ratchet only lists fixtures that really exist
    for (const name of ratchet) expect(fixtures.map((f) => f.name)).toContain(name)
  }, 120_000)

  // extra coverage of the adapter: geth's flatCallTracer fixtures, compared on what a callTracer
  // frame also carries. big_slow's fork schedule (EIP-158 before EIP-155) cannot be expressed in
  // an ethereumjs Common, so it is the one expected to fail.
  it('agrees with geth’s call_tracer_flat fixtures on every frame', async () => {
    const outcomes = await runFlatChecks()
    expect(outcomes.length).toBe(32)
    const failed = outcomes.filter((o) => !o.pass).map((o) => `${o.name}: ${o.detail}`)
    expect(failed).toHaveLength(1)
    expect(failed[0]).toMatch(/^call_tracer_flat\/big_slow: threw .*EIP155 block number must equal EIP 158/)
  }, 120_000)

  // the flatCallTracer itself against the same fixtures, compared as geth's own test compares them
  it('flatCallTracer prints geth’s call_tracer_flat fixtures', async () => {
    const outcomes = await runFlatTracerChecks()
    expect(outcomes.length).toBe(32)
    const failed = outcomes.filter((o) => !o.pass).map((o) => `${o.name}: ${o.detail}`)
    console.log(`flatCallTracer: ${outcomes.length - failed.length}/${outcomes.length} fixtures match`)
    expect(failed).toHaveLength(1)
    expect(failed[0]).toMatch(/^call_tracer_flat\/big_slow: threw .*EIP155 block number must equal EIP 158/)
  }, 120_000)
})
