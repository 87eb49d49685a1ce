import { Account, KECCAK256_NULL, bytesToHex, createAddressFromString, hexToBytes } from '@ethereumjs/util'
import type { Hex } from 'viem'
import { keccak256 } from 'viem'
import { describe, expect, it } from 'vitest'
import { isEngineError } from '../../../engine/platform/errors.js'
import { MemoryStateSource, OverlayStateManager, PLACEHOLDER_STATE_ROOT, type AccountRead, type StateSource } from '../../../engine/state/index.js'

const A = '0x00000000000000000000000000000000000000aa' as Hex
const B = '0x00000000000000000000000000000000000000bb' as Hex
const addrA = createAddressFromString(A)
const addrB = createAddressFromString(B)
const slot = (n: number) => hexToBytes(`0x${n.toString(16).padStart(64, '0')}`)
const slotHex = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex
const val = (n: number) => (n === 0 ? new Uint8Array(0) : hexToBytes(`0x${n.toString(16).padStart(2, '0')}`))
const num = (b: Uint8Array) => (b.length ? BigInt(bytesToHex(b)) : 0n)

function genesis() {
  return MemoryStateSource.fromAlloc({
    [A]: { balance: 100n, nonce: 1n, code: '0x6001', storage: { '0x1': '0x11', '0x2': '0x22' } },
    [B]: { balance: 5n },
  })
}

/** counts what reaches the source, to prove reads are remembered for the request */
function counting(src: StateSource) {
  const n = { account: 0, code: 0, storage: 0 }
  const s: StateSource = {
    getAccount: (a) => (n.account++, src.getAccount(a)),
    getCode: (a) => (n.code++, src.getCode(a)),
    getStorage: (a, k) => (n.storage++, src.getStorage(a, k)),
    getMany: (r: AccountRead[]) => src.getMany(r),
  }
  return { s, n }
}

