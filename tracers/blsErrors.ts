/**
 * geth's error for a failed BLS12-381 precompile call (EIP-2537, 0x0b–0x11). ethereumjs names
 * every malformed input with one of a few generic strings ('point not on curve' also for a point
 * outside the subgroup, 'fp point not in field' also for non-zero padding); geth
 * (core/vm/contracts.go over gnark-crypto) names the first check the input fails, in its order:
 * the input length; then, point by point, each field element's 16 zero top bytes and its value
 * below the modulus, the point on the curve; then, for MSM and pairing only, the subgroup.
 * The checks are redone here on the input (with @noble/curves), only once a call has failed.
 *
 * @example
 * gethBlsError(0x0b, new Uint8Array(10)) // 'invalid input length'
 */
import { bls12_381 } from '@noble/curves/bls12-381.js'

const INPUT_LENGTH = 'invalid input length'
const TOP_BYTES = 'invalid field element top bytes'
const ENCODING = 'invalid fp.Element encoding'
const NOT_ON_CURVE = 'invalid point: not on curve'
const G1_SUBGROUP = 'g1 point is not on correct subgroup'
const G2_SUBGROUP = 'g2 point is not on correct subgroup'

const Fp = bls12_381.fields.Fp
const Fp2 = bls12_381.fields.Fp2
const P = Fp.ORDER

type Fp2Value = ReturnType<typeof Fp2.create>

/** geth decodeBLS12381FieldElement: 64 bytes, 16 zero top bytes, then a value below p */
function fieldError(b: Uint8Array): string | undefined {
  for (let i = 0; i < 16; i++) if (b[i] !== 0) return TOP_BYTES
  return toBig(b.subarray(16)) >= P ? ENCODING : undefined
}

const toBig = (b: Uint8Array): bigint => (b.length ? BigInt(`0x${Buffer.from(b).toString('hex')}`) : 0n)
const isZero = (b: Uint8Array): boolean => b.every((x) => x === 0)

/** geth decodePointG1 (128 bytes); the all-zero point is infinity, on the curve */
function g1Error(b: Uint8Array): string | undefined {
  const e = fieldError(b.subarray(0, 64)) ?? fieldError(b.subarray(64, 128))
  if (e) return e
  if (isZero(b)) return undefined
  const x = toBig(b.subarray(16, 64))
  const y = toBig(b.subarray(80, 128))
  // y² = x³ + 4
  return Fp.eql(Fp.sqr(y), Fp.add(Fp.mul(Fp.sqr(x), x), 4n)) ? undefined : NOT_ON_CURVE
}

function fp2(b: Uint8Array, at: number): Fp2Value {
  return Fp2.create({ c0: toBig(b.subarray(at + 16, at + 64)), c1: toBig(b.subarray(at + 80, at + 128)) })
}

/** geth decodePointG2 (256 bytes: x.c0, x.c1, y.c0, y.c1) */
function g2Error(b: Uint8Array): string | undefined {
  for (let i = 0; i < 4; i++) {
    const e = fieldError(b.subarray(64 * i, 64 * (i + 1)))
    if (e) return e
  }
  if (isZero(b)) return undefined
  const x = fp2(b, 0)
  const y = fp2(b, 128)
  // y² = x³ + 4(1 + u)
  const rhs = Fp2.add(Fp2.mul(Fp2.sqr(x), x), Fp2.create({ c0: 4n, c1: 4n }))
  return Fp2.eql(Fp2.sqr(y), rhs) ? undefined : NOT_ON_CURVE
}

/** for a point already known to be on the curve */
function g1SubgroupError(b: Uint8Array): string | undefined {
  if (isZero(b)) return undefined
  const point = bls12_381.G1.Point.fromAffine({ x: toBig(b.subarray(16, 64)), y: toBig(b.subarray(80, 128)) })
  return point.isTorsionFree() ? undefined : G1_SUBGROUP
}

function g2SubgroupError(b: Uint8Array): string | undefined {
  if (isZero(b)) return undefined
  const point = bls12_381.G2.Point.fromAffine({ x: fp2(b, 0), y: fp2(b, 128) })
  return point.isTorsionFree() ? undefined : G2_SUBGROUP
}

/** pairs of `size` bytes, each checked in order; a length that is not a positive multiple fails first */
function eachChunk(input: Uint8Array, size: number, check: (chunk: Uint8Array) => string | undefined): string | undefined {
  if (input.length === 0 || input.length % size !== 0) return INPUT_LENGTH
  for (let off = 0; off < input.length; off += size) {
    const e = check(input.subarray(off, off + size))
    if (e) return e
  }
  return undefined
}

/** geth's error text, or undefined when the input passes geth's checks (or `id` is not BLS) */
export function gethBlsError(id: number, input: Uint8Array): string | undefined {
  switch (id) {
    case 0x0b: // G1ADD
      return input.length !== 256 ? INPUT_LENGTH : (g1Error(input.subarray(0, 128)) ?? g1Error(input.subarray(128)))
    case 0x0c: // G1MSM: point, then its subgroup, then the scalar (never invalid)
      return eachChunk(input, 160, (c) => g1Error(c.subarray(0, 128)) ?? g1SubgroupError(c.subarray(0, 128)))
    case 0x0d: // G2ADD
      return input.length !== 512 ? INPUT_LENGTH : (g2Error(input.subarray(0, 256)) ?? g2Error(input.subarray(256)))
    case 0x0e: // G2MSM
      return eachChunk(input, 288, (c) => g2Error(c.subarray(0, 256)) ?? g2SubgroupError(c.subarray(0, 256)))
    case 0x0f: // PAIRING_CHECK: both points decoded, then both subgroups
      return eachChunk(input, 384, (c) => {
        const p1 = c.subarray(0, 128)
        const p2 = c.subarray(128, 384)
        return g1Error(p1) ?? g2Error(p2) ?? g1SubgroupError(p1) ?? g2SubgroupError(p2)
      })
    case 0x10: // MAP_FP_TO_G1
      return input.length !== 64 ? INPUT_LENGTH : fieldError(input)
    case 0x11: // MAP_FP2_TO_G2
      return input.length !== 128 ? INPUT_LENGTH : (fieldError(input.subarray(0, 64)) ?? fieldError(input.subarray(64)))
    default:
      return undefined
  }
}
