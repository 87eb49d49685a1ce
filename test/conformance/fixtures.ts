/**
 * Runs one go-ethereum tracer fixture (test/fixtures/geth-tracetest) through the engine
 * the way geth's tracetest does (README there): Common from genesis.config at the context's
 * block/time, the alloc as state, the context as the block, the raw signed tx decoded and its
 * sender recovered, executed with the folder's tracer; then the result is compared as JSON.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createCommonFromGethGenesis, type Common } from '@ethereumjs/common'
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx'
import { hexToBytes } from '@ethereumjs/util'
import type { Address, Hex } from 'viem'
import { executeSignedTx } from '../../engine/execution/executeTransaction.js'
import type { BlockEnv, ExecutionContext } from '../../engine/execution/types.js'
import { MemoryStateSource, OverlayStateManager, type GenesisAccount } from '../../engine/state/index.js'
import { createCallTracer } from '../../tracers/callTracer.js'
import type { Tracer } from '../../tracers/types.js'
import { kzgBackend } from '../../engine/platform/kzg.js'

const here = dirname(fileURLToPath(import.meta.url))
/** geth's fixtures, vendored with their licence note */
export const CORPUS = resolve(here, '../fixtures/geth-tracetest')
export const FOLDERS = ['call_tracer', 'call_tracer_withLog', 'prestate_tracer', 'prestate_tracer_with_diff_mode'] as const

export interface Fixture {
  name: string
  folder: (typeof FOLDERS)[number]
  file: string
}

export function listFixtures(): Fixture[] {
  const out: Fixture[] = []
  for (const folder of FOLDERS) {
    for (const f of readdirSync(join(CORPUS, folder)).sort()) {
      if (f.endsWith('.json')) out.push({ name: `${folder}/${f.replace(/\.json$/, '')}`, folder, file: join(CORPUS, folder, f) })
    }
  }
  return out
}

export interface FixtureJson {
  genesis: {
    config: Record<string, unknown>
    alloc: Record<string, { balance?: string; nonce?: string; code?: string; storage?: Record<string, string> }>
    [k: string]: unknown
  }
  context: { number: string; difficulty: string; timestamp: string; gasLimit: string; miner: string; baseFeePerGas?: string }
  input: Hex
  tracerConfig?: Record<string, unknown>
  result: unknown
}

const big = (v: string | number | undefined): bigint => (v === undefined || v === '' ? 0n : BigInt(v))

/**
 * geth decodes JSON keys case-insensitively (`IstanbulBlock` is istanbulBlock); ethereumjs does
 * not. Clique only changes who the coinbase is (the header signer), and the fixture's context
 * names the miner already, so the runner treats those chains as ethash.
 */
function gethConfig(config: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(config)) out[k.charAt(0).toLowerCase() + k.slice(1)] = v
  if ('clique' in out) {
    delete out.clique
    out.ethash = {}
  }
  return out
}

export function commonFor(fx: FixtureJson): Common {
  const g = fx.genesis
  const genesis = {
    ...g,
    config: gethConfig(g.config),
    // ethereumjs reads these as hex/decimal strings; geth's JSON has them in either form
    difficulty: g.difficulty ?? '0x0',
    gasLimit: g.gasLimit ?? '0x0',
    timestamp: g.timestamp ?? '0x0',
    extraData: g.extraData ?? '0x',
    nonce: g.nonce ?? '0x0',
    mixHash: g.mixHash ?? `0x${'0'.repeat(64)}`,
    coinbase: g.coinbase ?? `0x${'0'.repeat(40)}`,
  }
  const common = createCommonFromGethGenesis(genesis as never, { chain: 'fixture', customCrypto: { kzg: kzgBackend() } })
  common.setHardforkBy({ blockNumber: big(fx.context.number), timestamp: big(fx.context.timestamp) })
  return common
}

export function blockEnvFor(fx: FixtureJson, common: Common): BlockEnv {
  const c = fx.context
  const g = fx.genesis
  const env: BlockEnv = {
    number: big(c.number),
    timestamp: big(c.timestamp),
    gasLimit: big(c.gasLimit),
    coinbase: c.miner.toLowerCase() as Address,
    difficulty: big(c.difficulty),
    // post-merge geth takes the genesis mixHash as PREVRANDAO when TTD is 0
    prevRandao: ((g.mixHash as string | undefined) ?? `0x${'0'.repeat(64)}`) as Hex,
  }
  if (common.isActivatedEIP(1559)) env.baseFeePerGas = big(c.baseFeePerGas ?? (g.baseFeePerGas as string | undefined))
  if (common.isActivatedEIP(4844)) env.excessBlobGas = big(g.excessBlobGas as string | undefined)
  return env
}

