/**
 * Failed BLS12-381 precompile calls (EIP-2537) in geth's words. Anvil answers every one of them
 * 'precompiled failed' (its own text, not geth's), so the error string is asserted against geth's
 * rule (core/vm/contracts.go: length, field element top bytes, encoding below the modulus, on the
 * curve, then the subgroup for MSM and pairing), while gas and failure are compared with Anvil on
 * the same call. Inputs are built with @noble/curves: generators, points off the curve, points on
 * the curve outside the prime-order subgroup.
 */
import { bls12_381 } from '@noble/curves/bls12-381.js'
import { concatHex, toHex, type Address, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChainSource } from '../../engine/chains/types.js'
import { createTraceService, type TraceService } from '../../engine/operations/trace/traceService.js'
import { gethBlsError } from '../../tracers/blsErrors.js'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../support/anvil.js'
import { anvilChainSource } from './chainFor.js'
import type { Frame } from './gethRules.js'

const hasAnvil = requireAnvil()
const A = DEV_ACCOUNTS[0] as Address
const Fp = bls12_381.fields.Fp
const Fp2 = bls12_381.fields.Fp2
const P = Fp.ORDER

const fe = (v: bigint): Hex => toHex(v, { size: 64 })
const g1 = (x: bigint, y: bigint): Hex => concatHex([fe(x), fe(y)])
const g2 = (x: { c0: bigint; c1: bigint }, y: { c0: bigint; c1: bigint }): Hex => concatHex([fe(x.c0), fe(x.c1), fe(y.c0), fe(y.c1)])
const G1 = (() => {
  const a = bls12_381.G1.Point.BASE.toAffine()
  return g1(a.x, a.y)
})()
const G2 = (() => {
  const a = bls12_381.G2.Point.BASE.toAffine()
  return g2(a.x, a.y)
})()
const SCALAR = toHex(2n, { size: 32 })

/** a point on y² = x³ + 4 outside the prime-order subgroup (almost every curve point is) */
const G1_OUTSIDE = (() => {
  for (let x = 1n; ; x++) {
    const rhs = Fp.add(Fp.mul(Fp.sqr(x), x), 4n)
    let y: bigint
    try {
      y = Fp.sqrt(rhs)
    } catch {
      continue
    }
    if (!bls12_381.G1.Point.fromAffine({ x, y }).isTorsionFree()) return g1(x, y)
  }
})()
const G2_OUTSIDE = (() => {
  for (let c0 = 1n; ; c0++) {
    const x = Fp2.create({ c0, c1: 1n })
    const rhs = Fp2.add(Fp2.mul(Fp2.sqr(x), x), Fp2.create({ c0: 4n, c1: 4n }))
    let y: { c0: bigint; c1: bigint }
    try {
      y = Fp2.sqrt(rhs)
    } catch {
      continue
    }
    if (!bls12_381.G2.Point.fromAffine({ x, y }).isTorsionFree()) return g2(x, y)
  }
})()
const TOP_BYTES: Hex = `0x01${'00'.repeat(63)}`
const NOT_ON_CURVE = g1(1n, 1n)

