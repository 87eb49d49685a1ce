/**
 * `patches/@ethereumjs+util+10.1.3.patch` (applied by `npm install`'s postinstall) pads bytes
 * (setLengthLeft/Right, on every MSTORE, SLOAD, SSTORE and LOG) with one copy instead of two
 * spreads through a JS array, converts a bigint to bytes without a prefixed-hex round trip (and
 * bytes to a bigint without printing them as hex), reads
 * `DEBUG` once instead of on every EVM, VM and journal made, and keeps an Address's hex form.
 * Fails if the patch is not applied (an ethereumjs upgrade, or an install with scripts off), if
 * the patched padding differs in any byte from the stock one, or if `DEBUG` stops being honoured.
 */
import { Address, bigIntToBytes, bytesToBigInt, bytesToHex, hexToBytes, setLengthLeft, setLengthRight } from '@ethereumjs/util'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'

const stockPad = (msg: Uint8Array, length: number, right: boolean) =>
  right ? new Uint8Array([...msg, ...new Uint8Array(length - msg.length)]) : new Uint8Array([...new Uint8Array(length - msg.length), ...msg])

describe('the @ethereumjs/util padding patch', () => {
  it('is applied to both builds of the package', () => {
    const cjs = createRequire(import.meta.url).resolve('@ethereumjs/util') // …/dist/cjs/index.js
    for (const flavor of ['cjs', 'esm']) {
      for (const file of ['bytes.js', 'env.js', 'address.js'])
        expect(readFileSync(join(dirname(cjs), '..', flavor, file), 'utf8')).toContain('evm-sim-service patch')
    }
  })

  it('pads left and right as the stock code did, and leaves longer or equal inputs to the stock rules', () => {
    for (const n of [0, 1, 5, 31]) {
      const msg = Uint8Array.from({ length: n }, (_, i) => i + 1)
      expect(setLengthLeft(msg, 32)).toEqual(stockPad(msg, 32, false))
      expect(setLengthRight(msg, 32)).toEqual(stockPad(msg, 32, true))
      // a new array: writing to it leaves the input alone
      const out = setLengthLeft(msg, 32)
      out.fill(0xff)
      expect(msg.every((b, i) => b === i + 1)).toBe(true)
    }
    const full = new Uint8Array(32).fill(9)
    expect(setLengthLeft(full, 32)).toBe(full)
    expect(() => setLengthLeft(new Uint8Array(33), 32)).toThrow(/exceeds target length/)
    expect(setLengthLeft(Uint8Array.from([1, 2, 3]), 2, { allowTruncate: true })).toEqual(Uint8Array.from([2, 3]))
  })

  it('converts bigints to bytes as the stock code did, big- and little-endian', () => {
    const stock = (n: bigint) => hexToBytes(`0x${n.toString(16).length % 2 ? '0' : ''}${n.toString(16)}`)
    const values = [0n, 1n, 0xfn, 0x10n, 0xffn, 0x100n, 2n ** 64n - 1n, 2n ** 255n, 2n ** 256n - 1n]
    for (let i = 1n; i < 200n; i++) values.push(i ** ((i % 7n) + 1n) * 0x9e3779b97f4a7c15n)
    for (const n of values) {
      expect(bigIntToBytes(n)).toEqual(stock(n))
      expect(bigIntToBytes(n, true)).toEqual(stock(n).reverse())
    }
    expect(() => bigIntToBytes(-1n)).toThrow()
  })

  it('converts bytes to a bigint as the stock code did (hex parsed), big- and little-endian, in both builds', () => {
    const cjs = createRequire(import.meta.url)('@ethereumjs/util') as { bytesToBigInt: typeof bytesToBigInt }
    const stock = (b: Uint8Array) => (b.length === 0 ? 0n : BigInt(bytesToHex(b)))
    let seed = 7
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed & 0xff)
    for (let len = 0; len <= 40; len++) {
      for (const shape of ['random', 'leading zeros', 'all 0xff']) {
        const b = Uint8Array.from({ length: len }, (_, i) => (shape === 'all 0xff' ? 0xff : shape === 'leading zeros' && i < len / 2 ? 0 : rand()))
        expect(bytesToBigInt(b)).toBe(stock(b))
        expect(cjs.bytesToBigInt(b)).toBe(stock(b))
        expect(bytesToBigInt(b, true)).toBe(stock(b.slice().reverse()))
      }
    }
    // the patched body, not the stock one that printed hex
    expect(bytesToBigInt.toString()).not.toContain('bytesToHex')
  })

  it('still honours DEBUG as it was when the process started, in both builds', () => {
    const probe = (flavor: 'import' | 'require', debug?: string) => {
      const code =
        flavor === 'import'
          ? "import('@ethereumjs/util').then((u) => console.log(u.isDebugEnabled('ethjs')))"
          : "console.log(require('@ethereumjs/util').isDebugEnabled('ethjs'))"
      const env = { ...process.env }
      if (debug === undefined) delete env.DEBUG
      else env.DEBUG = debug
      return execFileSync(process.execPath, ['-e', code], { env, encoding: 'utf8' }).trim()
    }
    for (const flavor of ['import', 'require'] as const) {
      expect(probe(flavor, 'ethjs,evm:*')).toBe('true')
      expect(probe(flavor, 'other')).toBe('false')
      expect(probe(flavor)).toBe('false')
    }
  })
})

describe('an Address keeps its hex form (the util patch)', () => {
  it('answers its hex, again after its bytes are replaced, and stays equal to a fresh Address', () => {
    const bytes = Uint8Array.from({ length: 20 }, (_, i) => i * 11)
    const a = new Address(bytes)
    expect(a.toString()).toBe(bytesToHex(bytes))
    expect(a.toString()).toBe(bytesToHex(bytes))
    // the form is kept in private fields: equality and clones see what they saw before
    expect(a).toEqual(new Address(bytes.slice()))
    expect(Object.keys(a)).toEqual(['bytes'])
    expect(structuredClone(a)).toEqual({ bytes })
    const other = new Uint8Array(20).fill(0xab)
    ;(a as { bytes: Uint8Array }).bytes = other
    expect(a.toString()).toBe(`0x${'ab'.repeat(20)}`)
    // the patched method (an upgrade that drops the patch fails here)
    expect(Address.prototype.toString.toString()).toContain('#hexOf')
  })
})