describe('OverlayStateManager checkpoints', () => {
  it('reads fall through to the source and are remembered', async () => {
    const { s, n } = counting(genesis())
    const st = new OverlayStateManager(s)
    expect((await st.getAccount(addrA))!.balance).toBe(100n)
    expect((await st.getAccount(addrA))!.nonce).toBe(1n)
    expect(num(await st.getStorage(addrA, slot(1)))).toBe(0x11n)
    expect(num(await st.getStorage(addrA, slot(1)))).toBe(0x11n)
    expect(bytesToHex(await st.getCode(addrA))).toBe('0x6001')
    expect(await st.getCodeSize(addrA)).toBe(2)
    expect(n).toEqual({ account: 1, code: 1, storage: 1 })
    expect(await st.getAccount(createAddressFromString(`0x${'11'.repeat(20)}`))).toBeUndefined()
  })

  it('nested commit keeps inner writes, a revert of the outer frame undoes them all', async () => {
    const st = new OverlayStateManager(genesis())
    await st.checkpoint() // tx
    await st.putStorage(addrA, slot(1), val(0x12))
    await st.checkpoint() // call
    await st.putStorage(addrA, slot(1), val(0x13))
    await st.putStorage(addrA, slot(3), val(0x33))
    await st.putCode(addrB, hexToBytes('0x60ff'))
    await st.modifyAccountFields(addrB, { balance: 7n })
    await st.commit()
    expect(num(await st.getStorage(addrA, slot(1)))).toBe(0x13n)
    expect(num(await st.getStorage(addrA, slot(3)))).toBe(0x33n)
    expect((await st.getAccount(addrB))!.balance).toBe(7n)
    await st.revert()
    expect(num(await st.getStorage(addrA, slot(1)))).toBe(0x11n)
    expect(num(await st.getStorage(addrA, slot(3)))).toBe(0n)
    expect((await st.getCode(addrB)).length).toBe(0)
    const b = (await st.getAccount(addrB))!
    expect(b.balance).toBe(5n)
    expect(bytesToHex(b.codeHash)).toBe(bytesToHex(KECCAK256_NULL))
    expect(st.flatten().accounts.size).toBe(0)
    expect(st.flatten().storage.size).toBe(0)
  })

  it('a reverted inner frame is undone while the outer frame keeps its writes', async () => {
    const st = new OverlayStateManager(genesis())
    await st.checkpoint()
    await st.putStorage(addrA, slot(2), val(0x23))
    await st.modifyAccountFields(addrA, { nonce: 2n })
    await st.checkpoint()
    await st.putStorage(addrA, slot(2), val(0))
    await st.modifyAccountFields(addrA, { nonce: 9n, balance: 1n })
    await st.revert()
    await st.commit()
    expect(num(await st.getStorage(addrA, slot(2)))).toBe(0x23n)
    const a = (await st.getAccount(addrA))!
    expect([a.nonce, a.balance]).toEqual([2n, 100n])
    const w = st.flatten()
    expect(w.accounts.get(A)).toMatchObject({ nonce: 2n, balance: 100n })
    expect([...w.storage.get(A)!.slots.entries()].map(([k, v]) => [k, num(v)])).toEqual([[slotHex(2), 0x23n]])
  })

  it('deleteAccount removes account, code and storage; a revert restores all three', async () => {
    const st = new OverlayStateManager(genesis())
    await st.checkpoint()
    await st.putStorage(addrA, slot(5), val(0x55))
    await st.checkpoint()
    await st.deleteAccount(addrA)
    expect(await st.getAccount(addrA)).toBeUndefined()
    expect((await st.getCode(addrA)).length).toBe(0)
    expect(num(await st.getStorage(addrA, slot(1)))).toBe(0n)
    expect(num(await st.getStorage(addrA, slot(5)))).toBe(0n)
    // recreated in the same frame: fresh account, no code, empty storage (not the source's)
    await st.putAccount(addrA, new Account(0n, 3n))
    expect(num(await st.getStorage(addrA, slot(2)))).toBe(0n)
    expect((await st.getCode(addrA)).length).toBe(0)
    await st.revert()
    const a = (await st.getAccount(addrA))!
    expect([a.nonce, a.balance]).toEqual([1n, 100n])
    expect(bytesToHex(await st.getCode(addrA))).toBe('0x6001')
    expect(num(await st.getStorage(addrA, slot(1)))).toBe(0x11n)
    expect(num(await st.getStorage(addrA, slot(5)))).toBe(0x55n)
    await st.commit()
  })

  it('codeWritten names the code written and kept: creations, deletions, not what a revert undid', async () => {
    const st = new OverlayStateManager(genesis())
    expect(st.codeWritten()).toEqual([])
    await st.checkpoint()
    await st.checkpoint()
    await st.putCode(addrB, hexToBytes('0x6000')) // a creation in a frame that reverts
    await st.revert()
    expect(st.codeWritten()).toEqual([])
    await st.checkpoint()
    await st.putCode(addrB, hexToBytes('0x6000')) // a creation that stays
    await st.commit()
    await st.deleteAccount(addrA) // a self-destruct
    await st.commit()
    expect(st.codeWritten().sort()).toEqual([A, B])
    // a copy starts from the net writes
    expect(st.shallowCopy().codeWritten().sort()).toEqual([A, B])
  })

  it('clearStorage hides source slots and is undone by a revert', async () => {
    const st = new OverlayStateManager(genesis())
    await st.checkpoint()
    await st.putStorage(addrA, slot(7), val(0x77))
    await st.checkpoint()
    await st.clearStorage(addrA)
    await st.putStorage(addrA, slot(8), val(0x88))
    expect(num(await st.getStorage(addrA, slot(1)))).toBe(0n)
    expect(num(await st.getStorage(addrA, slot(7)))).toBe(0n)
    expect(num(await st.getStorage(addrA, slot(8)))).toBe(0x88n)
    await st.revert()
    expect(num(await st.getStorage(addrA, slot(1)))).toBe(0x11n)
    expect(num(await st.getStorage(addrA, slot(7)))).toBe(0x77n)
    expect(num(await st.getStorage(addrA, slot(8)))).toBe(0n)
    await st.checkpoint()
    await st.clearStorage(addrA)
    await st.commit()
    await st.commit()
    expect(num(await st.getStorage(addrA, slot(2)))).toBe(0n)
    expect(st.flatten().storage.get(A)!.cleared).toBe(true)
  })

  it('putCode sets the code hash; commit/revert without a checkpoint is an EngineError', async () => {
    const st = new OverlayStateManager(MemoryStateSource.empty())
    await st.putCode(addrB, hexToBytes('0x6000'))
    expect(bytesToHex((await st.getAccount(addrB))!.codeHash)).toBe(keccak256('0x6000'))
    await expect(st.commit()).rejects.toSatisfy(isEngineError)
    await expect(st.revert()).rejects.toSatisfy(isEngineError)
  })

  it('original storage is the value at tx start until the cache is cleared', async () => {
    const st = new OverlayStateManager(genesis())
    await st.checkpoint()
    await st.putStorage(addrA, slot(1), val(0x12))
    await st.putStorage(addrA, slot(1), val(0x13))
    expect(num(await st.originalStorageCache.get(addrA, slot(1)))).toBe(0x11n)
    expect(num(await st.originalStorageCache.get(addrA, slot(9)))).toBe(0n)
    await st.commit()
    st.originalStorageCache.clear() // runTx does this after each tx
    expect(num(await st.originalStorageCache.get(addrA, slot(1)))).toBe(0x13n)
  })

  it('original storage survives clearStorage and deleteAccount within the tx', async () => {
    const st = new OverlayStateManager(genesis())
    await st.checkpoint()
    await st.putStorage(addrA, slot(2), val(0x24))
    await st.clearStorage(addrA)
    await st.putStorage(addrA, slot(1), val(0x15))
    expect(num(await st.originalStorageCache.get(addrA, slot(1)))).toBe(0x11n)
    expect(num(await st.originalStorageCache.get(addrA, slot(2)))).toBe(0x22n)
    await st.deleteAccount(addrA)
    expect(num(await st.originalStorageCache.get(addrA, slot(1)))).toBe(0x11n)
    await st.commit()
    st.originalStorageCache.clear()
    expect(num(await st.originalStorageCache.get(addrA, slot(1)))).toBe(0n)
  })

  it('state root is a fixed placeholder, never a throw', async () => {
    const st = new OverlayStateManager(genesis())
    const root = await st.getStateRoot()
    expect(root.length).toBe(32)
    expect(bytesToHex(root)).toBe(bytesToHex(PLACEHOLDER_STATE_ROOT))
    expect(await st.hasStateRoot(root)).toBe(true)
    await expect(st.setStateRoot(new Uint8Array(32))).rejects.toSatisfy(isEngineError)
  })
})

