/**
 * A CPU profile of warm simulations in one process, on the embedded devnet (no HTTP, no upstream):
 * `node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/profileSimulate.ts [N]`, then open the
 * .cpuprofile in Chrome DevTools. Amounts vary per call, so nothing is answered from a cache.
 */
import { encodeFunctionData, type Address } from 'viem'
import { createMemoryCacheStore } from '../host/cache/memoryCacheStore.js'
import { DEV_ACCOUNTS } from '../engine/chains/memory/accounts.js'
import { DEMO_TOKEN_ADDRESS, demoTokenAbi } from '../engine/chains/devnet/demoTransactions.js'
import { createEngine } from '../engine/index.js'
import { ON_CHAIN } from '../engine/types.js'

const N = Number(process.argv[2] ?? 2000)
const engine = await createEngine({
  cache: createMemoryCacheStore(),
  gasCap: 50_000_000n,
  rpcTimeoutMs: 10_000,
  maxStructLogSteps: 1_000_000,
  simulationTtlSeconds: 60,
})
const from = DEV_ACCOUNTS[0]!.address as Address
const to = DEV_ACCOUNTS[1]!.address as Address
const call = (i: number) => ({
  from,
  to: DEMO_TOKEN_ADDRESS,
  data: encodeFunctionData({ abi: demoTokenAbi, functionName: 'transfer', args: [to, BigInt(i + 1)] }),
})
const params = (i: number) => ({ calls: [call(i)], block: { tag: 'latest' as const }, validation: false, traceAssetChanges: false, traceTransfers: false })
for (let i = 0; i < 200; i++) await engine.simulate(ON_CHAIN, params(i))
const t = performance.now()
for (let i = 0; i < N; i++) await engine.simulate(ON_CHAIN, params(i))
console.log(`simulate: ${((performance.now() - t) / N).toFixed(3)} ms per call (${N} calls)`)
await engine.close()