export function stateFor(fx: FixtureJson): OverlayStateManager {
  const alloc: Record<string, GenesisAccount> = {}
  for (const [a, acc] of Object.entries(fx.genesis.alloc)) {
    alloc[a] = {
      balance: big(acc.balance),
      nonce: big(acc.nonce),
      code: (acc.code ?? '0x') as Hex,
      storage: acc.storage,
    }
  }
  return new OverlayStateManager(MemoryStateSource.fromAlloc(alloc))
}

/** the tracer of a folder, built from the fixture's tracerConfig; undefined when missing */
async function tracerFor(fixture: Fixture, fx: FixtureJson): Promise<Tracer> {
  const cfg = fx.tracerConfig ?? {}
  switch (fixture.folder) {
    case 'call_tracer':
      return createCallTracer(cfg)
    case 'call_tracer_withLog':
      return createCallTracer({ ...cfg, withLog: true })
    case 'prestate_tracer':
    case 'prestate_tracer_with_diff_mode': {
      const mod = (await import('../../tracers/prestateTracer.js')) as { createPrestateTracer?: (c: unknown) => Tracer }
      if (!mod.createPrestateTracer) throw new Error('tracers/prestateTracer.ts has no createPrestateTracer yet')
      return mod.createPrestateTracer(fixture.folder === 'prestate_tracer_with_diff_mode' ? { ...cfg, diffMode: true } : cfg)
    }
  }
}

export interface FixtureOutcome {
  name: string
  pass: boolean
  /** first difference or the error that stopped the run */
  detail?: string
}

/** runs a fixture file's transaction with `tracer` (for diagnostics over other folders) */
export async function runWithTracer(file: string, tracer: Tracer): Promise<void> {
  const fx = JSON.parse(readFileSync(file, 'utf8')) as FixtureJson
  const common = commonFor(fx)
  const tx: TypedTransaction = createTxFromRLP(hexToBytes(fx.input.startsWith('0x') ? fx.input : (`0x${fx.input}` as Hex)), { common })
  await executeSignedTx({ common, state: stateFor(fx), block: blockEnvFor(fx, common) }, tx, { tracers: [tracer], validation: false })
}

export async function runFixture(fixture: Fixture): Promise<FixtureOutcome> {
  try {
    const fx = JSON.parse(readFileSync(fixture.file, 'utf8')) as FixtureJson
    const common = commonFor(fx)
    const tx: TypedTransaction = createTxFromRLP(hexToBytes(fx.input.startsWith('0x') ? fx.input : (`0x${fx.input}` as Hex)), { common })
    const ctx: ExecutionContext = { common, state: stateFor(fx), block: blockEnvFor(fx, common) }
    const tracer = await tracerFor(fixture, fx)
    await executeSignedTx(ctx, tx, { tracers: [tracer], validation: false })
    const got = JSON.parse(JSON.stringify(tracer.result())) as unknown
    const diff = firstDifference(normalize(fx.result), normalize(got), '$')
    return diff ? { name: fixture.name, pass: false, detail: diff } : { name: fixture.name, pass: true }
  } catch (e) {
    if (process.env.CONFORMANCE_DEBUG) console.error(e)
    return { name: fixture.name, pass: false, detail: `threw ${(e as Error).message ?? String(e)}` }
  }
}

/** a log without `index` counts as 0x0 (fixtures older than geth's #33629) */
export function normalize(v: unknown, key?: string): unknown {
  if (Array.isArray(v)) return v.map((x) => normalize(x, key))
  if (v && typeof v === 'object') {
    const o: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) o[k] = normalize(x, k)
    if (key === 'logs' && 'address' in o && 'topics' in o && !('index' in o)) o.index = '0x0'
    return o
  }
  return v
}

function show(v: unknown): string {
  const s = JSON.stringify(v)
  return s === undefined ? 'undefined' : s.length > 160 ? `${s.slice(0, 160)}…` : s
}

export function firstDifference(expected: unknown, got: unknown, path: string): string | undefined {
  if (expected === got) return undefined
  if (Array.isArray(expected) && Array.isArray(got)) {
    for (let i = 0; i < Math.max(expected.length, got.length); i++) {
      const d = firstDifference(expected[i], got[i], `${path}[${i}]`)
      if (d) return d
    }
    return undefined
  }
  if (expected && got && typeof expected === 'object' && typeof got === 'object' && !Array.isArray(expected) && !Array.isArray(got)) {
    const e = expected as Record<string, unknown>
    const g = got as Record<string, unknown>
    for (const k of new Set([...Object.keys(e), ...Object.keys(g)])) {
      const d = firstDifference(e[k], g[k], `${path}.${k}`)
      if (d) return d
    }
    return undefined
  }
  // addresses and hex compare case-insensitively (geth fixtures mix checksummed addresses)
  if (typeof expected === 'string' && typeof got === 'string' && expected.startsWith('0x') && expected.toLowerCase() === got.toLowerCase()) return undefined
  return `${path} expected ${show(expected)} got ${show(got)}`
}
