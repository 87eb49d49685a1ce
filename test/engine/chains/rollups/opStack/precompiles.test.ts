/**
 * The OP forks' input size limits on the precompiles of variable input, run in an EVM built with
 * the OP-stack rules' precompiles, as every run of the service builds it: the bn254 pairing from
 * Granite (112 687 bytes; Jovian 81 984), the BLS12-381 G1 MSM, G2 MSM and pairing from Isthmus
 * (513 760, 488 448, 235 008 bytes; Jovian 288 960, 278 784, 156 672). An input at the limit runs
 * ethereumjs' own precompile; one byte more fails and uses all the gas given, as op-revm's halt
 * (crates/op-revm/src/precompiles.rs) and op-geth's error (core/vm/contracts.go, its text once the
 * gas is paid). All-zero inputs are valid points (the point at infinity) with zero scalars.
 */
import { createEVM } from '@ethereumjs/evm'
import { createAddressFromString } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { createOpStackRules } from '../../../../../engine/chains/rollups/opStack/opStackRules.js'
import type { OpFork } from '../../../../../engine/chains/rollups/opStack/forks.js'
import { toGethPrecompileError } from '../../../../../tracers/gethErrors.js'

const GAS = 30_000_000n
const block = { number: 1n, timestamp: 1n }

async function call(fork: OpFork, address: number, length: number, gasLimit = GAS) {
  const rules = createOpStackRules({ chainId: 10, hardfork: fork })
  const common = rules.commonFactory!(block)
  const customPrecompiles = rules.precompiles?.(common, {
    ...block,
    gasLimit: GAS,
    coinbase: '0x0000000000000000000000000000000000000000',
    difficulty: 0n,
    prevRandao: `0x${'00'.repeat(32)}`,
  })
  const evm = await createEVM({ common, ...(customPrecompiles && { customPrecompiles }) })
  const to = createAddressFromString(`0x${address.toString(16).padStart(40, '0')}`)
  const data = new Uint8Array(length)
  const { execResult } = await evm.runCall({ to, data, gasLimit })
  const error = execResult.exceptionError?.error
  return { gasUsed: execResult.executionGasUsed, error, gethError: error && toGethPrecompileError(address, data, error), out: execResult.returnValue }
}

const BN254_PAIRING = 0x08
const G1_MSM = 0x0c
const G2_MSM = 0x0e
const BLS_PAIRING = 0x0f

/** a limit, the element size of its input, the price of `n` elements, op-geth's error past it */
const CASES = [
  {
    name: 'bn254 pairing',
    address: BN254_PAIRING,
    element: 192,
    gas: (n: number) => 45_000n + 34_000n * BigInt(n),
    error: 'bad elliptic curve pairing input size',
    limits: { granite: 112_687, isthmus: 112_687, jovian: 81_984 },
  },
  {
    name: 'BLS12-381 G1 MSM',
    address: G1_MSM,
    element: 160,
    gas: (n: number) => (BigInt(n) * 12_000n * 519n) / 1000n,
    error: 'g1 msm input size exceeds maximum',
    limits: { isthmus: 513_760, jovian: 288_960 },
  },
  {
    name: 'BLS12-381 G2 MSM',
    address: G2_MSM,
    element: 288,
    gas: (n: number) => (BigInt(n) * 22_500n * 524n) / 1000n,
    error: 'g2 msm input size exceeds maximum',
    limits: { isthmus: 488_448, jovian: 278_784 },
  },
  {
    name: 'BLS12-381 pairing',
    address: BLS_PAIRING,
    element: 384,
    gas: (n: number) => 37_700n + 32_600n * BigInt(n),
    error: 'pairing input size exceeds maximum',
    limits: { isthmus: 235_008, jovian: 156_672 },
  },
]

describe('OP forks: precompile input size limits (op-revm precompiles.rs)', () => {
  for (const c of CASES) {
    for (const [fork, limit] of Object.entries(c.limits) as [OpFork, number][]) {
      it(`${fork}: ${c.name} runs at ${limit} bytes and fails past it, using all its gas`, async () => {
        // the largest whole input within the limit runs the real precompile at its price
        const n = Math.floor(limit / c.element)
        const at = await call(fork, c.address, n * c.element)
        expect(at.error).toBeUndefined()
        expect(at.gasUsed).toBe(c.gas(n))
        expect(at.out.length).toBeGreaterThan(0)
        // one byte over: every gas unit given is used, with op-geth's error
        const over = await call(fork, c.address, limit + 1)
        expect(over.gasUsed).toBe(GAS)
        expect(over.gethError).toBe(c.error)
        // without the gas of the precompile's price geth fails on the gas first
        const poor = await call(fork, c.address, limit + 1, c.gas(n) - 1n)
        expect(poor.gasUsed).toBe(c.gas(n) - 1n)
        expect(poor.gethError).toBe('out of gas')
      }, 60_000)
    }
  }

  it("holocene: the bn254 pairing limit is Granite's, and no BLS12-381 precompile exists before Isthmus", async () => {
    const over = await call('holocene', BN254_PAIRING, 112_688)
    expect(over.gasUsed).toBe(GAS)
    for (const address of [G1_MSM, G2_MSM, BLS_PAIRING]) {
      // an account without code: the call succeeds, spends nothing, returns nothing
      const r = await call('holocene', address, 1_000_000)
      expect(r).toMatchObject({ error: undefined, gasUsed: 0n })
      expect(r.out.length).toBe(0)
    }
  })

  it('fjord: no bn254 pairing limit before Granite (an input of 112 688 bytes is priced, not refused)', async () => {
    const r = await call('fjord', BN254_PAIRING, 112_688)
    // 586 pairs plus 176 bytes: ethereumjs refuses the length, as geth, after charging the price
    expect(r.gethError).toBe('bad elliptic curve pairing size')
    const whole = await call('fjord', BN254_PAIRING, 587 * 192, GAS)
    expect(whole.error).toBeUndefined()
    expect(whole.gasUsed).toBe(45_000n + 34_000n * 587n)
  }, 60_000)
})
