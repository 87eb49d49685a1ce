/**
 * Diagnostic (`npx tsx test/conformance/flatCheck.ts`): geth's flatCallTracer fixtures
 * (call_tracer_flat, not part of our interface) run through our callTracer, flattened the way
 * geth's flat.go does, comparing what both formats carry (frame kinds, addresses, values, inputs,
 * child gas, errors, outputs). Extra coverage for the adapter's frame synthesis.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CORPUS, firstDifference, runWithTracer } from './fixtures.js'
import { keccak256, type Hex } from 'viem'
import { createCallTracer, type CallFrameJson } from '../../tracers/callTracer.js'
import { createFlatCallTracer, type FlatCallTracerConfig } from '../../tracers/flatCallTracer.js'

interface Flat {
  type: string
  action: Record<string, unknown>
  result?: Record<string, unknown> | null
  error?: string
  traceAddress: number[]
}

const PRECOMPILES = new Set(Array.from({ length: 10 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`))

function flatten(f: CallFrameJson, root: boolean, includePrecompiles: boolean, out: Record<string, unknown>[]): void {
  // flat.go hides only CALL/STATICCALL frames to precompiles
  if (!includePrecompiles && !root && (f.type === 'CALL' || f.type === 'STATICCALL') && f.to && PRECOMPILES.has(f.to.toLowerCase())) return
  const kind = f.type === 'SELFDESTRUCT' ? 'suicide' : f.type.startsWith('CREATE') ? 'create' : 'call'
  const e: Record<string, unknown> = { type: kind }
  if (kind === 'suicide') Object.assign(e, { address: f.from, refundAddress: f.to, balance: f.value })
  else if (kind === 'create') Object.assign(e, { from: f.from, init: f.input, value: f.value, gas: root ? undefined : f.gas, method: f.type.toLowerCase() })
  else Object.assign(e, { from: f.from, to: f.to, input: f.input, value: f.value ?? '0x0', gas: root ? undefined : f.gas, callType: f.type.toLowerCase() })
  if (f.error) e.error = f.error
  else if (kind !== 'suicide')
    Object.assign(e, { gasUsed: root ? undefined : f.gasUsed, output: f.output ?? '0x', address: kind === 'create' ? f.to : undefined })
  out.push(e)
  for (const c of f.calls ?? []) flatten(c, false, includePrecompiles, out)
}

function fromFixture(r: Flat, root: boolean): Record<string, unknown> {
  const a = r.action
  const e: Record<string, unknown> = { type: r.type }
  if (r.type === 'suicide') Object.assign(e, { address: a.address, refundAddress: a.refundAddress, balance: a.balance })
  else if (r.type === 'create') Object.assign(e, { from: a.from, init: a.init, value: a.value, gas: root ? undefined : a.gas, method: a.creationMethod })
  else Object.assign(e, { from: a.from, to: a.to, input: a.input, value: a.value ?? '0x0', gas: root ? undefined : a.gas, callType: a.callType })
  if (r.error) e.error = r.error
  else if (r.type !== 'suicide') {
    const res = r.result ?? {}
    Object.assign(e, {
      gasUsed: root ? undefined : res.gasUsed,
      output: r.type === 'create' ? (res.code ?? '0x') : (res.output ?? '0x'),
      address: r.type === 'create' ? res.address : undefined,
    })
  }
  return e
}

export interface FlatOutcome {
  name: string
  pass: boolean
  detail?: string
}

/** every call_tracer_flat fixture, compared on what both formats carry */
export async function runFlatChecks(): Promise<FlatOutcome[]> {
  const out: FlatOutcome[] = []
  const files = readdirSync(join(CORPUS, 'call_tracer_flat'))
    .filter((f) => f.endsWith('.json'))
    .sort()
  for (const f of files) {
    const name = `call_tracer_flat/${f.replace(/\.json$/, '')}`
    const fx = JSON.parse(readFileSync(join(CORPUS, 'call_tracer_flat', f), 'utf8')) as {
      result: Flat[]
      tracerConfig?: { includePrecompiles?: boolean; convertParityErrors?: boolean }
    }
    const cfg = fx.tracerConfig ?? {}
    try {
      const tracer = createCallTracer()
      await runWithTracer(join(CORPUS, 'call_tracer_flat', f), tracer)
      const ours: Record<string, unknown>[] = []
      flatten(tracer.result(), true, cfg.includePrecompiles === true, ours)
      const theirs = fx.result.map((r, i) => fromFixture(r, i === 0))
      // the flat format omits an empty input; parity error names are a rename we do not port
      for (const x of [...ours, ...theirs]) {
        if (x.input === '0x') delete x.input
        if (cfg.convertParityErrors) delete x.error
      }
      const d = firstDifference(JSON.parse(JSON.stringify(theirs)), JSON.parse(JSON.stringify(ours)), '$')
      out.push(d ? { name, pass: false, detail: d } : { name, pass: true })
    } catch (e) {
      out.push({ name, pass: false, detail: `threw ${(e as Error).message}` })
    }
  }
  return out
}

