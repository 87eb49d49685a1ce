/**
 * The lean step hook (engine/execution/leanStepHook.ts) patches a private method of ethereumjs.
 * These tests fail loudly if an ethereumjs upgrade moves it, and prove that the events it builds
 * carry, step for step, what ethereumjs' own hook gives (memory contents included: the lean hook's
 * is the live store, cut to the words in use) for a run with nested calls, memory growth, storage
 * refunds and a log.
 */
import type { InterpreterStep } from '@ethereumjs/evm'
import { bytesToHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { leanStepHookInstalled, setDirectStepHandler } from '../../../engine/execution/leanStepHook.js'
import { nestedCallVm, OUTER, runData } from './nestedCallVm.js'

type Seen = Record<string, unknown>

function snapshot(ev: InterpreterStep): Seen {
  return {
    pc: ev.pc,
    op: ev.opcode.name,
    code: ev.opcode.code,
    fee: ev.opcode.fee,
    dynamicFee: ev.opcode.dynamicFee,
    gasLeft: ev.gasLeft,
    gasRefund: ev.gasRefund,
    stack: [...ev.stack],
    depth: ev.depth,
    address: ev.address.toString(),
    codeAddress: ev.codeAddress.toString(),
    // the lean hook hands the whole live store: the memory in use is its first words, and
    // what lies past them must read as zeros (the adapter reads calls' and logs' data from it)
    memory: bytesToHex(ev.memory.subarray(0, Number(ev.memoryWordCount) * 32)),
    zerosPastWords: ev.memory.subarray(Number(ev.memoryWordCount) * 32).every((b) => b === 0),
    memoryWordCount: ev.memoryWordCount,
    hasState: typeof ev.stateManager?.getAccount === 'function',
  }
}

async function run(direct: boolean): Promise<{ steps: Seen[]; listenerCalls: number; returnValue: string }> {
  const vm = await nestedCallVm()
  const steps: Seen[] = []
  let listenerCalls = 0
  const events = vm.evm.events as unknown as { on(name: string, fn: (data: InterpreterStep, resolve: () => void) => void): void }
  events.on('step', (ev, resolve) => {
    listenerCalls++
    steps.push(snapshot(ev))
    resolve()
  })
  if (direct) setDirectStepHandler(vm.evm, (ev) => void steps.push(snapshot(ev)))
  const res = await vm.evm.runCall({
    to: OUTER,
    gasLimit: 1_000_000n,
    data: runData(),
  })
  expect(res.execResult.exceptionError).toBeUndefined()
  return { steps, listenerCalls, returnValue: bytesToHex(res.execResult.returnValue) }
}

describe('lean step hook', () => {
  it('is installed on the ethereumjs version in the lockfile', () => {
    expect(leanStepHookInstalled, 'ethereumjs Interpreter._runStepHook not found: leanStepHook.ts needs updating').toBe(true)
  })

  it('gives the same events as ethereumjs’ own hook, without going through the emitter', async () => {
    const stock = await run(false)
    const lean = await run(true)
    expect(stock.steps.length).toBeGreaterThan(200)
    expect(new Set(stock.steps.map((s) => s.depth))).toEqual(new Set([0, 1]))
    expect(stock.steps.some((s) => s.op === 'LOG1')).toBe(true)
    expect(stock.steps.some((s) => (s.gasRefund as bigint) > 0n)).toBe(true)
    expect(stock.listenerCalls).toBe(stock.steps.length)
    expect(lean.listenerCalls).toBe(0)
    expect(lean.returnValue).toBe(stock.returnValue)
    expect(lean.steps).toEqual(stock.steps)
    expect(lean.steps.every((s) => s.zerosPastWords === true)).toBe(true)
  })
})
