/**
 * `patches/@ethereumjs+vm+10.1.3.patch` adds `skipLogsBloom` to runTx: the engine never reads a
 * transaction's bloom or receipt (eth_simulateV1's header makes its own bloom from the logs), and
 * hashing every log's address and topics was 2% of a traced swap. Without the option runTx is
 * stock: the bloom and the receipt's bitvector are made. Fails if the patch is missing.
 */
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createLegacyTx } from '@ethereumjs/tx'
import { createAddressFromString, hexToBytes } from '@ethereumjs/util'
import { Bloom, createVM, runTx } from '@ethereumjs/vm'
import { describe, expect, it } from 'vitest'

const KEY = hexToBytes('0x4646464646464646464646464646464646464646464646464646464646464646')
const TOPIC = hexToBytes(`0x${'2a'.padStart(64, '0')}`)
const EMITTER = createAddressFromString('0x00000000000000000000000000000000000c0de5')

/** runs a transaction to a contract that emits LOG1(topic 0x2a) */
async function run(skipLogsBloom?: boolean) {
  const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague })
  const vm = await createVM({ common })
  // PUSH1 0x2a PUSH1 0 PUSH1 0 LOG1 STOP
  await vm.stateManager.putCode(EMITTER, hexToBytes('0x602a60006000a100'))
  const tx = createLegacyTx({ to: EMITTER, gasLimit: 100_000n, gasPrice: 10n }, { common }).sign(KEY)
  return runTx(vm, { tx, skipBalance: true, skipHardForkValidation: true, ...(skipLogsBloom === undefined ? {} : { skipLogsBloom }) })
}

describe('skipLogsBloom (the vm patch)', () => {
  it('leaves the bloom and the receipt bitvector out, and the logs in', async () => {
    const res = await run(true)
    expect(res.execResult.exceptionError).toBeUndefined()
    expect(res.execResult.logs).toHaveLength(1)
    expect(res.bloom).toBeUndefined()
    expect(res.receipt.bitvector).toBeUndefined()
  })

  it('makes the bloom as stock without the option', async () => {
    for (const res of [await run(), await run(false)]) {
      expect(res.bloom).toBeInstanceOf(Bloom)
      expect(res.bloom.check(TOPIC)).toBe(true)
      expect(res.bloom.check(EMITTER.bytes)).toBe(true)
      expect(res.receipt.bitvector).toEqual(res.bloom.bitvector)
    }
  })
})
