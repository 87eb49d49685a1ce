/**
 * The ecrecover every Common hands ethereumjs (engine/platform/ecrecover.ts), in both its builds (the
 * native addon and the WebAssembly fallback): the same public key as @ethereumjs/util's reference
 * for signatures of every `v` form (0/1, 27/28, EIP-155), high-`s` signatures recovered (the
 * ECRECOVER precompile must), the same refusals for what cannot be recovered (`v`, `r`, `s` out of
 * range, an `r` off the curve, zero), and the native build installed on the Commons of every
 * factory where its prebuilt binary exists.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { bigIntToBytes, ecrecover as reference, SECP256K1_ORDER } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { ecrecover, ecrecoverWith, nativeRecoverKey, wasmRecoverKey } from '../../../engine/platform/ecrecover.js'
import { createCommonFactory } from '../../../engine/platform/hardfork.js'

/** a fixed-seed stream of bytes: the same cases every run */
function bytes(seed: number, n: number): Uint8Array {
  let x = seed >>> 0
  return Uint8Array.from({ length: n }, () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0
    return x >>> 24
  })
}

const outcome = (f: () => Uint8Array): string => {
  try {
    return Buffer.from(f()).toString('hex')
  } catch {
    return 'throws'
  }
}

function signed(i: number) {
  const key = secp256k1.utils.randomSecretKey(bytes(i, 48))
  const hash = bytes(i + 1_000, 32)
  const sig = secp256k1.sign(hash, key, { prehash: false, format: 'recovered' })
  // noble's recovered form: recovery byte, r, s
  return { hash, recovery: BigInt(sig[0]!), r: sig.subarray(1, 33), s: sig.subarray(33, 65) }
}

const builds = [
  ['native', nativeRecoverKey],
  ['WebAssembly', wasmRecoverKey],
] as const

describe.each(builds)('ecrecover (%s)', (_name, build) => {
  // a native build whose binary did not load fails every case here: the package's prebuilt
  // binaries cover the platforms this project runs on (linux-x64 among them)
  const ecrecover = build
    ? ecrecoverWith(build)
    : () => {
        throw new Error('the native secp256k1 addon did not load')
      }

  it('recovers the same key as the reference for every v form', () => {
    for (let i = 1; i <= 40; i++) {
      const { hash, recovery, r, s } = signed(i)
      for (const [v, chainId] of [
        [recovery, undefined],
        [recovery + 27n, undefined],
        [recovery + 35n + 2n * 31337n, 31337n],
      ] as const) {
        const ours = ecrecover(hash, v, r, s, chainId)
        expect(ours).toEqual(reference(hash, v, r, s, chainId))
        expect(ours.length).toBe(64)
      }
    }
  })

  it('recovers high-s signatures as the reference does (the precompile takes them)', () => {
    for (let i = 50; i < 60; i++) {
      const { hash, recovery, r, s } = signed(i)
      const high = bigIntToBytes(SECP256K1_ORDER - BigInt(`0x${Buffer.from(s).toString('hex')}`))
      const flipped = 1n - recovery
      expect(outcome(() => ecrecover(hash, flipped + 27n, r, high))).toBe(outcome(() => reference(hash, flipped + 27n, r, high)))
      expect(outcome(() => ecrecover(hash, flipped + 27n, r, high))).not.toBe('throws')
    }
  })

  it('refuses what the reference refuses, and recovers what it recovers, on arbitrary input', () => {
    const n = bigIntToBytes(SECP256K1_ORDER)
    const cases: [Uint8Array, bigint, Uint8Array, Uint8Array][] = [
      [bytes(1, 32), 27n, new Uint8Array(32), bytes(2, 32)],
      [bytes(1, 32), 27n, bytes(3, 32), new Uint8Array(32)],
      [bytes(1, 32), 27n, n, bytes(2, 32)],
      [bytes(1, 32), 28n, bytes(3, 32), n],
      [bytes(1, 32), 29n, bytes(3, 32), bytes(2, 32)],
      [bytes(1, 32), 26n, bytes(3, 32), bytes(2, 32)],
      [bytes(1, 32), 27n, new Uint8Array(32).fill(0xff), bytes(2, 32)],
      [bytes(1, 32), 27n, bytes(3, 5), bytes(2, 7)],
    ]
    // arbitrary r (about half are x-coordinates of no curve point) and s
    for (let i = 0; i < 60; i++) cases.push([bytes(i + 7, 32), 27n + BigInt(i % 2), bytes(i + 300, 32), bytes(i + 600, 32)])
    let recovered = 0
    for (const [hash, v, r, s] of cases) {
      const ours = outcome(() => ecrecover(hash, v, r, s))
      expect(ours).toBe(outcome(() => reference(hash, v, r, s)))
      if (ours !== 'throws') recovered++
    }
    // both kinds of outcome are exercised
    expect(recovered).toBeGreaterThan(10)
    expect(recovered).toBeLessThan(cases.length - 8)
  })
})

describe('ecrecover on the Commons', () => {
  it('is the native build on linux-x64, and the ecrecover of the Commons ethereumjs runs on', () => {
    if (process.platform === 'linux' && process.arch === 'x64') expect(nativeRecoverKey).toBeTypeOf('function')
    const { hash, recovery, r, s } = signed(1)
    expect(ecrecover(hash, recovery + 27n, r, s)).toEqual(ecrecoverWith(nativeRecoverKey ?? wasmRecoverKey)(hash, recovery + 27n, r, s))
    for (const factory of [createCommonFactory(1), createCommonFactory(31337, 'prague')]) {
      expect(factory({ number: 20_000_000n, timestamp: 1_750_000_000n }).customCrypto.ecrecover).toBe(ecrecover)
    }
  })
})