describe('OverlayStateManager overrides', () => {
  it('state replaces all storage: unlisted slots read zero, not the source', async () => {
    const st = new OverlayStateManager(genesis())
    await st.applyOverrides({ [A]: { state: { [slotHex(2)]: slotHex(0x99) } } })
    expect(num(await st.getStorage(addrA, slot(1)))).toBe(0n)
    expect(num(await st.getStorage(addrA, slot(2)))).toBe(0x99n)
    // overrides are the base: a revert does not undo them
    await st.checkpoint()
    await st.putStorage(addrA, slot(2), val(1))
    await st.revert()
    expect(num(await st.getStorage(addrA, slot(2)))).toBe(0x99n)
    // the source value before the request stays readable
    expect(num(await st.sourceStorage(A, slotHex(1)))).toBe(0x11n)
  })

  it('stateDiff patches: other slots still come from the source', async () => {
    const st = new OverlayStateManager(genesis())
    await st.applyOverrides({ [A]: { stateDiff: { [slotHex(2)]: slotHex(0), '0x3': '0x1234' } } })
    expect(num(await st.getStorage(addrA, slot(1)))).toBe(0x11n)
    expect(num(await st.getStorage(addrA, slot(2)))).toBe(0n)
    expect(num(await st.getStorage(addrA, slot(3)))).toBe(0x1234n)
  })

  it('balance, nonce and code overrides; a new account is created', async () => {
    const st = new OverlayStateManager(genesis())
    const C = '0x00000000000000000000000000000000000000cc' as Hex
    await st.applyOverrides({ [A]: { balance: 1n }, [C]: { nonce: 4n, code: '0x60016002' } })
    const a = (await st.getAccount(addrA))!
    expect([a.nonce, a.balance]).toEqual([1n, 1n])
    expect(bytesToHex(await st.getCode(addrA))).toBe('0x6001')
    const c = (await st.getAccount(createAddressFromString(C)))!
    expect([c.nonce, c.balance]).toEqual([4n, 0n])
    expect(bytesToHex(c.codeHash)).toBe(keccak256('0x60016002'))
    expect(bytesToHex(await st.getCode(createAddressFromString(C)))).toBe('0x60016002')
  })

  it('bad overrides are VALIDATION_ERRORs', async () => {
    const st = new OverlayStateManager(genesis())
    const bad = [
      { [A]: { state: {}, stateDiff: {} } },
      { [A]: { stateDiff: { '0xzz': '0x1' } } },
      { [A]: { stateDiff: { [`0x${'1'.repeat(66)}`]: '0x1' } } },
      { [A]: { code: '0x123' } },
      { '0x1234': { balance: 1n } },
    ]
    for (const o of bad) await expect(st.applyOverrides(o as never)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' })
  })
})

describe('MemoryStateSource layers', () => {
  it('a block layer sees its writes, the parent stays untouched', async () => {
    const g = genesis()
    const st = new OverlayStateManager(g)
    await st.putStorage(addrA, slot(1), val(0x43))
    await st.modifyAccountFields(addrB, { balance: 6n })
    await st.deleteAccount(addrA)
    await st.putAccount(addrA, new Account(0n, 9n))
    await st.putStorage(addrA, slot(1), val(0x44))
    const b1 = g.withWrites(st.flatten())
    expect(num(await b1.getStorage(A, slotHex(1)))).toBe(0x44n)
    expect(num(await b1.getStorage(A, slotHex(2)))).toBe(0n) // storage went with the deletion
    expect((await b1.getCode(A)).length).toBe(0)
    expect((await b1.getAccount(A))!.balance).toBe(9n)
    expect((await b1.getAccount(B))!.balance).toBe(6n)
    expect(num(await g.getStorage(A, slotHex(2)))).toBe(0x22n)
    expect((await g.getAccount(B))!.balance).toBe(5n)
    expect(b1.depth).toBe(g.depth + 1)
  })

  it('deep chains are squashed with the same contents', async () => {
    let s = genesis()
    for (let i = 1; i <= 40; i++) {
      const st = new OverlayStateManager(s)
      await st.putStorage(addrB, slot(i), val(i))
      if (i === 20) await st.clearStorage(addrA)
      await st.modifyAccountFields(addrB, { nonce: BigInt(i) })
      s = s.withWrites(st.flatten())
    }
    expect(s.depth).toBeLessThanOrEqual(32)
    expect((await s.getAccount(B))!.nonce).toBe(40n)
    for (const i of [1, 20, 40]) expect(num(await s.getStorage(B, slotHex(i)))).toBe(BigInt(i))
    expect(num(await s.getStorage(A, slotHex(1)))).toBe(0n)
    expect(bytesToHex(await s.getCode(A))).toBe('0x6001')
    expect(s.storageOf(B).size).toBe(40)
    const [r] = await s.getMany([{ address: B, slots: [slotHex(3), slotHex(99)] }])
    expect(r!.account!.nonce).toBe(40n)
    expect(r!.storage.map(num)).toEqual([3n, 0n])
  })

  it('shallowCopy starts from the net writes and is independent', async () => {
    const st = new OverlayStateManager(genesis())
    await st.putStorage(addrA, slot(1), val(0x50))
    const copy = st.shallowCopy()
    await copy.putStorage(addrA, slot(1), val(0x51))
    expect(num(await st.getStorage(addrA, slot(1)))).toBe(0x50n)
    expect(num(await copy.getStorage(addrA, slot(1)))).toBe(0x51n)
  })
})
