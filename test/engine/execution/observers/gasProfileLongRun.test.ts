/**
 * A gas profile of a million steps is built while the run goes, never from kept steps: a Solidity
 * loop of about a million steps (its sources known, so every line change of every turn is a
 * boundary the profiler sees) profiles into a handful of functions and lines, the heap in use
 * during the run — sampled by a tracer beside it every 50,000 steps — stays within a bound a list
 * of the steps would pass, and the run takes a bounded multiple of the same run
 * under geth's callTracer.
 */
import { encodeFunctionData, type Abi, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDevnet, type Devnet } from '../../../../engine/chains/devnet/devnetChain.js'
import { gasProfileReport } from '../../../../engine/decoding/gasProfile/index.js'
import { executeCall } from '../../../../engine/execution/executeTransaction.js'
import { createGasProfile } from '../../../../engine/execution/observers/gasProfile.js'
import { executionContext, openRun, withCallDefaults } from '../../../../engine/run/index.js'
import { contractsOfBuildInfo } from '../../../../engine/sources/buildInfo.js'
import { createSourceIndex } from '../../../../engine/sources/sourceIndex.js'
import { createCallTracer } from '../../../../tracers/callTracer.js'
import type { Tracer } from '../../../../tracers/types.js'
import { compileStandard } from '../../../support/solcStandard.js'

const LOOP = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract L {
  mapping(address => uint256) public balanceOf;
  function loop(uint256 n) external returns (uint256 s) {
    for (uint256 i; i < n; i++) {
      s += _step(i);
      balanceOf[address(uint160(i % 4))] += 1;
    }
  }
  function _step(uint256 i) internal pure returns (uint256) { return i * 3; }
}
`
const LOOPER: Hex = '0x0000000000000000000000000000000000001000'
const FROM: Hex = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const TURNS = 4_000

let devnet: Devnet
const pair = compileStandard({ 'src/L.sol': LOOP })
const artifact = pair.output.contracts['src/L.sol']!.L

beforeAll(async () => {
  devnet = await createDevnet()
})
afterAll(() => devnet?.close())

/** the heap in use, read every `every` steps (and the steps counted) */
function heapSampler(every: number) {
  const s = { steps: 0, peak: 0 }
  const tracer: Tracer = {
    readsMemory: false,
    wantsStep: () => ++s.steps % every === 0,
    onOpcode: () => {
      s.peak = Math.max(s.peak, process.memoryUsage().heapUsed)
    },
    result: () => s,
  }
  return { tracer, s }
}

async function run(tracers: Tracer[]) {
  const call = { from: FROM, to: LOOPER, data: encodeFunctionData({ abi: artifact.abi as Abi, functionName: 'loop', args: [BigInt(TURNS)] }) }
  const stateOverrides = { [LOOPER]: { code: `0x${artifact.evm.deployedBytecode.object}` as Hex } }
  const { header, state } = await openRun(devnet, { block: { tag: 'latest' }, calls: [call], stateOverrides })
  const ctx = executionContext(devnet, header, state)
  const started = performance.now()
  await executeCall(ctx, withCallDefaults('trace', call, { blockGasLimit: ctx.block.gasLimit, gasCap: 500_000_000n }), { tracers, validation: false })
  return performance.now() - started
}

describe('a gas profile of a million steps', () => {
  it('is built while it runs: bounded heap, a few functions and lines, a bounded multiple of a callTracer run', async () => {
    const sources = createSourceIndex(contractsOfBuildInfo(pair))
    // warm both paths once (the first run compiles the interpreter's hot code)
    await run([createCallTracer({})])
    await run([createGasProfile({ sources })])

    // the fastest of three runs each, in alternation: what the machine's other work leaves out
    let callTracerMs = Number.POSITIVE_INFINITY
    let profileOnlyMs = Number.POSITIVE_INFINITY
    for (let i = 0; i < 3; i++) {
      callTracerMs = Math.min(callTracerMs, await run([createCallTracer({})]))
      profileOnlyMs = Math.min(profileOnlyMs, await run([createGasProfile({ sources })]))
    }
    const profile = createGasProfile({ sources })
    const sampler = heapSampler(50_000)
    const before = process.memoryUsage().heapUsed
    await run([profile, sampler.tracer])
    const report = await gasProfileReport(profile.result())

    expect(sampler.s.steps).toBeGreaterThan(1_000_000)
    // a million kept steps of even 32 bytes each would pass this bound
    expect(sampler.s.peak - before).toBeLessThan(24 * 2 ** 20)
    expect(report.functions.map((f) => `${f.contract}::${f.function}:${f.calls}`).sort()).toEqual([`L::_step:${TURNS}`, 'L::loop:1'])
    expect(report.lines.length).toBeLessThan(12)
    expect(report.folded.trim().split('\n')).toHaveLength(2)
    const body = report.lines.find((l) => l.line === 7)!
    expect(body.hits).toBeGreaterThanOrEqual(TURNS)
    expect(report.functions.reduce((s, f) => s + f.selfGas, 0)).toBe(report.executionGas)
    // the budget is 2×; a shared machine's noise is allowed for on top
    expect(profileOnlyMs).toBeLessThan(3 * callTracerMs)
  }, 60_000)
})
