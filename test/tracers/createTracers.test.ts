import type { Address, Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { createTracers } from '../../tracers/createTracers.js'
import { fakeState, fakeTx, step } from './fakeState.js'

const FROM = '0x00000000000000000000000000000000000000aa' as Address
const TO = '0x00000000000000000000000000000000000000bb' as Address
const INPUT = `0xa9059cbb${'00'.repeat(64)}` as Hex

/** one CALL with a single PUSH1 step, fed to every tracer of the set */
async function runSet(set: ReturnType<typeof createTracers>) {
  const state = fakeState({ [FROM]: { balance: 10n }, [TO]: { code: '0x6000' } })
  const ctx = fakeTx(state, { input: INPUT })
  for (const t of set.tracers) await t.onTxStart?.(ctx)
  for (const t of set.tracers) await t.onEnter?.({ depth: 0, type: 'CALL', from: FROM, to: TO, input: INPUT, gas: 100_000n, value: 0n })
  for (const t of set.tracers) await t.onOpcode?.(step({ op: 'PUSH1', opcode: 0x60, pc: 0, gas: 78_000n }))
  for (const t of set.tracers) await t.onExit?.({ depth: 0, output: '0x', gasUsed: 3n, reverted: false })
  for (const t of set.tracers) await t.onTxEnd?.({ gasUsed: 21_003n, output: '0x', reverted: false })
  return set.result()
}

describe('createTracers', () => {
  it('defaults to callTracer when no tracer is selected', async () => {
    for (const cfg of [undefined, {}, { '4byteTracer': false }]) {
      const r = await runSet(createTracers(cfg))
      expect(Object.keys(r)).toEqual(['callTracer'])
      expect(r.callTracer).toMatchObject({ from: FROM, to: TO, type: 'CALL', gas: '0x186a0', gasUsed: '0x520b' })
    }
  })

  it('runs every selected tracer on the same hooks and keys results by name', async () => {
    const r = await runSet(
      createTracers({ callTracer: { onlyTopCall: true }, prestateTracer: { diffMode: false }, structLogger: { disableStack: true }, '4byteTracer': true }),
    )
    expect(Object.keys(r)).toEqual(['callTracer', 'prestateTracer', 'structLogger', '4byteTracer'])
    expect(r['4byteTracer']).toEqual({ totalIdentifiers: 1, identifiers: { '0xa9059cbb': { count: 1, dataSize: 64 } } })
    expect(r.structLogger).toEqual({ gas: 21003, failed: false, returnValue: '0x', structLogs: [{ pc: 0, op: 'PUSH1', gas: 78000, gasCost: 3, depth: 1 }] })
    expect(Object.keys(r.prestateTracer as object)).toEqual([FROM, TO])
  })

  it('rejects bad tracer options before anything runs', () => {
    expect(() => createTracers({ prestateTracer: { diffMode: true, includeEmpty: true } })).toThrow('cannot use diffMode with includeEmpty')
  })

  it('passes the struct log limit to the struct logger', async () => {
    const set = createTracers({ structLogger: {} }, { maxStructLogSteps: 1 })
    await expect(runSet(set).then(() => set.tracers[0].onOpcode!(step({ op: 'STOP', opcode: 0 })))).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' })
  })
})
