/**
 * gasSearch: the lowest gas limit within the cap with which a call that ran out of gas succeeds
 * (decisions.md §4 INSUFFICIENT_GAS `gasRequired`), found like geth's eth_estimateGas: first the
 * cap itself (if that fails too, no limit helps), then a binary search between the failing limit
 * and the cap, down to the exact lowest limit (geth stops within 1.5%; ~25 runs of one call is
 * cheap, and an exact answer is what a caller can rely on). `run(gas)` executes the call on a fresh copy of the state it started from.
 */
import { EngineError } from '../errors.js'

export async function findGasRequired(
  run: (gas: bigint) => Promise<boolean>,
  failedAt: bigint,
  gasCap: bigint,
): Promise<bigint | undefined> {
  const ok = async (gas: bigint) => {
    try {
      return await run(gas)
    } catch (e) {
      // below intrinsic gas is just "too low" here; anything else (state access) is real
      if (e instanceof EngineError && e.code === 'INSUFFICIENT_GAS') return false
      throw e
    }
  }
  if (failedAt >= gasCap || !(await ok(gasCap))) return undefined
  let lo = failedAt
  let hi = gasCap
  while (hi - lo > 1n) {
    const mid = (hi + lo) / 2n
    if (await ok(mid)) hi = mid
    else lo = mid
  }
  return hi
}
