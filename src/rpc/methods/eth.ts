/**
 * The eth_ methods the engine runs itself (never forwarded): eth_call (state overrides 3rd param,
 * block overrides 4th), eth_estimateGas (geth's search; the same overrides) and
 * eth_createAccessList (state overrides 3rd param), with geth's answers: a revert is code 3,
 * `execution reverted: <reason>`, `data` the revert bytes (viem and ethers decode custom errors
 * from it); a revert without bytes and every other failure is -32000 with geth's text.
 */
import type { Hex } from 'viem'
import { RpcError } from '../rpcError.js'
import type { RpcContext, RpcMethodTable } from '../types.js'
import { parseBlockOverrides } from '../params/blockOverrides.js'
import { atMost, blockArg, callArgs, required, stateOverridesArg } from '../params/ethParams.js'

/** geth newRevertError: code 3 with the bytes, the reason when abi.UnpackRevert reads one */
export function revertError(data: Hex, reason: string | undefined): RpcError {
  return new RpcError(3, reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`, data)
}

async function callParams(params: unknown[], ctx: RpcContext, max: 3 | 4) {
  atMost(params, max)
  const chainId = (await ctx.engine.readChain(ctx.at, 'eth_chainId', [])) as string
  const call = callArgs(required(params, 0), 0, Number(BigInt(chainId)))
  const block = blockArg(params[1], 1)
  const stateOverrides = stateOverridesArg(params[2], 2)
  const blockOverrides = max === 4 ? parseBlockOverrides(params[3], 3, '') : undefined
  return { call, block, ...(stateOverrides && { stateOverrides }), ...(blockOverrides && { blockOverrides }) }
}

export const ethMethods: RpcMethodTable = {
  async eth_call(params, ctx) {
    const out = await ctx.engine.call(ctx.at, await callParams(params, ctx, 4))
    if (out.status === 'success') return out.returnData
    if (out.status === 'reverted' && out.returnData !== '0x') throw revertError(out.returnData, out.revertReason)
    throw new RpcError(-32000, out.error ?? 'execution reverted')
  },

  async eth_estimateGas(params, ctx) {
    const out = await ctx.engine.estimateGas(ctx.at, await callParams(params, ctx, 4))
    if ('gas' in out) return out.gas
    if (out.revertData !== undefined) throw revertError(out.revertData, out.revertReason)
    throw new RpcError(-32000, out.error)
  },

  async eth_createAccessList(params, ctx) {
    const { call, block, stateOverrides } = await callParams(params, ctx, 3)
    const out = await ctx.engine.accessList(ctx.at, { call, block, ...(stateOverrides && { stateOverrides }) })
    return { accessList: out.accessList, gasUsed: out.gasUsed, ...(out.error !== undefined && { error: out.error }) }
  },
}
