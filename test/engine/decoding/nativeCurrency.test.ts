import * as chains from 'viem/chains'
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
  it('gives every chain of the installed viem its symbol (else: node scripts/native-symbols.mjs > engine/decoding/nativeSymbols.ts)', () => {
    const first = new Map<number, string>()
    for (const chain of Object.values(chains) as { id?: number; nativeCurrency?: { symbol?: string } }[]) {
      const symbol = chain.nativeCurrency?.symbol
      // a few ids appear twice (renamed chains): the first entry wins
      if (typeof chain.id === 'number' && symbol && !first.has(chain.id)) first.set(chain.id, symbol)
    }
    expect(first.size).toBeGreaterThan(500)
    const wrong = [...first].filter(([id, symbol]) => nativeSymbol(id) !== symbol)
    expect(wrong).toEqual([])
  })
})
