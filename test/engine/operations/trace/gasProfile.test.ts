/**
 * Tracer `gasProfile` on the engine's trace service (in-process devnet, contracts put in place by
 * state overrides): the self gas of every function sums to the execution gas exactly; internal
 * functions, their calls and total gas agree with the call tree's INTERNAL frames of the same run
 * (recursion counted once); the lines' gas is the gas of the struct log's steps that map to them;
 * the folded stacks and the speedscope document carry the same gas; without sources, frames are
 * named by address and decoded function or selector.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv } from 'ajv'
import { encodeFunctionData, type Abi, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDevnet, type Devnet } from '../../../../engine/chains/devnet/devnetChain.js'
import type { GasProfile } from '../../../../engine/decoding/gasProfile/index.js'
import { contractsOfBuildInfo } from '../../../../engine/sources/buildInfo.js'
import { codeLines } from '../../../../engine/sources/sourceLines.js'
import type { TracerConfig } from '../../../../engine/types.js'
import { compileStandard, type StandardJsonPair } from '../../../support/solcStandard.js'
import { FROM, HELPER, PROFILED, PROFILED_SOURCES, traceProfiled } from './gasProfileFixture.js'

let devnet: Devnet
let pair: StandardJsonPair
const artifactOf = (of: StandardJsonPair, name: string) => of.output.contracts['src/Profiled.sol']![name]
const artifact = (name: string) => artifactOf(pair, name)
const abi = () => artifact('Profiled').abi as Abi

beforeAll(async () => {
  devnet = await createDevnet()
  pair = compileStandard(PROFILED_SOURCES)
})
afterAll(() => devnet?.close())

type Frame = { type: string; gasUsed: Hex; function?: { name: string }; calls?: Frame[] }

async function trace(withSources: boolean, data: Hex, tracerConfig: TracerConfig, compiled: StandardJsonPair = pair) {
  const result = await traceProfiled(devnet, compiled, data, tracerConfig, withSources)
  return result as Record<string, unknown> & { gasProfile: GasProfile }
}

const call = (functionName: string, args: unknown[] = []) => encodeFunctionData({ abi: abi(), functionName, args })
const fn = (p: GasProfile, name: string) => p.functions.find((f) => `${f.contract}::${f.function}` === name)

/** the INTERNAL frames of a call tree by name: how many, and the gas of the outermost ones */
function internalOf(root: Frame, name: string, inside = false): { calls: number; gas: bigint } {
  let calls = 0
  let gas = 0n
  for (const c of root.calls ?? []) {
    const self = c.type === 'INTERNAL' && c.function?.name === name
    if (self) calls++
    if (self && !inside) gas += BigInt(c.gasUsed)
    const below = internalOf(c, name, inside || self)
    calls += below.calls
    gas += below.gas
  }
  return { calls, gas }
}

function checkSums(p: GasProfile) {
  expect(p.functions.reduce((s, f) => s + f.selfGas, 0)).toBe(p.executionGas)
  const folded = p.folded
    .trim()
    .split('\n')
    .map((l) => Number(l.slice(l.lastIndexOf(' ') + 1)))
  expect(folded.reduce((a, b) => a + b, 0)).toBe(p.executionGas)
  const profile = p.speedscope.profiles[0]!
  expect(profile.weights.reduce((a, b) => a + b, 0)).toBe(p.executionGas)
  expect(profile.endValue).toBe(p.executionGas)
}

