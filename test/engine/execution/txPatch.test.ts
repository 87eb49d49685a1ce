/**
 * `patches/@ethereumjs+tx+10.1.3.patch` prices calldata by counting its zero bytes as a number and
 * making one bigint of the sum, where ethereumjs added a bigint per byte (a new bigint each, and
 * several times per transaction run: the service's transactions are unfrozen, so nothing is
 * cached). These tests hold the patched prices to the stock per-byte sums on calldata of every
 * shape, a contract creation's init-code charge included, and fail if the patch is not applied.
 */
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { countCalldataFloorTokens, createLegacyTx, paramsTx } from '@ethereumjs/tx'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'

// the stock loops, as ethereumjs 10.1.3 wrote them
const stockDataGas = (data: Uint8Array, zero: bigint, nonZero: bigint) => {
  let cost = 0n
  for (let i = 0; i < data.length; i++) data[i] === 0 ? (cost += zero) : (cost += nonZero)
  return cost
}
const stockFloorTokens = (data: Uint8Array) => {
  let tokens = 0n
  for (let i = 0; i < data.length; i++) tokens += data[i] === 0 ? 1n : 4n
  return tokens
}

const shapes: Record<string, Uint8Array> = {
  empty: new Uint8Array(0),
  'all zero': new Uint8Array(100),
  'no zero': new Uint8Array(100).fill(7),
  'a transfer': Uint8Array.from({ length: 68 }, (_, i) => (i < 4 || i % 32 > 28 ? 0xa9 : 0)),
  'mixed, 24 kB': Uint8Array.from({ length: 24_576 }, (_, i) => ((i * 7919) % 3 === 0 ? 0 : (i * 31) & 255)),
}

describe('calldata prices (the tx patch)', () => {
  it('is applied to both builds of the package', () => {
    const cjs = createRequire(import.meta.url).resolve('@ethereumjs/tx') // …/dist/cjs/index.js
    for (const flavor of ['cjs', 'esm']) {
      for (const file of ['capabilities/legacy.js', 'util/intrinsic.js'])
        expect(readFileSync(join(dirname(cjs), '..', flavor, file), 'utf8')).toContain('evm-sim-service patch')
    }
  })

  for (const hardfork of [Hardfork.Istanbul, Hardfork.Shanghai, Hardfork.Prague]) {
    it(`are the stock per-byte sums on ${hardfork}: data gas, init-code words, the EIP-7623 floor's tokens`, () => {
      const common = new Common({ chain: Mainnet, hardfork, params: paramsTx })
      const zero = common.param('txDataZeroGas')
      const nonZero = common.param('txDataNonZeroGas')
      for (const [name, data] of Object.entries(shapes)) {
        for (const to of ['0x1111111111111111111111111111111111111111' as const, undefined]) {
          const tx = createLegacyTx({ to, data, gasLimit: 30_000_000n }, { common, freeze: false })
          // a creation pays per 32-byte word of init code from Shanghai (EIP-3860)
          const initCode = to === undefined && common.isActivatedEIP(3860) ? common.param('initCodeWordGas') * BigInt(Math.ceil(data.length / 32)) : 0n
          expect(tx.getDataGas(), `${name}, ${to ? 'call' : 'creation'}`).toBe(stockDataGas(data, zero, nonZero) + initCode)
          // the EIP-7623 floor's tokens (counted the stock way before EIP-7976 prices every byte alike)
          expect(countCalldataFloorTokens(tx), `${name} floor tokens`).toBe(stockFloorTokens(data))
        }
      }
    })
  }
})
