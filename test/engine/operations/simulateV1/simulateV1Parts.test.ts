/**
 * The parts of eth_simulateV1 on their own: geth's chain sanitizing (numbers, times, gaps, limits)
 * and the unsigned transactions whose hashes geth prints (checked against hashes the
 * execution-apis vectors recorded on geth; the legacy form against its RLP written out by hand).
 */
import { describe, expect, it } from 'vitest'
import { keccak256, toRlp } from 'viem'
import type { BlockHeaderInfo } from '../../../../engine/chains/types.js'
import { isEngineError } from '../../../../engine/platform/errors.js'
import { sanitizeChain } from '../../../../engine/operations/simulateV1/sanitizeChain.js'
import { simTransaction } from '../../../../engine/operations/simulateV1/simTransaction.js'

const base = { number: 100n, timestamp: 1000n } as BlockHeaderInfo
const kind = (f: () => unknown) => {
  try {
    f()
  } catch (e) {
    return isEngineError(e) ? [e.details?.simulateError, e.message] : e
  }
  return undefined
}

describe('sanitizeChain', () => {
  it('numbers +1 and times +12 s by default, a gap filled with empty blocks 12 s apart', () => {
    const out = sanitizeChain(base, [{ calls: [] }, { blockOverrides: { number: 104n }, calls: [] }, { blockOverrides: { time: 2000n }, calls: [] }])
    expect(out.map((b) => [b.blockOverrides.number, b.blockOverrides.time])).toEqual([
      [101n, 1012n],
      [102n, 1024n],
      [103n, 1036n],
      [104n, 1048n],
      [105n, 2000n],
    ])
  })
  it('refuses numbers or times that do not increase, and more than 256 blocks', () => {
    expect(kind(() => sanitizeChain(base, [{ blockOverrides: { number: 100n }, calls: [] }]))).toEqual([
      'blockNumberOrder',
      'block numbers must be in order: 100 <= 100',
    ])
    expect(kind(() => sanitizeChain(base, [{ blockOverrides: { time: 1000n }, calls: [] }]))).toEqual([
      'blockTimestampOrder',
      'block timestamps must be in order: 1000 <= 1000',
    ])
    expect(kind(() => sanitizeChain(base, [{ blockOverrides: { number: 357n }, calls: [] }]))).toEqual(['clientLimitExceeded', 'too many blocks'])
    expect(sanitizeChain(base, [{ blockOverrides: { number: 356n }, calls: [] }])).toHaveLength(256)
  })
})

describe('simTransaction', () => {
  const call = {
    from: '0xc000000000000000000000000000000000000000',
    to: '0xc100000000000000000000000000000000000000',
    data: '0x',
    value: 0x3e8n,
    gas: 0x2faf080n,
    nonce: 0n,
  } as const
  it('an EIP-1559 call hashes as geth recorded it (execution-apis ethSimulate-eth-send-should-produce-logs)', () => {
    const tx = simTransaction({ ...call, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n }, { chainId: 0xc72dd9d5e883en, london: true })
    expect(tx.type).toBe(2)
    expect(tx.hash).toBe('0xf1c5abb08809ef760f87aeabe7a87284c60797192dab6d2f0d26c27c9c038e9d')
  })
  it('a gasPrice makes it legacy, unsigned (v = r = s = 0)', () => {
    const tx = simTransaction({ ...call, gasPrice: 7n }, { chainId: 1n, london: true })
    expect(tx.type).toBe(0)
    // [nonce, gasPrice, gas, to, value, data, v, r, s]; viem's serializer refuses v = 0
    expect(tx.hash).toBe(keccak256(toRlp(['0x', '0x07', '0x02faf080', call.to, '0x03e8', '0x', '0x', '0x', '0x'])))
  })
})