const cases: { name: string; to: number; data: Hex; geth: string; gas?: bigint }[] = [
  { name: 'G1ADD short input', to: 0x0b, data: concatHex([G1, G1]).slice(0, -2) as Hex, geth: 'invalid input length' },
  { name: 'G1ADD padding not zero', to: 0x0b, data: concatHex([TOP_BYTES, fe(0n), G1]), geth: 'invalid field element top bytes' },
  { name: 'G1ADD coordinate at the modulus', to: 0x0b, data: concatHex([fe(P), fe(0n), G1]), geth: 'invalid fp.Element encoding' },
  { name: 'G1ADD second point off the curve', to: 0x0b, data: concatHex([G1, NOT_ON_CURVE]), geth: 'invalid point: not on curve' },
  { name: 'G1MSM empty', to: 0x0c, data: '0x', geth: 'invalid input length' },
  { name: 'G1MSM point outside the subgroup', to: 0x0c, data: concatHex([G1, SCALAR, G1_OUTSIDE, SCALAR]), geth: 'g1 point is not on correct subgroup' },
  { name: 'G2ADD off the curve', to: 0x0d, data: concatHex([G2, g2({ c0: 1n, c1: 1n }, { c0: 1n, c1: 1n })]), geth: 'invalid point: not on curve' },
  { name: 'G2MSM point outside the subgroup', to: 0x0e, data: concatHex([G2_OUTSIDE, SCALAR]), geth: 'g2 point is not on correct subgroup' },
  { name: 'PAIRING G2 outside the subgroup', to: 0x0f, data: concatHex([G1, G2_OUTSIDE]), geth: 'g2 point is not on correct subgroup' },
  { name: 'PAIRING G1 outside before G2 outside', to: 0x0f, data: concatHex([G1_OUTSIDE, G2_OUTSIDE]), geth: 'g1 point is not on correct subgroup' },
  {
    name: 'PAIRING decodes both points before any subgroup check',
    to: 0x0f,
    data: concatHex([G1_OUTSIDE, TOP_BYTES, fe(0n), fe(0n), fe(0n)]),
    geth: 'invalid field element top bytes',
  },
  { name: 'MAP_FP_TO_G1 at the modulus', to: 0x10, data: fe(P), geth: 'invalid fp.Element encoding' },
  { name: 'MAP_FP2_TO_G2 second element padding', to: 0x11, data: concatHex([fe(1n), TOP_BYTES]), geth: 'invalid field element top bytes' },
  // a pairing costs 70,300 here; 60,000 covers the intrinsic and calldata-floor gas, not the pairing
  { name: 'PAIRING bad input without the gas: out of gas first', to: 0x0f, data: concatHex([TOP_BYTES, fe(0n), G2]), geth: 'out of gas', gas: 60_000n },
]

describe.runIf(hasAnvil)('BLS12-381 precompile failures', () => {
  let anvil: AnvilInstance
  let chain: ChainSource
  let traces: TraceService
  beforeAll(async () => {
    anvil = await startAnvil()
    chain = await anvilChainSource(anvil.url)
    traces = createTraceService(chain, { gasCap: 30_000_000n, maxStructLogSteps: 1_000 })
  })
  afterAll(async () => {
    await chain?.close()
    await anvil?.stop()
  })

  it('the inputs are what they claim (valid points pass, the rest fail geth’s checks)', () => {
    expect(gethBlsError(0x0b, hexBytes(concatHex([G1, G1])))).toBeUndefined()
    expect(gethBlsError(0x0f, hexBytes(concatHex([G1, G2])))).toBeUndefined()
    for (const c of cases.filter((c) => !c.gas)) expect(gethBlsError(c.to, hexBytes(c.data)), c.name).toBe(c.geth)
  })

  for (const c of cases) {
    it(`${c.name}: geth's error, Anvil's gas`, async () => {
      const to = toHex(c.to, { size: 20 })
      const gas = c.gas ?? 1_000_000n
      const ours = (await traces.traceCall({ call: { from: A, to, data: c.data, gas }, block: { tag: 'latest' }, tracerConfig: { callTracer: {} } }))
        .callTracer as Frame
      const theirs = await anvil.rpc<Frame>('debug_traceCall', [{ from: A, to, data: c.data, gas: toHex(gas) }, 'latest', { tracer: 'callTracer' }])
      expect(ours.error).toBe(c.geth)
      expect(theirs.error).toBeDefined()
      expect(ours.gasUsed).toBe(theirs.gasUsed)
    })
  }

  it('a valid G1ADD still succeeds with Anvil’s output', async () => {
    const to = toHex(0x0b, { size: 20 })
    const data = concatHex([G1, G1])
    const ours = (await traces.traceCall({ call: { from: A, to, data, gas: 100_000n }, block: { tag: 'latest' }, tracerConfig: { callTracer: {} } }))
      .callTracer as Frame
    const theirs = await anvil.rpc<Frame>('debug_traceCall', [{ from: A, to, data, gas: toHex(100_000n) }, 'latest', { tracer: 'callTracer' }])
    expect(ours.error).toBeUndefined()
    expect(ours.output).toBe(theirs.output)
  })
})

function hexBytes(h: Hex): Uint8Array {
  return Uint8Array.from(Buffer.from(h.slice(2), 'hex'))
}
