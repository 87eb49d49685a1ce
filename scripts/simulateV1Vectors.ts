/**
 * Runs execution-apis' eth_simulateV1 vectors (tests/eth_simulateV1/*.io, recorded by geth on the
 * hive test chain) through the eth_simulateV1 handler, on a fork of a local Anvil shaped like that
 * chain where it matters to the vectors: its chain id, a 200M gas limit, and a head at block 54
 * with time 540 (blocks 10 s apart from genesis at 0). The hive chain's own accounts and
 * contracts are not there, so a vector that reads them cannot pass; the rest should answer as
 * geth does field for field, except what the service cannot compute or the chain differs in:
 * `stateRoot` (no trie kept), and so `hash`/`parentHash`/`blockHash`.
 *
 * Usage: npx tsx scripts/simulateV1Vectors.ts <execution-apis checkout> [name filter] [--verbose]
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createMemoryCacheStore } from '../engine/cache/memoryCacheStore.js'
import { createEngine } from '../engine/index.js'
import { simulateV1Methods } from '../src/rpc/methods/simulateV1.js'
import { RpcError } from '../src/rpc/rpcError.js'
import { startAnvil } from '../test/support/anvil.js'

const [root, filter] = process.argv.slice(2).filter((a) => !a.startsWith('--'))
const verbose = process.argv.includes('--verbose')
if (!root) throw new Error('usage: simulateV1Vectors.ts <execution-apis checkout> [filter]')
const dir = join(root, 'tests/eth_simulateV1')
const HIVE_CHAIN_ID = 0xc72dd9d5e883e

const anvil = await startAnvil({ chainId: HIVE_CHAIN_ID, args: ['--gas-limit', '200000000', '--timestamp', '0', '--hardfork', 'prague'] })
await anvil.rpc('anvil_mine', ['0x35', '0xa'])
await anvil.rpc('evm_setNextBlockTimestamp', ['0x21c'])
await anvil.rpc('anvil_mine', ['0x1'])
// the hive chain's coinbase (the zero address) holds fees, so it is not an empty account there
await anvil.rpc('anvil_setBalance', ['0x0000000000000000000000000000000000000000', '0x1'])
const engine = await createEngine({ rpcUrl: anvil.url, cache: createMemoryCacheStore(), gasCap: 50_000_000n, rpcTimeoutMs: 10_000, maxStructLogSteps: 100_000, simulationTtlSeconds: 60 })

const MASKED = new Set(['stateRoot', 'hash', 'parentHash', 'blockHash'])
const mask = (v: unknown): unknown =>
  Array.isArray(v) ? v.map(mask) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).filter(([k]) => !MASKED.has(k)).map(([k, x]) => [k, mask(x)])) : v

function differences(a: unknown, b: unknown, path = ''): string[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return []
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)])
    return [...keys].flatMap((k) => differences((a as never)[k], (b as never)[k], `${path}.${k}`))
  }
  return [`${path}: geth ${JSON.stringify(a)?.slice(0, verbose ? 4000 : 160)} ours ${JSON.stringify(b)?.slice(0, verbose ? 4000 : 160)}`]
}

let pass = 0
const failed: string[] = []
for (const file of readdirSync(dir).filter((f) => f.endsWith('.io') && (!filter || f.includes(filter))).sort()) {
  const lines = readFileSync(join(dir, file), 'utf8').split('\n')
  const req = JSON.parse(lines.find((l) => l.startsWith('>>'))!.slice(3)) as { params: unknown[] }
  const want = JSON.parse(lines.find((l) => l.startsWith('<<'))!.slice(3)) as { result?: unknown; error?: { code: number; message: string } }
  let got: { result?: unknown; error?: { code: number | string; message: string } }
  try {
    got = { result: await simulateV1Methods.eth_simulateV1!(req.params, { engine } as never) }
  } catch (e) {
    got = { error: { code: e instanceof RpcError ? e.code : ((e as { code?: string }).code ?? 'thrown'), message: (e as Error).message } }
  }
  const diff = want.error
    ? differences({ code: want.error.code, message: want.error.message }, got.error ?? { result: 'no error' })
    : differences(mask(want.result), mask(got.result ?? got))
  if (diff.length === 0) pass++
  else {
    failed.push(file)
    console.log(`FAIL ${file}`)
    for (const d of diff.slice(0, verbose ? 50 : 4)) console.log(`  ${d}`)
  }
}
console.log(`\n${pass}/${pass + failed.length} vectors pass`)
await engine.close()
await anvil.stop()
