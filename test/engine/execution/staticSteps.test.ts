/**
 * `patches/@ethereumjs+evm+10.1.3.patch` (applied by `npm install`'s postinstall) runs opcodes of
 * static gas with a synchronous handler without a promise: ethereumjs' `runStep` was an async
 * function awaited once per opcode, and awaited the step hook inside it.
 * These tests fail if the patch is not applied (an upgrade of ethereumjs, or an install with
 * scripts off). They also fail if a patched run differs in anything from the stock path (the
 * patch keeps it as `runStepAsync`): results, gas, errors, logs and every step a tracer sees.
 * The programs cover a static opcode that runs out of gas, an invalid opcode, a bad jump, a stack
 * underflow, opcodes of dynamic gas between static ones, and a step hook that answers a promise.
 */
import type { InterpreterStep } from '@ethereumjs/evm'
import { createAddressFromString, hexToBytes } from '@ethereumjs/util'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { bytesToHex, type Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { setDirectStepHandler } from '../../../engine/execution/leanStepHook.js'
import { nestedCallVm, OUTER, runData } from './nestedCallVm.js'

interface Proto {
  runStep: (...a: unknown[]) => unknown
  runStepAsync?: (...a: unknown[]) => Promise<void>
}
const entry = createRequire(import.meta.url).resolve('@ethereumjs/evm')
const { Interpreter } = (await import(pathToFileURL(join(dirname(entry), '..', 'esm', 'interpreter.js')).href)) as { Interpreter: { prototype: Proto } }
const proto = Interpreter.prototype
const patched = proto.runStep

const RAW = createAddressFromString('0x00000000000000000000000000000000000000cc')

type Hook = 'none' | 'listener' | 'direct' | 'directAsync'
interface Case {
  name: string
  code?: Hex
  gasLimit: bigint
}

const CASES: Case[] = [
  { name: 'nested calls, memory, a log, a refund', gasLimit: 1_000_000n },
  // a loop of static opcodes (JUMPDEST PUSH1 0 POP PUSH1 0 JUMP): it ends out of gas on one of them
  { name: 'out of gas on a static opcode', code: '0x5b6000506000 56', gasLimit: 1_000n },
  { name: 'the invalid opcode', code: '0x6001600201fe', gasLimit: 100_000n },
  { name: 'a jump to no JUMPDEST', code: '0x600556', gasLimit: 100_000n },
  { name: 'a stack underflow on ADD', code: '0x600101', gasLimit: 100_000n },
  { name: 'a static opcode as the last of the code (no STOP)', code: '0x6001600201', gasLimit: 100_000n },
  // opcodes of dynamic gas (the stock path) among static ones: a gas handler fails (memory past
  // the gas; RETURNDATACOPY past the return data), answers (KECCAK256, MSTORE, RETURN, REVERT),
  // or awaits state (SSTORE, SLOAD)
  { name: 'MSTORE past the gas for its memory', code: '0x600163ffffffff52', gasLimit: 100_000n },
  { name: 'RETURNDATACOPY past the return data', code: '0x6001600060003e', gasLimit: 100_000n },
  { name: 'KECCAK256, MSTORE and RETURN', code: '0x602060002060005260206000f3', gasLimit: 100_000n },
  { name: 'SSTORE, SLOAD and RETURN', code: '0x602a60005560005460005260206000f3', gasLimit: 100_000n },
  { name: 'REVERT with data', code: '0x600160005260206000fd', gasLimit: 100_000n },
]

async function run(k: Case, hook: Hook): Promise<Record<string, unknown>> {
  const vm = await nestedCallVm()
  if (k.code) await vm.stateManager.putCode(RAW, hexToBytes(k.code.replace(/ /g, '') as Hex))
  const steps: unknown[] = []
  const seen = (ev: InterpreterStep) =>
    steps.push([ev.pc, ev.opcode.name, ev.gasLeft, ev.opcode.dynamicFee, ev.gasRefund, [...ev.stack], ev.depth, ev.memoryWordCount])
  if (hook !== 'none') {
    const events = vm.evm.events as unknown as { on(name: string, fn: (data: InterpreterStep, resolve: () => void) => void): void }
    events.on('step', (ev, resolve) => {
      seen(ev)
      resolve()
    })
  }
  if (hook === 'direct') setDirectStepHandler(vm.evm, (ev) => void seen(ev))
  // a handler that answers a promise at every step: the opcode must wait for it
  if (hook === 'directAsync') setDirectStepHandler(vm.evm, (ev) => Promise.resolve().then(() => void seen(ev)))
  const res = await vm.evm.runCall({
    to: k.code ? RAW : OUTER,
    gasLimit: k.gasLimit,
    data: k.code ? new Uint8Array() : runData(),
  })
  const r = res.execResult
  return {
    error: r.exceptionError?.error,
    gasUsed: r.executionGasUsed,
    gasRefund: r.gasRefund,
    returnValue: bytesToHex(r.returnValue),
    logs: (r.logs ?? []).map((l) => l.map((x) => (x instanceof Uint8Array ? bytesToHex(x) : (x as Uint8Array[]).map((t) => bytesToHex(t))))),
    steps,
  }
}

async function stock<T>(fn: () => Promise<T>): Promise<T> {
  proto.runStep = proto.runStepAsync!
  try {
    return await fn()
  } finally {
    proto.runStep = patched
  }
}

describe('static steps without a promise (the ethereumjs patch)', () => {
  it('is applied to the ethereumjs version in the lockfile', () => {
    expect(typeof proto.runStepAsync, 'patches/@ethereumjs+evm+*.patch not applied: run npm install (scripts on)').toBe('function')
    expect(patched.constructor.name).toBe('Function')
  })

  for (const k of CASES) {
    for (const hook of ['none', 'listener', 'direct', 'directAsync'] as const) {
      it(`${k.name}, step hook: ${hook}: the same as ethereumjs' stock path`, async () => {
        const theirs = await stock(() => run(k, hook))
        const ours = await run(k, hook)
        expect(ours).toEqual(theirs)
        if (hook !== 'none') expect((ours.steps as unknown[]).length).toBeGreaterThanOrEqual(2)
      })
    }
  }

  it('the cases reach the failures they are named for', async () => {
    const errors = await Promise.all(CASES.map((k) => run(k, 'none').then((r) => (r.error as string | undefined)?.replace(/ at 0x.*/, ''))))
    expect(errors).toEqual([
      undefined,
      'out of gas',
      'invalid opcode',
      'invalid JUMP',
      'stack underflow',
      undefined,
      'out of gas',
      'out of gas',
      undefined,
      undefined,
      'revert',
    ])
  })
})
