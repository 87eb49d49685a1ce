/**
 * call: geth's eth_call — one call on the state after the selected block (state overrides
 * written first, block overrides in its environment), nothing stored, nothing decoded. The answer
 * is what geth's `DoCall` hands its RPC layer: the return data, or the failure in geth's words
 * with the revert bytes and their reason (`abi.UnpackRevert`: Error(string) or a Panic's text).
 *
 * @example
 * const out = await runCall(deps, { call: { from, to, data }, block: { tag: 'latest' } })
 * if (out.status === 'reverted') console.log(out.revertReason, out.returnData)
 */
import { toHex } from 'viem'
import { executeExplained } from '../../execution/explainedCall.js'
import { openRun, withCallDefaults, type RunDeps } from '../../run/index.js'
import type { CallOutcome, CallParams } from '../../types.js'
import { unpackRevert } from '../../../tracers/gethRevert.js'

const errorDetail = { result: () => undefined }

export async function runCall(deps: Pick<RunDeps, 'chain' | 'gasCap'>, params: CallParams): Promise<CallOutcome> {
  const { ctx } = await openRun(deps.chain, { ...params, calls: [params.call] })
  const call = withCallDefaults('simulate', params.call, { blockGasLimit: ctx.block.gasLimit, gasCap: deps.gasCap })
  // an observer with no hooks still makes the run report geth's error with its step details
  // (`stack underflow (0 <=> 2)`, `invalid opcode: INVALID`), as eth_call on geth does: a failed
  // call runs again observed (explainedCall.ts), a successful one runs once, untraced
  const res = await executeExplained(ctx, call, { validation: false }, [errorDetail])
  const out: CallOutcome = { status: res.status, returnData: res.returnData, gasUsed: toHex(res.gasUsed) }
  if (res.status !== 'success') {
    out.error = res.error ?? (res.status === 'reverted' ? 'execution reverted' : 'execution failed')
    const reason = res.status === 'reverted' ? unpackRevert(res.returnData) : undefined
    if (reason !== undefined) out.revertReason = reason
  }
  return out
}
