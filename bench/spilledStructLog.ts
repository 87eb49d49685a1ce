/**
 * A struct log spilled to a file against the same struct log kept in memory, in process on the
 * embedded devnet: what the spill threshold (`DEFAULT_SPILL_THRESHOLD_BYTES`) rests on. Two
 * engines differ only in `spill`; each trace of a loop contract (put in place by a state override,
 * no memory printed, like the bench's struct-log rows) is run on both, interleaved, and finished
 * as the front door would: the spilled file claimed and read back, the in-memory logs printed with
 * JSON.stringify. Prints the median time per trace of each and their ratio, for a short and a long
 * log. Run: `npx tsx bench/spilledStructLog.ts [traces]` (default 200 of each size).
 */
import { closeSync, readFileSync } from 'node:fs'
import type { Hex } from 'viem'
import { FROM, LOOPER, SOLIDITY_LOOP, loopData } from './solidityLoop.js'
import { createMemoryCacheStore } from '../host/cache/memoryCacheStore.js'
import { createEngine } from '../engine/index.js'
import { SPILL_KEY } from '../engine/platform/spill/spillFiles.js'
import { claimSpilled } from '../host/spill/spillOwnership.js'
import type { Engine } from '../engine/types.js'
import { ON_CHAIN } from '../engine/types.js'

const TRACES = Number(process.argv[2] ?? 200)
/** PUSH1 0 PUSH1 0x40 MSTORE; PUSH3 n; JUMPDEST; DUP1 PUSH1 0 MSTORE; PUSH1 1 SWAP1 SUB; DUP1 PUSH1 9 JUMPI; STOP: 10 steps per turn */
const loopCode = (turns: number) => `0x600060405262${turns.toString(16).padStart(6, '0')}5b80600052600190038060095700` as Hex

/** a call of `size` (loop turns) of one of the two contracts */
type Shape = { name: string; sizes: number[]; code: Hex; data: (size: number) => Hex }
const SHAPES: Shape[] = [
  { name: 'a bytecode loop (short steps, 1-3 stack words)', sizes: [100, 300], code: '0x', data: () => '0x' },
  { name: 'a Solidity loop with storage', sizes: [4, 24], code: SOLIDITY_LOOP.deployedBytecode, data: loopData },
]

const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!

/** one trace, finished as the front door finishes it; answers its JSON size and whether it was spilled */
async function trace(engine: Engine, shape: Shape, size: number): Promise<{ bytes: number; steps: number; spilled: boolean }> {
  const r = await engine.traceCall(ON_CHAIN, {
    call: { from: FROM, to: LOOPER, data: shape.data(size) },
    block: { tag: 'latest' },
    stateOverrides: { [LOOPER]: { code: shape.code === '0x' ? loopCode(size) : shape.code } },
    tracerConfig: { structLogger: { disableMemory: true } },
  })
  const text = JSON.stringify(r)
  const path = /"\$spilledJson":("[^"]+")/.exec(text)?.[1]
  if (!path) return { bytes: text.length, steps: text.split('{"pc":').length - 1, spilled: false }
  const claimed = claimSpilled(JSON.parse(path) as string)!
  const logs = readFileSync(claimed.fd)
  closeSync(claimed.fd)
  return { bytes: text.length - path.length - SPILL_KEY.length - 5 + logs.length, steps: logs.toString('latin1').split('{"pc":').length - 1, spilled: true }
}

async function main() {
  const base = { gasCap: 50_000_000n, rpcTimeoutMs: 10_000, maxStructLogSteps: 1_000_000, simulationTtlSeconds: 60 }
  // 64 KiB: the default threshold (given here so the script also runs against older commits)
  const spilled = await createEngine({ ...base, cache: createMemoryCacheStore(), spill: { thresholdBytes: 64 * 2 ** 10, maxBytes: 2 ** 31 } })
  const inMemory = await createEngine({ ...base, cache: createMemoryCacheStore() })
  console.log(`struct log (no memory), in process on the devnet, ${TRACES} traces each, interleaved; spilled = claimed and read back, in memory = printed\n`)
  console.log('| contract | steps | JSON | spilled, ms per trace (median) | in memory, ms per trace (median) | spilled / in memory |')
  console.log('|---|---|---|---|---|---|')
  for (const shape of SHAPES)
    for (const size of shape.sizes) {
      const times = { spilled: [] as number[], inMemory: [] as number[] }
      let last = { bytes: 0, steps: 0 }
      for (let i = 0; i < TRACES + 20; i++) {
        for (const [name, engine] of [
          ['spilled', spilled],
          ['inMemory', inMemory],
        ] as const) {
          const t = performance.now()
          const done = await trace(engine, shape, size + (i % 3))
          if (done.spilled !== (name === 'spilled')) throw new Error(`${name}: the trace was ${done.spilled ? '' : 'not '}spilled`)
          last = done
          // the first runs warm the JIT and the caches
          if (i >= 20) times[name].push(performance.now() - t)
        }
      }
      const [s, m] = [median(times.spilled), median(times.inMemory)]
      console.log(`| ${shape.name} | ${last.steps} | ${(last.bytes / 1e3).toFixed(0)} kB | ${s.toFixed(2)} | ${m.toFixed(2)} | ${(s / m).toFixed(2)} |`)
    }
  await Promise.all([spilled.close(), inMemory.close()])
}

await main()
