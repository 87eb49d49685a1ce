import type { Address, Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { isEngineError } from '../../engine/platform/errors.js'
import { createFourByteTracer } from '../../tracers/fourByteTracer.js'
import { createStepTracer } from '../../engine/operations/simulation/stepTracer.js'
import { createStructLogger, memoryWords } from '../../tracers/structLogger.js'
import { fakeState, fakeTx, step } from './fakeState.js'

const TO = '0x00000000000000000000000000000000000000bb' as Address
const w = (n: number | bigint) => `0x${n.toString(16).padStart(64, '0')}`
const mem = (...bytes: [number, number][]) => {
  const m = new Uint8Array(64)
  for (const [i, b] of bytes) m[i] = b
  return m
}

describe('structLogger', () => {
  it('prints geth v1.17 fields: minimal-hex stack, 0x memory words, cumulative storage at SLOAD/SSTORE only', async () => {
    const state = fakeState({ [TO]: { storage: { [w(1) as Hex]: '0x2a' } } })
    const t = createStructLogger()
    await t.onTxStart!(fakeTx(state))
    await t.onOpcode!(step({ pc: 0, op: 'PUSH1', opcode: 0x60, gas: 100n, cost: 3n }))
    await t.onOpcode!(step({ pc: 2, op: 'SLOAD', opcode: 0x54, stack: [1n], memory: mem([31, 0x80]) }))
    await t.onOpcode!(step({ pc: 3, op: 'SSTORE', opcode: 0x55, stack: [0x60n, 2n], refund: 4800n }))
    await t.onOpcode!(step({ pc: 4, op: 'STOP', opcode: 0x00, stack: [0n], error: 'out of gas' }))
    await t.onExit!({ depth: 0, output: '0x', gasUsed: 50n, reverted: false })
    await t.onTxEnd!({ gasUsed: 21050n, output: '0x', reverted: false })
    const r = t.result()
    expect(r.gas).toBe(21050)
    expect(r.failed).toBe(false)
    expect(r.returnValue).toBe('0x')
    expect(r.structLogs[0]).toEqual({ pc: 0, op: 'PUSH1', gas: 100, gasCost: 3, depth: 1, stack: [] })
    expect(Object.keys(r.structLogs[1])).toEqual(['pc', 'op', 'gas', 'gasCost', 'depth', 'stack', 'memory', 'storage'])
    expect(r.structLogs[1].memory).toEqual([w(0x80), w(0)])
    expect(r.structLogs[1].storage).toEqual({ [w(1)]: w(0x2a) })
    // cumulative: the slot read before stays, the written one shows its new value
    expect(r.structLogs[2].storage).toEqual({ [w(1)]: w(0x2a), [w(2)]: w(0x60) })
    expect(r.structLogs[2].stack).toEqual(['0x60', '0x2'])
    expect(r.structLogs[2].refund).toBe(4800)
    expect(r.structLogs[3]).toEqual({ pc: 4, op: 'STOP', gas: 1000, gasCost: 3, depth: 1, error: 'out of gas', stack: ['0x0'] })
  })

  it('returns revert data only for a revert, "0x" for other failures', async () => {
    for (const [error, expected] of [
      ['execution reverted', '0xdead'],
      ['invalid opcode: INVALID', '0x'],
    ] as const) {
      const t = createStructLogger()
      await t.onTxStart!(fakeTx(fakeState({})))
      await t.onExit!({ depth: 1, output: '0xbeef', gasUsed: 1n, reverted: true, error: 'out of gas' })
      await t.onExit!({ depth: 0, output: '0xdead', gasUsed: 1n, reverted: true, error })
      await t.onTxEnd!({ gasUsed: 30000n, output: '0xdead', reverted: true, error })
      expect(t.result()).toEqual({ gas: 30000, failed: true, returnValue: expected, structLogs: [] })
    }
  })

  it('honours disableStack/disableMemory/disableStorage and enableReturnData', async () => {
    const t = createStructLogger({ disableStack: true, disableMemory: true, disableStorage: true, enableReturnData: true })
    await t.onTxStart!(fakeTx(fakeState({})))
    await t.onOpcode!(step({ op: 'SLOAD', opcode: 0x54, stack: [1n], memory: mem([0, 1]), returnData: new Uint8Array([0xab]) }))
    expect(t.result().structLogs[0]).toEqual({ pc: expect.any(Number), op: 'SLOAD', gas: 1000, gasCost: 3, depth: 1, returnData: '0xab' })
  })

  it('cleanStructLogs keeps every step but memory only on change and storage only for the touched slot', async () => {
    const t = createStructLogger({ cleanStructLogs: true })
    await t.onTxStart!(fakeTx(fakeState({})))
    const m1 = mem([0, 1])
    await t.onOpcode!(step({ op: 'MSTORE', opcode: 0x52, memory: new Uint8Array(0) }))
    await t.onOpcode!(step({ op: 'PUSH1', opcode: 0x60, memory: m1 }))
    await t.onOpcode!(step({ op: 'PUSH1', opcode: 0x60, memory: Uint8Array.from(m1) }))
    await t.onOpcode!(step({ op: 'SSTORE', opcode: 0x55, stack: [5n, 1n], memory: m1 }))
    await t.onOpcode!(step({ op: 'SSTORE', opcode: 0x55, stack: [6n, 2n], memory: m1 }))
    await t.onOpcode!(step({ op: 'CALL', opcode: 0xf1, depth: 2, memory: new Uint8Array(0) }))
    const logs = t.result().structLogs
    expect(logs.map((l) => l.memory)).toEqual([undefined, [`0x01${'0'.repeat(62)}`, w(0)], undefined, undefined, undefined, []])
    expect(logs[3].storage).toEqual({ [w(1)]: w(5) })
    expect(logs[4].storage).toEqual({ [w(2)]: w(6) })
    expect(logs.every((l) => !('refund' in l) && !('error' in l))).toBe(true)
  })

  it('shares unchanged memory between steps and refuses past maxSteps with a suggestion', async () => {
    const t = createStructLogger({}, { maxSteps: 3 })
    await t.onTxStart!(fakeTx(fakeState({})))
    const m = mem([1, 2])
    await t.onOpcode!(step({ op: 'PUSH1', opcode: 0x60, memory: m }))
    await t.onOpcode!(step({ op: 'PUSH1', opcode: 0x60, memory: m }))
    await t.onOpcode!(step({ op: 'PUSH1', opcode: 0x60, memory: m }))
    let err: unknown
    try {
      await t.onOpcode!(step({ op: 'PUSH1', opcode: 0x60, memory: m }))
    } catch (e) {
      err = e
    }
    expect(isEngineError(err) && err.code).toBe('PAYLOAD_TOO_LARGE')
    expect((err as { suggestion: string }).suggestion).toMatch(/cleanStructLogs/)
    expect(() => t.result()).toThrow(/3 steps/)
  })

  it('renders memory as 32-byte words', () => {
    expect(memoryWords(new Uint8Array([0xff, ...new Array(31).fill(0), 0x01]))).toEqual([`0xff${'0'.repeat(62)}`, `0x01${'0'.repeat(62)}`])
  })
})

describe('fourByteTracer', () => {
  it('counts CALL-family selectors with the first dataSize, skipping creates, short inputs and precompiles', async () => {
    const t = createFourByteTracer()
    await t.onTxStart!(fakeTx(fakeState({})))
    const base = { from: TO, to: TO, gas: 1n, value: 0n }
    await t.onEnter!({ ...base, depth: 0, type: 'CALL', input: `0xa9059cbb${'00'.repeat(64)}` as Hex })
    await t.onEnter!({ ...base, depth: 1, type: 'DELEGATECALL', input: '0xA9059CBB' as Hex })
    await t.onEnter!({ ...base, depth: 1, type: 'STATICCALL', input: `0x70a08231${'00'.repeat(32)}` as Hex })
    await t.onEnter!({ ...base, depth: 1, type: 'CREATE', input: '0x60806040' as Hex })
    await t.onEnter!({ ...base, depth: 1, type: 'CALL', input: '0x123456' as Hex })
    await t.onEnter!({ ...base, depth: 1, type: 'STATICCALL', to: '0x0000000000000000000000000000000000000002', input: '0xdeadbeef' as Hex })
    expect(t.result()).toEqual({
      totalIdentifiers: 2,
      identifiers: { '0x70a08231': { count: 1, dataSize: 32 }, '0xa9059cbb': { count: 2, dataSize: 64 } },
    })
  })
})

describe('stepTrace (simulate shape B)', () => {
  it('reports storage changes by before/after and memory writes with the writing step', async () => {
    const state = fakeState({ [TO]: { storage: { [w(1) as Hex]: '0x5', [w(2) as Hex]: '0x7' } } })
    const t = createStepTracer({ enableMemory: true, enableStorage: true })
    await t.onTxStart!(fakeTx(state))
    // step 0: MSTORE(offset 0x20, value 0xff)
    await t.onOpcode!(step({ op: 'MSTORE', opcode: 0x52, stack: [0xffn, 0x20n] }))
    // step 1: SSTORE slot 1 := 9 ; memory now shows the write
    await t.onOpcode!(step({ op: 'SSTORE', opcode: 0x55, stack: [9n, 1n], memory: mem([63, 0xff]) }))
    state.accounts[TO].storage![w(1) as Hex] = '0x9'
    // step 2: SLOAD slot 2 (unchanged); step 3: STATICCALL writing 2 of 4 return bytes at 0x00
    await t.onOpcode!(step({ op: 'SLOAD', opcode: 0x54, stack: [2n], memory: mem([63, 0xff]) }))
    await t.onOpcode!(step({ op: 'STATICCALL', opcode: 0xfa, stack: [4n, 0n, 0n, 0n, 0n, 100n], memory: mem([63, 0xff]) }))
    await t.onOpcode!(step({ op: 'STOP', opcode: 0x00, depth: 2 })) // callee frame
    await t.onOpcode!(step({ op: 'POP', opcode: 0x50, stack: [1n], memory: mem([0, 0xaa], [1, 0xbb], [63, 0xff]), returnData: new Uint8Array([0xaa, 0xbb]) }))
    await t.onTxEnd!({ gasUsed: 1n, output: '0x', reverted: false })
    const r = t.result()
    expect(r.steps).toHaveLength(6)
    expect(r.steps[1].storage).toEqual({ [w(1)]: w(9) })
    expect(r.storageChanges).toEqual({ [TO]: { [w(1)]: { before: w(5), after: w(9) } } })
    expect(r.memoryChanges).toEqual([
      { step: 0, offset: '0x20', data: `0x${'00'.repeat(31)}ff` },
      { step: 3, offset: '0x0', data: '0xaabb' },
    ])
  })
})

describe('structLogger output budget', () => {
  it('refuses once printed memory would pass maxBytes, even with few steps', async () => {
    const t = createStructLogger({}, { maxSteps: 1000, maxBytes: 100_000 })
    await t.onTxStart!(fakeTx(fakeState({})))
    const big = new Uint8Array(32 * 1024) // 1024 words ≈ 70 kB per printed step
    await t.onOpcode!(step({ op: 'PUSH1', opcode: 0x60, memory: big }))
    // the logger answers synchronously (a promise only for an SLOAD's read): the refusal is thrown
    const refusal = (() => {
      try {
        t.onOpcode!(step({ op: 'PUSH1', opcode: 0x60, memory: big }))
      } catch (e) {
        return e
      }
    })()
    expect(refusal).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      details: { maxStructLogBytes: 100_000 },
      suggestion: expect.stringContaining('disableMemory'),
    })
    // the same steps fit when memory is not printed
    const lean = createStructLogger({ disableMemory: true }, { maxSteps: 1000, maxBytes: 100_000 })
    await lean.onTxStart!(fakeTx(fakeState({})))
    for (let i = 0; i < 10; i++) await lean.onOpcode!(step({ op: 'PUSH1', opcode: 0x60, memory: big }))
    expect(lean.result().structLogs).toHaveLength(10)
  })
})
