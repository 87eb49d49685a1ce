/**
 * Jovian's DA footprint (specs: jovian/exec-engine "DA Footprint Block Limit", jovian/l1-attributes;
 * op-geth core/types/rollup_cost.go EstimatedDASize, CalcDAFootprint): a transaction's footprint is
 * max(100, (836 500 × fastlzSize − 42 585 600) / 1e6) × the DA footprint gas scalar, a deposit's 0;
 * the scalar is the one the block's L1 attributes deposit carries, which writes the default 400
 * where the L1Block predeploy still holds 0.
 */
import { SimpleStateManager } from '@ethereumjs/statemanager'
import { Account, Address as EjsAddress, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { decodeDepositBytes, encodeDeposit } from '../../../../../engine/chains/rollups/opStack/deposit.js'
import { DA_FOOTPRINT_GAS_SCALAR_DEFAULT, L1_BLOCK, daFootprint } from '../../../../../engine/chains/rollups/opStack/l1Fee.js'
import { l1InfoDeposit } from '../../../../../engine/chains/rollups/opStack/l1Info.js'
import { createOpStackRules } from '../../../../../engine/chains/rollups/opStack/opStackRules.js'

// op-revm fast_lz.rs: sample_contract_call (a real OP transaction), 202 compressed bytes
const SAMPLE_CALL =
  '02f901550a758302df1483be21b88304743f94f80e51afb613d764fa61751affd3313c190a86bb870151bd62fd12adb8e41ef24f3f000000000000000000000000000000000000000000000000000000000000006e000000000000000000000000af88d065e77c8cc2239327c5edb3a432268e5831000000000000000000000000000000000000000000000000000000000003c1e5000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000a000000000000000000000000000000000000000000000000000000000000000148c89ed219d02f1a5be012c689b4f5b731827bebe000000000000000000000000c001a033fd89cb37c31b2cba46b6466e040c61fc9b2a3675a7f5f493ebd5ad77c497f8a07cdf65680e238392693019b4092f610222e71b7cec06449cb922b93b6a12744e'

async function l1BlockState(slot8: bigint): Promise<SimpleStateManager> {
  const state = new SimpleStateManager()
  const address = new EjsAddress(hexToBytes(L1_BLOCK))
  await state.putAccount(address, new Account())
  await state.putStorage(address, setLengthLeft(new Uint8Array([8]), 32), setLengthLeft(hexToBytes(`0x${slot8.toString(16).padStart(64, '0')}`), 32))
  return state
}

describe('Jovian DA footprint', () => {
  it("a transaction's footprint: the FastLZ estimate in bytes (202 compressed bytes: 126) times the scalar", () => {
    expect(daFootprint(hexToBytes(`0x${SAMPLE_CALL}`), 400n)).toBe(126n * 400n)
  })

  it('a small transaction counts as 100 bytes; a deposit counts nothing', () => {
    expect(daFootprint(hexToBytes('0x02c0'), 600n)).toBe(100n * 600n)
    expect(daFootprint(hexToBytes('0x7ec0'), 600n)).toBe(0n)
  })

  it("the L1 attributes deposit carries L1Block's scalar, or the default 400 where L1Block holds 0", async () => {
    // slot 8: daFootprintGasScalar (bytes 18..20) | operatorFeeScalar (20..24) | operatorFeeConstant (24..32)
    const set = await l1InfoDeposit(await l1BlockState((7n << 96n) | (5n << 64n) | 3n), 'jovian')
    const unset = await l1InfoDeposit(await l1BlockState((5n << 64n) | 3n), 'jovian')
    expect(set.data.length).toBe(2 + 178 * 2)
    expect(set.data.slice(-4)).toBe('0007')
    expect(unset.data.slice(-4)).toBe(DA_FOOTPRINT_GAS_SCALAR_DEFAULT.toString(16).padStart(4, '0'))
    expect((await l1InfoDeposit(await l1BlockState(0n), 'isthmus')).data.length).toBe(2 + 176 * 2)
  })

  it("the rules' meter reads the scalar of the block's deposit, from Jovian only", async () => {
    const rules = createOpStackRules({ chainId: 10, hardfork: 'jovian' })
    const common = rules.commonFactory!({ number: 1n, timestamp: 1n })
    const deposit = decodeDepositBytes(encodeDeposit(await l1InfoDeposit(await l1BlockState(9n << 96n), 'jovian')), common)!.tx
    const meter = rules.daFootprintMeter!({ number: 1n, timestamp: 1n }, [deposit])!
    expect(meter(deposit, false)).toBe(0n)
    const isthmus = createOpStackRules({ chainId: 10, hardfork: 'isthmus' })
    expect(isthmus.daFootprintMeter!({ number: 1n, timestamp: 1n }, [deposit])).toBeUndefined()
  })
})
