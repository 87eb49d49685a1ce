/**
 * What a run pays before its first opcode, and a word conversion every PUSH, SLOAD and SSTORE pays,
 * timed in this process (the A/B tool for `patches/`'s constructor and conversion changes):
 * - `createVM` as executeTransaction.ts calls it for every run: a prepared Common, a warm state;
 * - ethereumjs' `bigIntToBytes` (patched) against the stock conversion through prefixed hex.
 * Run it with the patches applied, then reversed (`npx patch-package --reverse`), to see what the
 * constructor changes save; the conversion is compared within one run.
 *
 * @example
 * npx tsx bench/vmSetupCpu.ts
 */
import { bigIntToBytes, hexToBytes } from '@ethereumjs/util'
import { createVM } from '@ethereumjs/vm'
import { createDevnet } from '../engine/chains/devnet/devnetChain.js'
import '../engine/execution/evmTables.js'
import { preparedCommon } from '../engine/execution/preparedCommon.js'
import { openRun } from '../engine/run/index.js'

const ROUNDS = 5
const VMS = 20_000
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
const timeNs = (n: number, fn: () => unknown): number => {
  const t = process.hrtime.bigint()
  for (let i = 0; i < n; i++) fn()
  return Number(process.hrtime.bigint() - t) / n
}

const chain = await createDevnet({})
const { ctx } = await openRun(chain, { block: { tag: 'latest' }, calls: [] })
const vmUs: number[] = []
for (let r = 0; r < ROUNDS; r++) {
  const t = process.hrtime.bigint()
  for (let i = 0; i < VMS; i++) await createVM({ common: preparedCommon(ctx.common), stateManager: ctx.state })
  vmUs.push(Number(process.hrtime.bigint() - t) / VMS / 1000)
}
await chain.close()

// words as a transfer's run converts them: small numbers, addresses, balances, hashes
const words = Array.from({ length: 1000 }, (_, i) => (BigInt(i + 1) * 0x9e3779b97f4a7c15n) ** BigInt(1 + (i % 4)) % 2n ** 256n)
const stock = (n: bigint) => hexToBytes(`0x${n.toString(16).length % 2 ? '0' : ''}${n.toString(16)}`)
const patchedNs: number[] = []
const stockNs: number[] = []
for (let r = 0; r < ROUNDS; r++) {
  let k = 0
  patchedNs.push(timeNs(300_000, () => bigIntToBytes(words[k++ % 1000]!)))
  stockNs.push(timeNs(300_000, () => stock(words[k++ % 1000]!)))
}

console.log(`createVM (prepared Common, warm state): ${median(vmUs).toFixed(1)} µs a run (median of ${ROUNDS} rounds of ${VMS})`)
console.log(`bigIntToBytes: ${median(patchedNs).toFixed(0)} ns a word; the stock conversion through prefixed hex: ${median(stockNs).toFixed(0)} ns`)
