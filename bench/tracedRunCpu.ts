/**
 * CPU per run of the engine, in process on the embedded devnet, for the Solidity loop of
 * solidityLoop.ts (24–26 turns, about 5,500 steps): a simulation (its observers see light steps),
 * a callTracer trace, and a struct log (no memory, spilled and read back as the front door does).
 * CPU, not wall time: process.cpuUsage over the runs, GC threads included.
 *
 * It is the A/B tool for changes to the interpreter's hot path, e.g. the ethereumjs patch: run it
 * with the patch applied and reversed (`npx patch-package --reverse`, then `npx patch-package`),
 * several times in alternation, and compare medians; one pair moves by ±20% on a shared machine.
 * Run: `npx tsx bench/tracedRunCpu.ts [runs]` (default 300 of each, after 60 to warm up).
 */
import { closeSync, readFileSync } from 'node:fs'
import { createMemoryCacheStore } from '../host/cache/memoryCacheStore.js'
import { createEngine } from '../engine/index.js'
import { claimSpilled } from '../host/spill/spillOwnership.js'
import { FROM, LOOPER, SOLIDITY_LOOP, loopData } from './solidityLoop.js'
import { ON_CHAIN } from '../engine/types.js'

const RUNS = Number(process.argv[2] ?? 300)
const WARMUP = 60
const TURNS = 24

const engine = await createEngine({
  gasCap: 50_000_000n,
  rpcTimeoutMs: 10_000,
  maxStructLogSteps: 1_000_000,
  simulationTtlSeconds: 60,
  cache: createMemoryCacheStore(),
  spill: { thresholdBytes: 64 * 2 ** 10, maxBytes: 2 ** 31 },
})
const overrides = { [LOOPER]: { code: SOLIDITY_LOOP.deployedBytecode } }
// another number of turns per run: no answer can come from a result cache
const callOf = (i: number) => ({ from: FROM, to: LOOPER, data: loopData(TURNS + (i % 3)) })

const kinds: Record<string, (i: number) => Promise<unknown>> = {
  simulation: (i) =>
    engine.simulate(ON_CHAIN, {
      calls: [callOf(i)],
      block: { tag: 'latest' },
      validation: false,
      traceAssetChanges: true,
      traceTransfers: true,
      stateOverrides: overrides,
    }),
  callTracer: async (i) =>
    JSON.stringify(
      await engine.traceCall(ON_CHAIN, { call: callOf(i), block: { tag: 'latest' }, stateOverrides: overrides, tracerConfig: { callTracer: {} } }),
    ),
  'struct log': async (i) => {
    const text = JSON.stringify(
      await engine.traceCall(ON_CHAIN, {
        call: callOf(i),
        block: { tag: 'latest' },
        stateOverrides: overrides,
        tracerConfig: { structLogger: { disableMemory: true } },
      }),
    )
    const path = /"\$spilledJson":("[^"]+")/.exec(text)?.[1]
    if (!path) throw new Error('the struct log was not spilled')
    const claimed = claimSpilled(JSON.parse(path) as string)!
    readFileSync(claimed.fd)
    closeSync(claimed.fd)
  },
}

console.log(`CPU per run, in process on the devnet, the Solidity loop (${TURNS}-${TURNS + 2} turns), ${RUNS} runs each after ${WARMUP}\n`)
console.log('| run | CPU ms per run |\n|---|---|')
for (const [name, run] of Object.entries(kinds)) {
  for (let i = 0; i < WARMUP; i++) await run(i)
  const before = process.cpuUsage()
  for (let i = 0; i < RUNS; i++) await run(i)
  const used = process.cpuUsage(before)
  console.log(`| ${name} | ${((used.user + used.system) / 1000 / RUNS).toFixed(2)} |`)
}
await engine.close()
