import { KECCAK256_NULL, bytesToHex } from '@ethereumjs/util'
import { keccak256, type Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { decodeAccount, decodeSlot, encodeAccount, encodeSlot, forkKeys } from '../../../engine/state/forkCacheCodec.js'
import { accessListDigest, parseAccessList } from '../../../engine/state/forkPrefetch.js'

describe('fork cache codec', () => {
  it('accounts round-trip compactly; a missing account is one byte', () => {
    const cases = [
      { nonce: 0n, balance: 0n, codeHash: KECCAK256_NULL },
      { nonce: 1n, balance: 10n ** 18n, codeHash: KECCAK256_NULL },
      { nonce: 2n ** 64n - 1n, balance: 2n ** 256n - 1n, codeHash: keccak256('0x6001', 'bytes') },
    ]
    for (const a of cases) {
      const enc = encodeAccount(a)
      const d = decodeAccount(enc)
      expect(d.ok).toBe(true)
      expect(d.account!.nonce).toBe(a.nonce)
      expect(d.account!.balance).toBe(a.balance)
      expect(bytesToHex(d.account!.codeHash)).toBe(bytesToHex(a.codeHash))
    }
    expect(encodeAccount({ nonce: 1n, balance: 1n, codeHash: KECCAK256_NULL }).byteLength).toBe(5)
    expect(encodeAccount(undefined)).toEqual(new Uint8Array([0]))
    expect(decodeAccount(new Uint8Array([0]))).toEqual({ ok: true })
  })

  it('corrupt records are misses, not wrong state', () => {
    const good = encodeAccount({ nonce: 5n, balance: 7n, codeHash: keccak256('0x00', 'bytes') })
    expect(decodeAccount(good.subarray(0, good.length - 1)).ok).toBe(false)
    expect(decodeAccount(new Uint8Array([1, 9, 9])).ok).toBe(false)
    expect(decodeAccount(new Uint8Array([])).ok).toBe(false)
    expect(decodeSlot(new Uint8Array([1, 2]))).toBeUndefined()
    expect(decodeSlot(new Uint8Array(34))).toBeUndefined()
  })

  it('slots keep zero distinct from a miss', () => {
    expect(encodeSlot(new Uint8Array(0))).toEqual(new Uint8Array([0]))
    expect(decodeSlot(encodeSlot(new Uint8Array(0)))).toEqual(new Uint8Array(0))
    expect(decodeSlot(encodeSlot(new Uint8Array([0x12, 0x34])))).toEqual(new Uint8Array([0x12, 0x34]))
  })

  it('keys carry chain, block and kind', () => {
    const a = '0x00000000000000000000000000000000000000aa' as Hex
    const s = `0x${'0'.repeat(63)}1` as Hex
    expect(forkKeys.account(1, 255n, a)).toBe('fs:1:ff:a:00000000000000000000000000000000000000aa')
    expect(forkKeys.storage(1, 255n, a, s)).toBe(`fs:1:ff:s:00000000000000000000000000000000000000aa${'0'.repeat(63)}1`)
    expect(forkKeys.account(1, 255n, a)).not.toBe(forkKeys.account(10, 255n, a))
  })

  it('access lists: canonical entries, malformed answers rejected, digests per call', () => {
    expect(parseAccessList({ accessList: [{ address: '0x00000000000000000000000000000000000000AA', storageKeys: ['0x1'] }], gasUsed: '0x1' })).toEqual([
      { address: '0x00000000000000000000000000000000000000aa', storageKeys: [`0x${'0'.repeat(63)}1`] },
    ])
    expect(() => parseAccessList({})).toThrow(/malformed/)
    expect(() => parseAccessList({ accessList: [{ address: 'nope' }] })).toThrow(/malformed/)
    const c = { from: '0x00000000000000000000000000000000000000aa' as Hex, to: null, data: '0x12' as Hex }
    expect(accessListDigest(c)).toBe(accessListDigest({ ...c }))
    expect(accessListDigest(c)).not.toBe(accessListDigest({ ...c, value: 1n }))
    expect(accessListDigest(c)).not.toBe(accessListDigest({ ...c, data: '0x13' }))
  })
})
