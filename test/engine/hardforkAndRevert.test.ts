/**
 * Hardfork selection (public chains by their schedule, others the default or the operator's
 * fork, the Osaka per-tx gas cap lifted like geth's RPC paths) and revert reason decoding
 * (geth's Panic texts, Error(string), custom errors by ABI, else the selector).
 */
import type { Common } from '@ethereumjs/common'
import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { describe, expect, it } from 'vitest'
import { encodeAbiParameters, encodeErrorResult, parseAbi, toFunctionSelector, type Hex } from 'viem'
import { createCommonFactory, DEFAULT_HARDFORK, networkName } from '../../engine/platform/hardfork.js'
import { panicReason, registerErrorAbi, revertReason } from '../../engine/operations/simulation/revertReason.js'

describe('hardfork', () => {
  it('follows mainnet’s schedule by block and time', () => {
    const at = createCommonFactory(1)
    expect(at({ number: 12_000_000n, timestamp: 1_615_000_000n }).hardfork()).toBe('muirGlacier')
    expect(at({ number: 15_537_394n, timestamp: 1_663_224_179n }).hardfork()).toBe('paris')
    expect(at({ number: 19_426_587n, timestamp: 1_710_338_135n }).hardfork()).toBe('cancun')
    expect(at({ number: 22_431_084n, timestamp: 1_746_612_311n }).hardfork()).toBe('prague')
    expect(networkName(1)).toBe('mainnet')
  })

  it('settles a block override that mixes a low number with a modern time (and the reverse)', () => {
    const at = createCommonFactory(1)
    expect(at({ number: 1n, timestamp: 1_746_612_311n }).hardfork()).toBe('prague')
    expect(at({ number: 20_000_000n, timestamp: 1n }).hardfork()).toBe('paris')
  })

  it('uses the default (or the operator’s) fork for other chains', () => {
    expect(DEFAULT_HARDFORK).toBe('osaka')
    expect(createCommonFactory(31337)({ number: 1n, timestamp: 1n }).hardfork()).toBe('osaka')
    expect(createCommonFactory(31337, 'cancun')({ number: 1n, timestamp: 1n }).hardfork()).toBe('cancun')
    expect(createCommonFactory(1, 'shanghai')({ number: 22_431_084n, timestamp: 1_746_612_311n }).hardfork()).toBe('shanghai')
    expect(networkName(8453)).toBe('chain-8453')
  })

  it('refuses an unknown fork name', () => {
    expect(() => createCommonFactory(31337, 'atlantis')).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }))
  })

  it('gives fresh Commons (a VM may change one) without the Osaka per-tx gas cap', () => {
    const make = createCommonFactory(31337)
    const a = make({ number: 1n, timestamp: 1n })
    expect(make({ number: 1n, timestamp: 1n })).not.toBe(a)
    // geth's RPC paths skip EIP-7825: a 30M-gas call must be constructible under Osaka
    const tx = createFeeMarket1559Tx({ gasLimit: 30_000_000n, maxFeePerGas: 1n }, { common: a })
    expect(tx.gasLimit).toBe(30_000_000n)
  })

  it('keeps each fork set once: blocks in any order get their own fork, and a Common changed by its run leaves the next alone', () => {
    const at = createCommonFactory(1)
    const blocks = [
      [{ number: 15_537_394n, timestamp: 1_663_224_179n }, 'paris'],
      [{ number: 22_431_084n, timestamp: 1_746_612_311n }, 'prague'],
      [{ number: 22_431_084n, timestamp: 1_746_612_311n }, 'prague'],
      [{ number: 12_000_000n, timestamp: 1_615_000_000n }, 'muirGlacier'],
      [{ number: 15_537_394n, timestamp: 1_663_224_179n }, 'paris'],
      [{ number: 1n, timestamp: 1_746_612_311n }, 'prague'],
    ] as const
    for (const [block, fork] of blocks) {
      const c = at(block) as Common & { _activatedEIPsCache: number[] }
      expect(c.hardfork()).toBe(fork)
      expect(c.isActivatedEIP(1559)).toBe(c._activatedEIPsCache.includes(1559))
      // what a VM may do to its Common: another fork, another listener
      c.setHardfork('osaka')
      c.events.on('hardforkChanged', () => undefined)
    }
    const again = at(blocks[0][0])
    expect(again.hardfork()).toBe('paris')
    expect(again.events.listenerCount('hardforkChanged')).toBe(0)
  })

  it('answers isActivatedEIP from a Set that follows every fork change, as ethereumjs’ list does', () => {
    const at = createCommonFactory(1)
    const c = at({ number: 12_000_000n, timestamp: 1_615_000_000n }) as Common & { _activatedEIPsCache: number[] }
    // the lookup is the Set's (an own property, kept by copies), not Array.includes on every opcode
    expect(Object.hasOwn(c, 'isActivatedEIP')).toBe(true)
    const candidates = [1153, 1559, 2929, 2930, 3198, 3529, 3855, 4844, 5656, 6780, 7002, 7702, 7823, 7939, 7951]
    const stock = (x: typeof c) => candidates.filter((e) => x._activatedEIPsCache.includes(e))
    const ours = (x: typeof c) => candidates.filter((e) => x.isActivatedEIP(e))
    expect(ours(c)).toEqual([]) // muirGlacier: none of these yet
    for (const [number, timestamp, fork] of [
      [12_244_000n, 1_618_481_223n, 'berlin'],
      [19_426_587n, 1_710_338_135n, 'cancun'],
      [22_431_084n, 1_746_612_311n, 'prague'],
    ] as const) {
      c.setHardforkBy({ blockNumber: number, timestamp })
      expect(c.hardfork()).toBe(fork)
      expect(ours(c)).toEqual(stock(c))
      const copy = c.copy() as typeof c
      copy.setHardfork('osaka')
      expect(ours(copy)).toEqual(stock(copy))
      expect(ours(c)).toEqual(stock(c)) // the copy's change leaves the original's answers alone
    }
    expect(ours(c)).toContain(7702)
  })
})

