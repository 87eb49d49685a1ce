/**
 * gasSearch: the lowest gas limit within the cap with which a call that ran out of gas succeeds
 * (interface §4 INSUFFICIENT_GAS `gasRequired`), found like geth's eth_estimateGas: first the
 * cap itself (if that fails too, no limit helps), then a binary search down to the exact lowest
 * limit (geth stops within 1.5%; an exact answer is what a caller can rely on).
 *
 * Like geth, the run at the cap bounds the search: the limit needed is at least the gas that run
 * used, and usually a little above it (refunds, the 63/64 rule), so an optimistic probe just
 * above it often settles the upper bound in one run and the search takes ~10 runs, not ~25.
 * `run(gas)` executes the call on a fresh copy of the state it started from.
 */
import { EngineError } from '../../platform/errors.js'

export interface GasProbe {
  ok: boolean
  /** receipt gas of the run */
  gasUsed: bigint
}

export async function findGasRequired(run: (gas: bigint) => Promise<GasProbe>, failedAt: bigint, gasCap: bigint): Promise<bigint | undefined> {
  const probe = async (gas: bigint): Promise<GasProbe> => {
    try {
      return await run(gas)
    } catch (e) {
      // below intrinsic gas is just "too low" here; anything else (state access) is real
      if (e instanceof EngineError && e.code === 'INSUFFICIENT_GAS') return { ok: false, gasUsed: 0n }
      throw e
    }
  }
  if (failedAt >= gasCap) return undefined
  const atCap = await probe(gasCap)
  if (!atCap.ok) return undefined
  // receipt gas is after refunds: the limit needed is at least that (minus nothing)
  let lo = atCap.gasUsed - 1n > failedAt ? atCap.gasUsed - 1n : failedAt
  let hi = gasCap
  const optimistic = (atCap.gasUsed * 64n) / 63n + 2_300n
  if (optimistic > lo && optimistic < hi) {
    if ((await probe(optimistic)).ok) hi = optimistic
    else lo = optimistic
  }
  while (hi - lo > 1n) {
    const mid = (hi + lo) / 2n
    if ((await probe(mid)).ok) hi = mid
    else lo = mid
  }
  return hi
}
