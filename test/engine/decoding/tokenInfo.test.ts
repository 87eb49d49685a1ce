import { describe, expect, it } from 'vitest'
import { encodeAbiParameters, stringToHex, toHex } from 'viem'
import { decodeDecimals, decodeSymbol } from '../../../engine/decoding/tokenInfo.js'

const str = (s: string) => encodeAbiParameters([{ type: 'string' }], [s])

describe('decodeSymbol', () => {
  it('decodes ABI strings and bytes32 symbols', () => {
    expect(decodeSymbol(str('USDC'))).toBe('USDC')
    expect(decodeSymbol(stringToHex('MKR', { size: 32 }))).toBe('MKR')
    expect(decodeSymbol(str('Ünï'))).toBe('Ünï')
  })

  it('rejects what is not a symbol', () => {
    expect(decodeSymbol(undefined)).toBeUndefined()
    expect(decodeSymbol('0x')).toBeUndefined()
    expect(decodeSymbol(str(''))).toBeUndefined()
    expect(decodeSymbol(toHex(0n, { size: 32 }))).toBeUndefined() // empty bytes32
    expect(decodeSymbol(toHex(18n, { size: 32 }))).toBeUndefined() // a number, not text
    expect(decodeSymbol(`0x${'ff'.repeat(32)}`)).toBeUndefined() // invalid UTF-8
    expect(decodeSymbol(str('X'.repeat(65)))).toBeUndefined() // absurdly long
  })

  it('strips control characters that would break a one-line summary', () => {
    expect(decodeSymbol(str('EV\nIL\u0007'))).toBe('EVIL')
  })
})

describe('decodeDecimals', () => {
  it('reads a uint8 from the first word and rejects the rest', () => {
    expect(decodeDecimals(toHex(6n, { size: 32 }))).toBe(6)
    expect(decodeDecimals(toHex(0n, { size: 32 }))).toBe(0)
    expect(decodeDecimals(toHex(256n, { size: 32 }))).toBeUndefined()
    expect(decodeDecimals('0x06')).toBeUndefined()
    expect(decodeDecimals(undefined)).toBeUndefined()
  })
})
