/**
 * The conformance corpus through the JSON-RPC debug_traceTransaction handler: each geth fixture
 * becomes a one-transaction chain (its alloc the state after the parent block, its context the
 * block, its raw transaction mined there at index 0), the real trace service runs over that chain
 * and the handler is called with the TraceConfig geth's tracetest used. The answer must equal the
 * fixture's `result` for every fixture the ratchet (passing.json) lists.
 */
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createTxFromRLP } from '@ethereumjs/tx'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import type { Address, Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../config/loadConfig.js'
import type { BlockHeaderInfo, ChainSource, MinedTransaction } from '../../engine/chains/types.js'
import { EngineError } from '../../engine/platform/errors.js'
import { createTraceService } from '../../engine/operations/trace/traceService.js'
import { type Engine, ON_CHAIN } from '../../engine/types.js'
import { debugMethods } from '../../src/rpc/methods/debug.js'
import { blockEnvFor, commonFor, firstDifference, listFixtures, normalize, stateFor, type Fixture, type FixtureJson } from './fixtures.js'

const ratchet = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'passing.json'), 'utf8')) as string[]

/** a chain holding the fixture's transaction as the only one of its block */
function fixtureChain(fx: FixtureJson): { chain: ChainSource; hash: Hex } {
  const common = commonFor(fx)
  const tx = createTxFromRLP(hexToBytes(fx.input.startsWith('0x') ? fx.input : (`0x${fx.input}` as Hex)), { common })
  const env = blockEnvFor(fx, common)
  const header: BlockHeaderInfo = { ...env, hash: `0x${'11'.repeat(32)}`, parentHash: `0x${'22'.repeat(32)}` }
  const hash = bytesToHex(tx.hash()) as Hex
  const mined: MinedTransaction = { tx, from: tx.getSenderAddress().toString().toLowerCase() as Address, hash, blockNumber: env.number, index: 0 }
  const notFound = () => new EngineError('BLOCK_NOT_FOUND', 'the fixture chain has one block')
  const chain: ChainSource = {
    chainId: Number(common.chainId()),
    network: 'fixture',
    async resolveBlock(selector) {
      if ('number' in selector && selector.number === env.number) return { ...header }
      throw notFound()
    },
    async stateAfter(n) {
      if (n !== env.number - 1n) throw notFound()
      return stateFor(fx)
    },
    commonAt: () => common,
    getBlockHash: async () => undefined,
    headerByHash: async (h) => (h === header.hash ? { ...header } : undefined),
    getTransaction: async (h) => (h.toLowerCase() === hash ? mined : undefined),
    getBlockTransactions: async (n) => (n === env.number ? [mined] : []),
    ping: async () => true,
    close: async () => {},
  }
  return { chain, hash }
}

/** the TraceConfig geth's tracetest runs each folder with */
function traceConfigFor(fixture: Fixture, fx: FixtureJson): Record<string, unknown> {
  const cfg = fx.tracerConfig ?? {}
  switch (fixture.folder) {
    case 'call_tracer':
      return { tracer: 'callTracer', tracerConfig: cfg }
    case 'call_tracer_withLog':
      return { tracer: 'callTracer', tracerConfig: { ...cfg, withLog: true } }
    case 'prestate_tracer':
      return { tracer: 'prestateTracer', tracerConfig: cfg }
    case 'prestate_tracer_with_diff_mode':
      return { tracer: 'prestateTracer', tracerConfig: { ...cfg, diffMode: true } }
  }
}

async function throughHandler(fixture: Fixture): Promise<string | undefined> {
  const fx = JSON.parse(readFileSync(fixture.file, 'utf8')) as FixtureJson
  const { chain, hash } = fixtureChain(fx)
  const traces = createTraceService(chain, { gasCap: 50_000_000n, maxStructLogSteps: 100_000 })
  // the trace service under the engine's signature: the address first (the fixture's own chain here)
  const traceTransaction: Engine['traceTransaction'] = (_at, hash, tracerConfig, overrides) => traces.traceTransaction(hash, tracerConfig, overrides)
  const engine = { traceTransaction } as unknown as Engine
  const config = loadConfig({ env: { APP_ENV: 'test', RPC_URL: '' } })
  try {
    const got = JSON.parse(JSON.stringify(await debugMethods.debug_traceTransaction!([hash, traceConfigFor(fixture, fx)], { engine, config, at: ON_CHAIN })))
    return firstDifference(normalize(fx.result), normalize(got), '$')
  } catch (e) {
    return `threw ${(e as Error).message}`
  }
}

describe('geth tracer conformance through debug_traceTransaction', () => {
  it('answers every fixture of passing.json as geth does', async () => {
    const fixtures = listFixtures()
    const failures: string[] = []
    let passed = 0
    for (const f of fixtures) {
      const diff = await throughHandler(f)
      if (diff === undefined) passed++
      else if (ratchet.includes(f.name)) failures.push(`${f.name}: ${diff}`)
    }
    console.log(`conformance through debug_traceTransaction: ${passed}/${fixtures.length} fixtures match`)
    expect(failures).toEqual([])
    expect(passed).toBe(ratchet.length)
  }, 180_000)
})