describe('gasProfile', () => {
  it('with sources: internal functions as the call tree finds them, recursion counted once, self gas summing to the execution gas', async () => {
    const r = await trace(true, call('run', [7n]), { gasProfile: true, callTree: { internal: true }, callTracer: {} })
    const p = r.gasProfile
    checkSums(p)
    const top = fn(p, 'Profiled::run')!
    expect(top).toMatchObject({ kind: 'external', calls: 1, totalGas: p.executionGas })
    const tree = r.callTree as Frame
    const fib = internalOf(tree, '_fib')
    // fib(7) enters _fib 41 times, nested
    expect(fib.calls).toBe(41)
    expect(fn(p, 'Profiled::_fib')).toMatchObject({ kind: 'internal', calls: 41, totalGas: Number(fib.gas) })
    const helper = tree
      .calls!.flatMap(function all(f: Frame): Frame[] {
        return [f, ...(f.calls ?? []).flatMap(all)]
      })
      .find((f) => f.type === 'STATICCALL')!
    expect(fn(p, 'Helper::twice')).toMatchObject({ kind: 'external', calls: 1, totalGas: Number(helper.gasUsed) })
    // the geth tracer asked for beside it is there, untouched
    expect((r.callTracer as { to: string }).to).toBe(PROFILED)
    expect(p.intrinsicGas).toBeGreaterThanOrEqual(21_000)
    expect(p.folded).toContain('Profiled::run;Profiled::_fib;Profiled::_fib ')
    expect(p.folded).toContain('Profiled::run;Helper::twice ')
  })

  it('a loop: each line carries the gas of the struct log steps that map to it, the loop body its repeated cost', async () => {
    const turns = 40
    const r = await trace(true, call('loop', [BigInt(turns)]), { gasProfile: true, structLogger: { disableMemory: true, disableStorage: true } })
    const p = r.gasProfile
    checkSums(p)
    const contract = contractsOfBuildInfo(pair).find((c) => c.name === 'Profiled')!
    const table = codeLines(contract, contract.runtime)
    const logs = (r.structLogger as { structLogs: { pc: number; gas: number; gasCost: number; depth: number }[] }).structLogs
    const expected = new Map<string, number>()
    logs.forEach((s, i) => {
      const id = table.lineAt[s.pc]!
      if (id < 0) return
      // a step's gas: the gas left before it less that before the next (the last: its own cost)
      const gas = i + 1 < logs.length ? s.gas - logs[i + 1]!.gas : s.gasCost
      const { file, line } = table.lines[id]!
      expected.set(`${file}:${line}`, (expected.get(`${file}:${line}`) ?? 0) + gas)
    })
    expect(Object.fromEntries(p.lines.map((l) => [`${l.file}:${l.line}`, l.gas]))).toEqual(Object.fromEntries(expected))
    const body = p.lines.find((l) => l.line === 17)!
    expect(body.file).toBe('src/Profiled.sol')
    expect(body.hits).toBeGreaterThanOrEqual(turns)
    expect(body.gas).toBeGreaterThan(turns * 20)
    expect(fn(p, 'Profiled::_square')).toMatchObject({ kind: 'internal', calls: turns })
    expect(p.lines[0]!.gas).toBeGreaterThanOrEqual(p.lines[p.lines.length - 1]!.gas)
  })

  it('a revert inside an internal function: the function is kept, the sums hold', async () => {
    const p = (await trace(true, call('fail'), { gasProfile: true })).gasProfile
    checkSums(p)
    expect(fn(p, 'Profiled::_boom')).toMatchObject({ kind: 'internal', calls: 1 })
  })

  it('without sources: external frames named by address and decoded function, else selector; no lines', async () => {
    const named = (await trace(false, call('transfer', [FROM, 3n]), { gasProfile: true })).gasProfile
    checkSums(named)
    expect(named.functions).toEqual([
      { contract: PROFILED, function: 'transfer', kind: 'external', calls: 1, selfGas: named.executionGas, totalGas: named.executionGas },
    ])
    expect(named.lines).toEqual([])
    const unnamed = (await trace(false, call('zzqUnnamed7x'), { gasProfile: true })).gasProfile
    expect(unnamed.functions.map((f) => f.function)).toEqual([call('zzqUnnamed7x').slice(0, 10)])
    const nested = (await trace(false, call('run', [3n]), { gasProfile: true })).gasProfile
    checkSums(nested)
    expect(nested.functions.map((f) => `${f.contract}::${f.kind}`).sort()).toEqual([`${HELPER}::external`, `${PROFILED}::external`])
  })

  it('optimized through via-IR: the sums hold, and internal functions agree with the call tree where the optimizer left them', async () => {
    const optimized = compileStandard(PROFILED_SOURCES, { optimizer: { enabled: true, runs: 200 }, viaIR: true })
    let compared = 0
    for (const data of [call('run', [6n]), call('loop', [12n]), call('fail')]) {
      const r = await trace(true, data, { gasProfile: true, callTree: { internal: true } }, optimized)
      checkSums(r.gasProfile)
      for (const f of r.gasProfile.functions.filter((f) => f.kind === 'internal')) {
        const inTree = internalOf(r.callTree as Frame, f.function)
        expect({ calls: f.calls, totalGas: f.totalGas }, f.function).toEqual({ calls: inTree.calls, totalGas: Number(inTree.gas) })
        compared += f.calls
      }
    }
    expect(compared).toBeGreaterThan(0)
  }, 60_000)

  it('the speedscope document validates against the file format, its frames naming the folded stacks', async () => {
    const p = (await trace(true, call('run', [5n]), { gasProfile: true })).gasProfile
    const schema = JSON.parse(readFileSync(join(import.meta.dirname, '../../../fixtures/speedscope/file-format.schema.json'), 'utf8'))
    const validate = new Ajv({ strict: false }).compile(schema)
    expect(validate(p.speedscope), JSON.stringify(validate.errors)).toBe(true)
    expect(validate({ ...p.speedscope, profiles: [{ type: 'sampled', unit: 'gas' }] })).toBe(false)
    const { frames } = p.speedscope.shared
    const stacks = p.speedscope.profiles[0]!.samples.map((s, i) => `${s.map((f) => frames[f]!.name).join(';')} ${p.speedscope.profiles[0]!.weights[i]}`)
    expect(`${stacks.join('\n')}\n`).toBe(p.folded)
  })
})