if (process.argv[1]?.endsWith('flatCheck.ts') && !process.argv.includes('--tracer')) {
  const outcomes = await runFlatChecks()
  for (const o of outcomes) console.log(o.pass ? `PASS ${o.name}` : `FAIL ${o.name}: ${o.detail}`)
  console.log(`flat: ${outcomes.filter((o) => o.pass).length}/${outcomes.length}`)
}

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000'
/**
 * geth's own comparison of these fixtures (eth/tracers/internal/tracetest/flat_calltrace_test.go
 * jsonEqualFlat): both sides decoded into value structs, so an absent field equals its zero value
 * (`result: {}` = no result, `balance: "0x0"` = none, `author` of zero = none) and the block/tx
 * fields are not compared (`json:"-"`)
 */
function asGethTest(r: Flat): Record<string, unknown> {
  const a = r.action as Record<string, string | undefined>
  const res = (r.result ?? {}) as Record<string, string | undefined>
  const big = (v: string | undefined) => (v === undefined ? '0x0' : `0x${BigInt(v).toString(16)}`)
  return {
    action: {
      author: a.author ?? ZERO_ADDRESS,
      rewardType: a.rewardType ?? '',
      address: a.address ?? ZERO_ADDRESS,
      balance: big(a.balance),
      callType: a.callType ?? '',
      creationMethod: a.creationMethod ?? '',
      from: a.from ?? ZERO_ADDRESS,
      gas: big(a.gas),
      init: a.init ?? '0x',
      input: a.input ?? '0x',
      refundAddress: a.refundAddress ?? ZERO_ADDRESS,
      to: a.to ?? ZERO_ADDRESS,
      value: big(a.value),
    },
    error: r.error ?? '',
    result: { address: res.address ?? ZERO_ADDRESS, code: res.code ?? '0x', gasUsed: big(res.gasUsed), output: res.output ?? '0x' },
    subtraces: (r as unknown as { subtraces: number }).subtraces,
    traceAddress: r.traceAddress,
    type: r.type,
  }
}

/**
 * every call_tracer_flat fixture through the flatCallTracer itself, compared whole; only the
 * fields the fixture cannot give us are taken from it (its block hash and the tx's position in
 * its block): the block number and tx hash are ours, from the fixture's context and input
 */
export async function runFlatTracerChecks(): Promise<FlatOutcome[]> {
  const out: FlatOutcome[] = []
  const files = readdirSync(join(CORPUS, 'call_tracer_flat'))
    .filter((f) => f.endsWith('.json'))
    .sort()
  for (const f of files) {
    const name = `call_tracer_flat/${f.replace(/\.json$/, '')}`
    const fx = JSON.parse(readFileSync(join(CORPUS, 'call_tracer_flat', f), 'utf8')) as {
      result: (Flat & { blockHash: Hex; transactionPosition: number })[]
      input: Hex
      context: { number: string }
      tracerConfig?: FlatCallTracerConfig
    }
    try {
      const first = fx.result[0]!
      const tracer = createFlatCallTracer(fx.tracerConfig ?? {}, {
        blockHash: first.blockHash,
        blockNumber: BigInt(fx.context.number),
        transactionHash: keccak256(fx.input.startsWith('0x') ? fx.input : `0x${fx.input}`),
        transactionPosition: first.transactionPosition,
      })
      await runWithTracer(join(CORPUS, 'call_tracer_flat', f), tracer)
      const d = firstDifference(fx.result.map(asGethTest), (JSON.parse(JSON.stringify(tracer.result())) as Flat[]).map(asGethTest), '$')
      out.push(d ? { name, pass: false, detail: d } : { name, pass: true })
    } catch (e) {
      out.push({ name, pass: false, detail: `threw ${(e as Error).message}` })
    }
  }
  return out
}

if (process.argv[1]?.endsWith('flatCheck.ts') && process.argv.includes('--tracer')) {
  const outcomes = await runFlatTracerChecks()
  for (const o of outcomes) console.log(o.pass ? `PASS ${o.name}` : `FAIL ${o.name}: ${o.detail}`)
  console.log(`flatCallTracer: ${outcomes.filter((o) => o.pass).length}/${outcomes.length}`)
}
