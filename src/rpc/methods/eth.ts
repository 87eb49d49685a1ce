/**
 * The eth_ methods the engine runs itself (never forwarded): eth_call (state overrides 3rd param,
 * block overrides 4th), eth_estimateGas (geth's search; the same overrides) and
 * eth_createAccessList (state overrides 3rd param), with geth's answers: a revert is code 3,
 * `execution reverted: <reason>`, `data` the revert bytes (viem and ethers decode custom errors
 * from it); a revert without bytes and every other failure is -32000 with geth's text.
 */
import type { Hex } from 'viem'
import type { AccessListResult, CallOutcome, GasEstimate } from '../../../engine/types.js'
import { callParams } from '../params/ethParams.js'
import { RpcError } from '../rpcError.js'
import { method, methodTable } from './table.js'

/** geth newRevertError: code 3 with the bytes, the reason when abi.UnpackRevert reads one */
export function revertError(data: Hex, reason: string | undefined): RpcError {
  return new RpcError(3, reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`, data)
}

/** eth_call's answer: the return data, or geth's error */
function callAnswer(out: CallOutcome): Hex {
  if (out.status === 'success') return out.returnData
  if (out.status === 'reverted' && out.returnData !== '0x') throw revertError(out.returnData, out.revertReason)
  throw new RpcError(-32000, out.error ?? 'execution reverted')
}

/** eth_estimateGas' answer: the gas, or geth's error */
function gasAnswer(out: GasEstimate): Hex {
  if ('gas' in out) return out.gas
  if (out.revertData !== undefined) throw revertError(out.revertData, out.revertReason)
  throw new RpcError(-32000, out.error)
}

/** eth_createAccessList's answer in geth's field order */
function accessListAnswer(out: AccessListResult) {
  return { accessList: out.accessList, gasUsed: out.gasUsed, ...(out.error !== undefined && { error: out.error }) }
}

export const ETH_METHODS = [
  method(['eth_call'], callParams(4), async (p, ctx) => callAnswer(await ctx.engine.call(ctx.at, p))),
  method(['eth_estimateGas'], callParams(4), async (p, ctx) => gasAnswer(await ctx.engine.estimateGas(ctx.at, p))),
  method(['eth_createAccessList'], callParams(3), async (p, ctx) => accessListAnswer(await ctx.engine.accessList(ctx.at, p))),
]

export const ethMethods = methodTable(ETH_METHODS)
