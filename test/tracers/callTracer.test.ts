/**
 * callTracer rules that the geth fixtures touch only lightly, driven by hook sequences exactly as
 * geth's EVM (and our adapter) emits them: revertReason texts (Error, Panic table, unknown panic,
 * custom error), failed CREATE without `to`, onlyTopCall skipping nested frames and their logs,
 * clearFailedLogs down a failed subtree, value omission for STATICCALL, JSON field order.
 */
import { encodeErrorResult, parseAbi, type Address, type Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { createCallTracer } from '../../tracers/callTracer.js'
import { unpackRevert } from '../../tracers/gethRevert.js'
import type { TxContext } from '../../tracers/types.js'

const A = '0x00000000000000000000000000000000000000aa' as Address
const B = '0x00000000000000000000000000000000000000bb' as Address
const C = '0x00000000000000000000000000000000000000cc' as Address

const txCtx = { gasLimit: 100_000n } as TxContext

const panic = (code: bigint): Hex => encodeErrorResult({ abi: parseAbi(['error Panic(uint256)']), errorName: 'Panic', args: [code] })

describe('callTracer', () => {
  it('decodes revert reasons as geth’s abi.UnpackRevert', () => {
    expect(unpackRevert(encodeErrorResult({ abi: parseAbi(['error Error(string)']), errorName: 'Error', args: ['no way'] }))).toBe('no way')
    expect(unpackRevert(panic(0x11n))).toBe('arithmetic underflow or overflow')
    expect(unpackRevert(panic(0x01n))).toBe('assert(false)')
    expect(unpackRevert(panic(0x99n))).toBe('unknown panic code: 0x99')
    expect(unpackRevert(encodeErrorResult({ abi: parseAbi(['error Custom(uint256)']), errorName: 'Custom', args: [1n] }))).toBeUndefined()
    // a truncated Error(string) does not decode
    expect(unpackRevert('0x08c379a00000000000000000000000000000000000000000000000000000000000000020')).toBeUndefined()
  })

  it('keeps revert output and reason, drops output of other errors, and a failed CREATE loses `to`', () => {
    const t = createCallTracer()
    t.onTxStart!(txCtx)
    t.onEnter!({ depth: 0, type: 'CALL', from: A, to: B, input: '0x', gas: 79_000n, value: 0n })
    t.onEnter!({ depth: 1, type: 'CREATE', from: B, to: C, input: '0x6000', gas: 5_000n, value: 1n })
    t.onExit!({ depth: 1, output: '0x', gasUsed: 5_000n, error: 'out of gas', reverted: true })
    t.onEnter!({ depth: 1, type: 'STATICCALL', from: B, to: C, input: '0x01', gas: 4_000n, value: undefined })
    t.onExit!({ depth: 1, output: panic(0x12n), gasUsed: 300n, error: 'execution reverted', reverted: true })
    t.onExit!({ depth: 0, output: '0xdead', gasUsed: 1n, error: 'invalid opcode: INVALID', reverted: true })
    t.onTxEnd!({ gasUsed: 100_000n, output: '0xdead', error: 'invalid opcode: INVALID', reverted: true })
    const r = t.result()
    expect(Object.keys(r)).toEqual(['from', 'gas', 'gasUsed', 'to', 'input', 'error', 'calls', 'value', 'type'])
    expect(r).toMatchObject({ gas: '0x186a0', gasUsed: '0x186a0', error: 'invalid opcode: INVALID' })
    expect(r.output).toBeUndefined()
    expect(r.calls![0]).toEqual({ from: B, gas: '0x1388', gasUsed: '0x1388', input: '0x6000', error: 'out of gas', value: '0x1', type: 'CREATE' })
    expect(r.calls![1]).toEqual({
      from: B,
      gas: '0xfa0',
      gasUsed: '0x12c',
      to: C,
      input: '0x01',
      output: panic(0x12n),
      error: 'execution reverted',
      revertReason: 'division or modulo by zero',
      type: 'STATICCALL',
    })
  })

  it('onlyTopCall records no sub-calls and no logs emitted below the top frame', () => {
    const t = createCallTracer({ onlyTopCall: true, withLog: true })
    t.onTxStart!(txCtx)
    t.onEnter!({ depth: 0, type: 'CALL', from: A, to: B, input: '0x', gas: 1n, value: 0n })
    t.onLog!({ address: B, topics: [], data: '0x01', depth: 0, index: 0 })
    t.onEnter!({ depth: 1, type: 'CALL', from: B, to: C, input: '0x', gas: 1n, value: 0n })
    t.onLog!({ address: C, topics: [], data: '0x02', depth: 1, index: 1 })
    t.onExit!({ depth: 1, output: '0x', gasUsed: 0n, reverted: false })
    t.onLog!({ address: B, topics: [], data: '0x03', depth: 0, index: 2 })
    t.onExit!({ depth: 0, output: '0x', gasUsed: 0n, reverted: false })
    t.onTxEnd!({ gasUsed: 21_000n, output: '0x', reverted: false })
    const r = t.result()
    expect(r.calls).toBeUndefined()
    // position counts recorded sub-calls only: none under onlyTopCall (geth; Anvil deviates §5.4)
    expect(r.logs!.map((l) => [l.data, l.index, l.position])).toEqual([
      ['0x01', '0x0', '0x0'],
      ['0x03', '0x2', '0x0'],
    ])
  })

  it('clears the logs of a failed frame and of its whole subtree, keeps its siblings’', () => {
    const t = createCallTracer({ withLog: true })
    t.onTxStart!(txCtx)
    t.onEnter!({ depth: 0, type: 'CALL', from: A, to: B, input: '0x', gas: 1n, value: 0n })
    t.onEnter!({ depth: 1, type: 'CALL', from: B, to: C, input: '0x', gas: 1n, value: 0n })
    t.onEnter!({ depth: 2, type: 'DELEGATECALL', from: C, to: A, input: '0x', gas: 1n, value: 0n })
    t.onLog!({ address: C, topics: ['0x01'], data: '0x', depth: 2, index: 0 })
    t.onExit!({ depth: 2, output: '0x', gasUsed: 0n, reverted: false })
    t.onExit!({ depth: 1, output: '0x', gasUsed: 0n, error: 'execution reverted', reverted: true })
    t.onLog!({ address: B, topics: [], data: '0x', depth: 0, index: 0 })
    t.onExit!({ depth: 0, output: '0x', gasUsed: 0n, reverted: false })
    t.onTxEnd!({ gasUsed: 30_000n, output: '0x', reverted: false })
    const r = t.result()
    expect(r.calls![0]!.calls![0]!.logs).toBeUndefined()
    expect(r.calls![0]!.calls![0]!.value).toBe('0x0')
    expect(r.logs).toEqual([{ address: B, topics: [], data: '0x', index: '0x0', position: '0x1' }])
  })
})
