/**
 * EVM rules from the OP fork, against Anvil run as an OP-stack node: P256VERIFY (RIP-7212) sits
 * at 0x100 from Fjord for 3450 gas, where Ethereum's Cancun has no precompile there. A P-256
 * signature made here is verified by a call traced on both, through a contract that forwards it
 * (a direct call's calldata would make Anvil's EIP-7623 floor decide the gas, test/support/opAnvil.ts).
 */
import { createHash, generateKeyPairSync, sign } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Hex } from 'viem'
import { createEngine, type Engine } from '../../engine/index.js'
import { createMemoryCacheStore } from '../../host/cache/memoryCacheStore.js'
import { DEV_ACCOUNTS, requireAnvil, type AnvilInstance } from '../support/anvil.js'
import { startOpAnvil } from '../support/opAnvil.js'
import { gethCallFrame, type Frame } from '../tracers/gethRules.js'
import { ON_CHAIN } from '../../engine/types.js'

const haveAnvil = requireAnvil()
const P256 = '0x0000000000000000000000000000000000000100'
/** sstore(0, calldatasize) (execution gas above the floor); calldatacopy; staticcall(gas, 0x100, 0, calldatasize, 0, 32); return(0, 32) */
const FORWARDER = '0x00000000000000000000000000000000000f0100'
const FORWARDER_CODE = '0x365f55365f5f3760205f365f6101005afa60205ff3'

