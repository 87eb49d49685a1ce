/** findGasRequired over a model call: exact lowest limit, no answer past the cap, intrinsic-gas rejections as "too low". */
import { describe, expect, it } from 'vitest'
import { EngineError } from '../../../../engine/platform/errors.js'
import { findGasRequired } from '../../../../engine/operations/simulation/gasSearch.js'

/** a call that needs `need` gas and reports `used` (after refunds) when it succeeds */
function model(need: bigint, used: bigint, intrinsic = 21_000n) {
  const runs: bigint[] = []
  const run = async (gas: bigint) => {
    runs.push(gas)
    if (gas < intrinsic) throw new EngineError('INSUFFICIENT_GAS', 'intrinsic gas too low')
    return gas >= need ? { ok: true, gasUsed: used } : { ok: false, gasUsed: gas }
  }
  return { run, runs }
}

describe('findGasRequired', () => {
  it('finds the exact lowest limit, in few runs', async () => {
    for (const [need, used] of [
      [123_457n, 100_000n],
      [50_000n, 50_000n],
      [2_000_000n, 1_200_000n],
      [21_000n, 21_000n],
    ] as const) {
      const m = model(need, used)
      expect(await findGasRequired(m.run, 20_000n, 30_000_000n)).toBe(need)
      expect(m.runs.length).toBeLessThanOrEqual(28) // cap + optimistic probe + log2(30M)
    }
  })

  it('uses the optimistic probe when the need is just above the gas used', async () => {
    const m = model(101_000n, 100_000n)
    await findGasRequired(m.run, 30_000n, 30_000_000n)
    expect(m.runs.length).toBeLessThanOrEqual(14)
  })

  it('gives nothing when even the cap is not enough, or the call already had the cap', async () => {
    expect(await findGasRequired(model(40_000_000n, 1n).run, 30_000n, 30_000_000n)).toBeUndefined()
    expect(await findGasRequired(model(1n, 1n).run, 30_000_000n, 30_000_000n)).toBeUndefined()
  })

  it('passes other failures through', async () => {
    const boom = async () => {
      throw new EngineError('STATE_ACCESS_ERROR', 'upstream RPC timed out')
    }
    await expect(findGasRequired(boom, 1n, 100n)).rejects.toMatchObject({ code: 'STATE_ACCESS_ERROR' })
  })
})
