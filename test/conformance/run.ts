/**
 * `npm run conformance`: every geth tracer fixture through the engine. Prints `PASS name` or
 * `FAIL name: <first differing JSON path> expected X got Y` per fixture and ends with exactly
 * `conformance: P/N fixtures match`. `--write` refreshes passing.json (the ratchet) with the
 * fixtures that pass now. Exit code 1 when a fixture listed in passing.json fails.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { listFixtures, runFixture } from './fixtures.js'

const ratchetFile = join(dirname(fileURLToPath(import.meta.url)), 'passing.json')
const ratchet = new Set(JSON.parse(readFileSync(ratchetFile, 'utf8')) as string[])

const fixtures = listFixtures()
const passing: string[] = []
const regressions: string[] = []
for (const f of fixtures) {
  const r = await runFixture(f)
  if (r.pass) {
    passing.push(r.name)
    console.log(`PASS ${r.name}`)
  } else {
    if (ratchet.has(r.name)) regressions.push(r.name)
    console.log(`FAIL ${r.name}: ${r.detail}`)
  }
}
if (process.argv.includes('--write')) writeFileSync(ratchetFile, `${JSON.stringify(passing, null, 2)}\n`)
if (regressions.length > 0) console.log(`regressed (listed in passing.json): ${regressions.join(', ')}`)
console.log(`conformance: ${passing.length}/${fixtures.length} fixtures match`)
if (regressions.length > 0) process.exitCode = 1
