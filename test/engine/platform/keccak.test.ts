/**
 * The WebAssembly keccak every Common hands ethereumjs (engine/platform/keccak.ts): the same bytes as the
 * reference implementation for inputs across the 136-byte rate (empty, short, one block, several),
 * answers that stay the caller's (a later hash does not overwrite them), and installed on the
 * Commons of every factory.
 */
import { keccak_256 } from '@noble/hashes/sha3.js'
import { describe, expect, it } from 'vitest'
import { createCommonFactory } from '../../../engine/platform/hardfork.js'
import { keccak256 } from '../../../engine/platform/keccak.js'

describe('keccak256 (WebAssembly)', () => {
  it('matches the reference on inputs of every length around the rate', () => {
    for (const n of [0, 1, 20, 32, 64, 135, 136, 137, 272, 1000]) {
      const input = Uint8Array.from({ length: n }, (_, i) => (i * 7 + n) & 0xff)
      expect(keccak256(input)).toEqual(keccak_256(input))
    }
  })

  it('answers a copy the next hash leaves alone', () => {
    const first = keccak256(new Uint8Array([1]))
    const kept = Uint8Array.from(first)
    keccak256(new Uint8Array([2]))
    expect(first).toEqual(kept)
  })

  it('is the keccak of the Commons ethereumjs runs on', () => {
    for (const factory of [createCommonFactory(1), createCommonFactory(31337, 'prague')]) {
      const common = factory({ number: 20_000_000n, timestamp: 1_750_000_000n })
      expect(common.customCrypto.keccak256).toBe(keccak256)
    }
  })
})
