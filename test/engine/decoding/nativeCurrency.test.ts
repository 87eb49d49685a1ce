import { describe, expect, it } from 'vitest'
import { nativeSymbol } from '../../../engine/decoding/nativeCurrency.js'

describe('nativeSymbol: the native currency of asset changes, from viem’s chain registry', () => {
  it('names each chain’s own currency', () => {
    expect(nativeSymbol(1)).toBe('ETH')
    expect(nativeSymbol(137)).toBe('POL')
    expect(nativeSymbol(56)).toBe('BNB')
    expect(nativeSymbol(43114)).toBe('AVAX')
  })
  it('falls back to ETH for a chain it does not know, and for the devnet', () => {
    expect(nativeSymbol(987_654_321)).toBe('ETH')
    expect(nativeSymbol(31337)).toBe('ETH')
  })
})