describe('revertReason', () => {
  const panic = (code: bigint): Hex => `0x4e487b71${encodeAbiParameters([{ type: 'uint256' }], [code]).slice(2)}`

  it('decodes Error(string)', () => {
    expect(revertReason(encodeErrorResult({ abi: parseAbi(['error Error(string)']), errorName: 'Error', args: ['nope'] }))).toBe('nope')
  })

  it('gives geth’s Panic texts', () => {
    expect(revertReason(panic(0x11n))).toBe('arithmetic underflow or overflow')
    expect(revertReason(panic(0x01n))).toBe('assert(false)')
    expect(revertReason(panic(0x32n))).toBe('out-of-bounds access of an array or bytesN')
    expect(panicReason(0x99n)).toBe('unknown panic code: 0x99')
  })

  it('names a custom error whose ABI is registered, else gives the selector', () => {
    const abi = parseAbi(['error Unlisted(address who, uint256 amount)'])
    const data = encodeErrorResult({ abi, errorName: 'Unlisted', args: ['0x00000000000000000000000000000000000000ab', 5n] })
    expect(revertReason(data)).toBe(toFunctionSelector('Unlisted(address,uint256)'))
    registerErrorAbi(abi)
    expect(revertReason(data)).toBe('Unlisted(0x00000000000000000000000000000000000000ab, 5)')
  })

  it('knows the standard ERC-6093 / OpenZeppelin errors out of the box', () => {
    const abi = parseAbi([
      'error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)',
      'error OwnableUnauthorizedAccount(address account)',
    ])
    const who = '0x00000000000000000000000000000000000000cd'
    expect(revertReason(encodeErrorResult({ abi, errorName: 'ERC20InsufficientBalance', args: [who, 1n, 2n] }))).toBe(`ERC20InsufficientBalance(${who}, 1, 2)`)
    expect(revertReason(encodeErrorResult({ abi, errorName: 'OwnableUnauthorizedAccount', args: [who] }))).toBe(`OwnableUnauthorizedAccount(${who})`)
  })

  it('nothing for an empty revert, the selector for malformed payloads', () => {
    expect(revertReason('0x')).toBeUndefined()
    expect(revertReason('0x08c379')).toBeUndefined()
    expect(revertReason('0x08c379a0ffff')).toBe('0x08c379a0')
  })
})