/** hash ‖ r ‖ s ‖ x ‖ y of a fresh P-256 signature (160 bytes) */
function p256Input(): Hex {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const message = Buffer.from('an OP-stack precompile')
  const hash = createHash('sha256').update(message).digest()
  const rs = sign('sha256', message, { key: privateKey, dsaEncoding: 'ieee-p1363' })
  const jwk = publicKey.export({ format: 'jwk' })
  const xy = Buffer.concat([Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')])
  return `0x${Buffer.concat([hash, rs, xy]).toString('hex')}`
}

describe.runIf(haveAnvil)('OP fork precompiles', () => {
  let anvil: AnvilInstance
  let engine: Engine
  beforeAll(async () => {
    anvil = await startOpAnvil('fjord')
    await anvil.rpc('anvil_setCode', [FORWARDER, FORWARDER_CODE])
    engine = await createEngine({
      rpcUrl: anvil.url,
      cache: createMemoryCacheStore(),
      gasCap: 50_000_000n,
      rpcTimeoutMs: 10_000,
      maxStructLogSteps: 10_000,
      simulationTtlSeconds: 60,
      chainKind: 'op-stack',
      hardfork: 'fjord',
    })
  }, 60_000)
  afterAll(async () => {
    await engine?.close()
    await anvil?.stop()
  })

  it('Fjord: P256VERIFY verifies at 0x100 for 3450 gas, as op-revm', async () => {
    const input = p256Input()
    const call = { from: DEV_ACCOUNTS[0] as Hex, to: FORWARDER as Hex, data: input, gas: 100_000n }
    const ours = (await engine.traceCall(ON_CHAIN, { call, block: { tag: 'latest' }, tracerConfig: { callTracer: {} } })).callTracer as Frame
    const theirs = await anvil.rpc<Frame>('debug_traceCall', [
      { from: call.from, to: FORWARDER, data: input, gas: '0x186a0' },
      'latest',
      { tracer: 'callTracer' },
    ])
    expect(ours.output).toBe(`0x${'0'.repeat(63)}1`)
    expect(ours.calls?.[0]).toMatchObject({ type: 'STATICCALL', to: P256, gasUsed: '0xd7a' })
    expect(ours).toEqual(gethCallFrame(theirs, 100_000n))
  })

  it('Ecotone (Cancun rules): nothing at 0x100', async () => {
    const cancun = await createEngine({
      rpcUrl: anvil.url,
      cache: createMemoryCacheStore(),
      gasCap: 50_000_000n,
      rpcTimeoutMs: 10_000,
      maxStructLogSteps: 10_000,
      simulationTtlSeconds: 60,
      chainKind: 'op-stack',
      hardfork: 'ecotone',
    })
    try {
      const res = await cancun.call(ON_CHAIN, {
        call: { from: DEV_ACCOUNTS[0] as Hex, to: P256 as Hex, data: p256Input(), gas: 100_000n },
        block: { tag: 'latest' },
      })
      expect(res.returnData).toBe('0x')
    } finally {
      await cancun.close()
    }
  })
})

/**
 * Isthmus's input size limits, against Anvil run at Isthmus (its op-revm applies them; Anvil's
 * Jovian keeps Isthmus's limits, test/support/opAnvil.ts, so Jovian's are checked against op-revm's
 * numbers in test/engine/chains/rollups/opStack/precompiles.test.ts). A forwarder passes `size` zero bytes of its own memory (calldata: address ‖ size, so no
 * calldata floor decides the gas) to the precompile: staticcall(gas, address, 0, size, 0, 0x80),
 * then returns the call's success flag. At the largest whole input within the limit the precompile
 * runs; with one element more it fails and uses all the gas it was given.
 */
const SIZED_FORWARDER = '0x00000000000000000000000000000000000f0101'
const SIZED_FORWARDER_CODE = '0x60805f6020355f5f355afa5f5260205ff3'
const word = (n: number): string => n.toString(16).padStart(64, '0')

const LIMITS = [
  { name: 'bn254 pairing', address: 0x08, element: 192, isthmus: 112_687 },
  { name: 'BLS12-381 G1 MSM', address: 0x0c, element: 160, isthmus: 513_760 },
  { name: 'BLS12-381 G2 MSM', address: 0x0e, element: 288, isthmus: 488_448 },
  { name: 'BLS12-381 pairing', address: 0x0f, element: 384, isthmus: 235_008 },
]

{
  const fork = 'isthmus'
  describe.runIf(haveAnvil)('Isthmus: precompile input size limits, against Anvil', () => {
    let anvil: AnvilInstance
    let engine: Engine
    beforeAll(async () => {
      anvil = await startOpAnvil(fork)
      await anvil.rpc('anvil_setCode', [SIZED_FORWARDER, SIZED_FORWARDER_CODE])
      engine = await createEngine({
        rpcUrl: anvil.url,
        cache: createMemoryCacheStore(),
        gasCap: 50_000_000n,
        rpcTimeoutMs: 30_000,
        maxStructLogSteps: 10_000,
        simulationTtlSeconds: 60,
        chainKind: 'op-stack',
        hardfork: fork,
      })
    }, 60_000)
    afterAll(async () => {
      await engine?.close()
      await anvil?.stop()
    })

    for (const l of LIMITS) {
      it(`${l.name}: runs at the limit, fails one element past it, as op-revm`, async () => {
        const max = Math.floor(l[fork] / l.element)
        for (const [elements, ok] of [
          [max, true],
          [max + 1, false],
        ] as const) {
          const data = `0x${word(l.address)}${word(elements * l.element)}` as Hex
          const gas = 30_000_000n
          const call = { from: DEV_ACCOUNTS[0] as Hex, to: SIZED_FORWARDER as Hex, data, gas }
          const ours = (await engine.traceCall(ON_CHAIN, { call, block: { tag: 'latest' }, tracerConfig: { callTracer: {} } })).callTracer as Frame
          const theirs = await anvil.rpc<Frame>('debug_traceCall', [
            { from: call.from, to: SIZED_FORWARDER, data, gas: `0x${gas.toString(16)}` },
            'latest',
            { tracer: 'callTracer' },
          ])
          expect(ours.output).toBe(`0x${word(ok ? 1 : 0)}`)
          expect(ours.output).toBe(theirs.output)
          expect(ours.gasUsed).toBe(theirs.gasUsed)
          const [inner, theirInner] = [ours.calls![0]!, theirs.calls![0]!]
          expect({ gas: inner.gas, gasUsed: inner.gasUsed, failed: inner.error !== undefined }).toEqual({
            gas: theirInner.gas,
            gasUsed: theirInner.gasUsed,
            failed: theirInner.error !== undefined,
          })
          expect(inner.error === undefined).toBe(ok)
          if (!ok) expect(inner.gasUsed).toBe(inner.gas)
        }
      }, 120_000)
    }
  })
}
