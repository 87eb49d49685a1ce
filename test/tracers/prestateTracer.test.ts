import { getContractAddress, keccak256, type Address, type Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { isEngineError } from '../../engine/platform/errors.js'
import { createPrestateTracer, EMPTY_CODE_HASH, parseDelegation } from '../../tracers/prestateTracer.js'
import { fakeState, fakeTx, step } from './fakeState.js'

const FROM = '0x00000000000000000000000000000000000000aa' as Address
const TO = '0x00000000000000000000000000000000000000bb' as Address
const COINBASE = '0x00000000000000000000000000000000000000cc' as Address
const OTHER = '0x00000000000000000000000000000000000000dd' as Address
const CODE = '0x6001600055' as Hex
const w = (n: number | bigint) => `0x${n.toString(16).padStart(64, '0')}` as Hex
const end = { gasUsed: 21000n, output: '0x' as Hex, reverted: false }

describe('prestateTracer default mode', () => {
  it('records from, to, coinbase and touched slots before the tx, with geth omission rules', async () => {
    const state = fakeState({
      [FROM]: { balance: 10n ** 18n, nonce: 5n },
      [TO]: { balance: 0n, nonce: 1n, code: CODE, storage: { [w(0)]: w(0), [w(1)]: w(7) } },
      [OTHER]: { balance: 3n },
    })
    const t = createPrestateTracer()
    await t.onTxStart!(fakeTx(state))
    await t.onOpcode!(step({ op: 'SLOAD', opcode: 0x54, stack: [1n] }))
    await t.onOpcode!(step({ op: 'SSTORE', opcode: 0x55, stack: [9n, 0n] }))
    await t.onOpcode!(step({ op: 'BALANCE', opcode: 0x31, stack: [BigInt(OTHER)] }))
    // the EVM changes state: pre values must not move
    state.accounts[FROM].nonce = 6n
    state.accounts[TO].storage![w(1)] = w(8)
    await t.onTxEnd!(end)
    const r = t.result() as Record<string, unknown>
    expect(Object.keys(r)).toEqual([FROM, TO, OTHER]) // sorted; empty coinbase dropped
    expect(r[FROM]).toEqual({ balance: '0xde0b6b3a7640000', nonce: 5 })
    expect(r[TO]).toEqual({
      balance: '0x0', // balance is always present in pre
      code: CODE,
      codeHash: keccak256(CODE),
      nonce: 1,
      storage: { [w(0)]: w(0), [w(1)]: w(7) }, // zero values kept in default mode
    })
    expect(Object.keys(r[TO] as object)).toEqual(['balance', 'code', 'codeHash', 'nonce', 'storage'])
    expect(r[OTHER]).toEqual({ balance: '0x3' })
  })

  it('keeps empty accounts with includeEmpty, drops code but keeps codeHash with disableCode', async () => {
    const state = fakeState({ [FROM]: { balance: 1n }, [TO]: { code: CODE } })
    const t = createPrestateTracer({ includeEmpty: true, disableCode: true, disableStorage: true })
    await t.onTxStart!(fakeTx(state))
    await t.onOpcode!(step({ op: 'SLOAD', opcode: 0x54, stack: [1n] }))
    await t.onTxEnd!(end)
    expect(t.result()).toEqual({
      [FROM]: { balance: '0x1' },
      [TO]: { balance: '0x0', codeHash: keccak256(CODE) },
      [COINBASE]: { balance: '0x0' },
    })
  })

  it('looks up CALL targets at stack[-2], CREATE and CREATE2 addresses, and 7702 delegation targets', async () => {
    const delegate = '0x00000000000000000000000000000000000000ee' as Address
    const eoa = '0x00000000000000000000000000000000000000ef' as Address
    const state = fakeState({
      [FROM]: { balance: 1n },
      [TO]: { code: CODE, nonce: 3n },
      [OTHER]: { balance: 2n },
      [eoa]: { nonce: 1n, code: `0xef0100${delegate.slice(2)}` },
      [delegate]: { code: CODE },
    })
    const t = createPrestateTracer({ includeEmpty: true })
    await t.onTxStart!(fakeTx(state, { fork: 'prague' }))
    // CALL(gas, addr, value, ...): addr is stack[-2]
    await t.onOpcode!(step({ op: 'CALL', opcode: 0xf1, stack: [0n, 0n, 0n, 0n, 0n, BigInt(OTHER), 100n] }))
    await t.onOpcode!(step({ op: 'STATICCALL', opcode: 0xfa, stack: [0n, 0n, 0n, 0n, BigInt(eoa), 100n] }))
    await t.onOpcode!(step({ op: 'CREATE', opcode: 0xf0, stack: [0n, 0n, 0n] }))
    const init = new Uint8Array([0x60, 0x00, 0x60, 0x00, 0xf3])
    const mem = new Uint8Array(64)
    mem.set(init, 32)
    await t.onOpcode!(step({ op: 'CREATE2', opcode: 0xf5, stack: [0x1234n, 5n, 32n, 0n], memory: mem }))
    await t.onTxEnd!(end)
    const r = t.result() as Record<string, unknown>
    const created = getContractAddress({ opcode: 'CREATE', from: TO, nonce: 3n }).toLowerCase()
    const created2 = getContractAddress({ opcode: 'CREATE2', from: TO, salt: w(0x1234), bytecode: '0x60006000f3' }).toLowerCase()
    expect(Object.keys(r).sort()).toEqual([FROM, TO, COINBASE, OTHER, eoa, delegate, created, created2].sort())
    expect(parseDelegation(`0xef0100${delegate.slice(2)}`)).toBe(delegate)
  })

  it('refuses diffMode with includeEmpty', () => {
    try {
      createPrestateTracer({ diffMode: true, includeEmpty: true })
      expect.unreachable()
    } catch (e) {
      expect(isEngineError(e) && e.code === 'VALIDATION_ERROR' && e.message).toBe('cannot use diffMode with includeEmpty')
    }
  })
})

describe('prestateTracer diffMode', () => {
  it('keeps only changed fields and slots, drops zero pre slots and unchanged accounts', async () => {
    const state = fakeState({
      [FROM]: { balance: 1000n, nonce: 1n },
      [TO]: { code: CODE, nonce: 1n, storage: { [w(1)]: w(5), [w(2)]: w(6), [w(3)]: w(0) } },
      [OTHER]: { balance: 9n },
    })
    const t = createPrestateTracer({ diffMode: true })
    await t.onTxStart!(fakeTx(state))
    for (const s of [1n, 2n, 3n]) await t.onOpcode!(step({ op: 'SLOAD', opcode: 0x54, stack: [s] }))
    await t.onOpcode!(step({ op: 'BALANCE', opcode: 0x31, stack: [BigInt(OTHER)] }))
    Object.assign(state.accounts[FROM], { balance: 900n, nonce: 2n })
    state.accounts[TO].storage = { [w(1)]: w(0), [w(2)]: w(6), [w(3)]: w(4) }
    state.accounts[COINBASE] = { balance: 50n }
    await t.onTxEnd!(end)
    expect(t.result()).toEqual({
      post: {
        [FROM]: { balance: '0x384', nonce: 2 },
        [TO]: { storage: { [w(3)]: w(4) } }, // slot 1 went to zero: absent from post
        [COINBASE]: { balance: '0x32' }, // empty before: post only
      },
      pre: {
        [FROM]: { balance: '0x3e8', nonce: 1 },
        [TO]: { balance: '0x0', code: CODE, codeHash: keccak256(CODE), nonce: 1, storage: { [w(1)]: w(5) } },
      },
    })
    expect(Object.keys(t.result() as object)).toEqual(['post', 'pre'])
  })

  it('shows a new contract in post only, and cleared code as "0x" with the empty code hash', async () => {
    const created = getContractAddress({ opcode: 'CREATE', from: FROM, nonce: 0n }).toLowerCase() as Address
    const designator = `0xef0100${OTHER.slice(2)}` as Hex
    const state = fakeState({ [FROM]: { balance: 100n, code: designator, nonce: 0n } })
    const t = createPrestateTracer({ diffMode: true })
    await t.onTxStart!(fakeTx(state, { to: null, createdAddress: created }))
    state.accounts[created] = { nonce: 1n }
    await t.onOpcode!(step({ op: 'SSTORE', opcode: 0x55, stack: [1n, 0n], address: created }))
    Object.assign(state.accounts[created], { code: CODE, storage: { [w(0)]: w(1) } })
    Object.assign(state.accounts[FROM], { nonce: 1n, code: '0x' })
    await t.onTxEnd!(end)
    expect(t.result()).toEqual({
      post: {
        [FROM]: { code: '0x', codeHash: EMPTY_CODE_HASH, nonce: 1 },
        [created]: { code: CODE, codeHash: keccak256(CODE), nonce: 1, storage: { [w(0)]: w(1) } },
      },
      pre: { [FROM]: { balance: '0x64', code: designator, codeHash: keccak256(designator) } },
    })
  })

  it('before Cancun a self-destructed account is pruned from post and kept in pre as is', async () => {
    const state = fakeState({ [FROM]: { balance: 100n }, [TO]: { balance: 7n, code: CODE, nonce: 1n, storage: { [w(0)]: w(0) } } })
    const t = createPrestateTracer({ diffMode: true })
    await t.onTxStart!(fakeTx(state, { fork: 'shanghai' }))
    await t.onOpcode!(step({ op: 'SLOAD', opcode: 0x54, stack: [0n] }))
    await t.onOpcode!(step({ op: 'SELFDESTRUCT', opcode: 0xff, stack: [BigInt(OTHER)] }))
    state.accounts[TO] = {}
    state.accounts[OTHER] = { balance: 7n }
    await t.onTxEnd!(end)
    expect(t.result()).toEqual({
      post: { [OTHER]: { balance: '0x7' } },
      pre: { [TO]: { balance: '0x7', code: CODE, codeHash: keccak256(CODE), nonce: 1, storage: { [w(0)]: w(0) } } },
    })
  })

  it('from Cancun a pre-existing contract that self-destructs stays in post with balance 0x0', async () => {
    const state = fakeState({ [FROM]: { balance: 100n }, [TO]: { balance: 7n, code: CODE, nonce: 1n } })
    const t = createPrestateTracer({ diffMode: true })
    await t.onTxStart!(fakeTx(state, { fork: 'cancun' }))
    await t.onOpcode!(step({ op: 'SELFDESTRUCT', opcode: 0xff, stack: [BigInt(OTHER)] }))
    state.accounts[TO].balance = 0n
    state.accounts[OTHER] = { balance: 7n }
    await t.onTxEnd!(end)
    expect(t.result()).toEqual({
      post: { [TO]: { balance: '0x0' }, [OTHER]: { balance: '0x7' } },
      pre: { [TO]: { balance: '0x7', code: CODE, codeHash: keccak256(CODE), nonce: 1 } },
    })
  })
})
