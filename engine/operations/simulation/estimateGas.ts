/**
 * estimateGas: geth's eth_estimateGas (eth/gasestimator), step for step, so a tool gets the same
 * number from us as from geth:
 * - the ceiling is the call's gas (when ≥ 21000), else the block gas limit; capped by what the
 *   sender's balance pays for at the call's fee cap, and by the RPC gas cap;
 * - a plain transfer to an account without code is tried at 21000 first;
 * - a run at the ceiling: a failure other than out of gas is the answer (revert bytes and all),
 *   out of gas there is `gas required exceeds allowance (N)`;
 * - then the optimistic probe at (used + refund + 2300) × 64/63 and a binary search (mid never
 *   above twice the floor) that stops within geth's 1.5 % error ratio — or, with `errorRatio` 0
 *   (a writable fork, as Anvil), at the exact minimum.
 * Every run starts on a fresh copy of the block's state (plus overrides). A probe below intrinsic
 * gas counts as a failed run, as in geth; any other rejection (funds, fee cap) is thrown.
 *
 * @example
 * const est = await estimateGas(deps, { call, block: { tag: 'latest' } }) // { gas: '0x5208' }
 */
import { createAddressFromString } from '@ethereumjs/util'
import { toHex } from 'viem'
import { EngineError, isEngineError } from '../../platform/errors.js'
import { executeCall } from '../../execution/executeTransaction.js'
import type { ExecutionResult } from '../../execution/types.js'
import { executionContext, openRun, type RunDeps } from '../../run/index.js'
import type { CallParams, GasEstimate } from '../../types.js'
import { unpackRevert } from '../../../tracers/gethRevert.js'

const TX_GAS = 21_000n
const CALL_STIPEND = 2_300n
/** geth internal/ethapi estimateGasErrorRatio */
export const GETH_ERROR_RATIO = 0.015

export async function estimateGas(deps: Pick<RunDeps, 'chain' | 'gasCap'>, params: CallParams, errorRatio = GETH_ERROR_RATIO): Promise<GasEstimate> {
  const { header, state: base, ctx } = await openRun(deps.chain, { ...params, calls: [params.call] })
  const call = params.call
  let hi = call.gas !== undefined && call.gas >= TX_GAS ? call.gas : ctx.block.gasLimit

  const feeCap = call.maxFeePerGas ?? call.gasPrice ?? 0n
  if (feeCap > 0n) {
    let available = (await base.getAccount(createAddressFromString(call.from)))?.balance ?? 0n
    const value = call.value ?? 0n
    if (value > 0n) {
      if (value >= available) throw new EngineError('VALIDATION_ERROR', 'insufficient funds for transfer')
      available -= value
    }
    const allowance = available / feeCap
    if (hi > allowance) hi = allowance
  }
  if (deps.gasCap > 0n && hi > deps.gasCap) hi = deps.gasCap

  /** one run at `gas` on a fresh copy; undefined = below intrinsic or floor data gas (a failed run, geth) */
  const run = async (gas: bigint): Promise<ExecutionResult | undefined> => {
    const probe = executionContext(deps.chain, header, await base.shallowCopy(), params.blockOverrides)
    try {
      return await executeCall(probe, { ...call, gas }, { validation: false })
    } catch (e) {
      if (isEngineError(e) && e.code === 'INSUFFICIENT_GAS') return undefined
      throw e
    }
  }
  const ok = (r: ExecutionResult | undefined) => r !== undefined && r.status === 'success'

  if (call.data === '0x' && call.to) {
    const code = await base.getCode(createAddressFromString(call.to))
    if (code.length === 0 && ok(await run(TX_GAS))) return { gas: toHex(TX_GAS) }
  }

  const atHi = await run(hi)
  if (!ok(atHi)) {
    if (atHi && !/^out of gas/.test(atHi.error ?? '')) {
      const error = atHi.error ?? 'execution reverted'
      if (atHi.status !== 'reverted' || atHi.returnData === '0x') return { error }
      const reason = unpackRevert(atHi.returnData)
      return { error, revertData: atHi.returnData, ...(reason !== undefined && { revertReason: reason }) }
    }
    return { error: `gas required exceeds allowance (${hi})` }
  }
  let lo = atHi!.gasUsed - 1n
  const optimistic = ((atHi!.gasUsed + (atHi!.gasRefund ?? 0n) + CALL_STIPEND) * 64n) / 63n
  if (optimistic < hi) {
    if (ok(await run(optimistic))) hi = optimistic
    else lo = optimistic
  }
  while (lo + 1n < hi) {
    if (Number(hi - lo) / Number(hi) < errorRatio) break
    let mid = (hi + lo) / 2n
    if (mid > lo * 2n) mid = lo * 2n
    if (ok(await run(mid))) hi = mid
    else lo = mid
  }
  return { gas: toHex(hi) }
}
