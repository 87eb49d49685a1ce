/**
 * The params of the eth_ methods the engine runs itself (eth_call, eth_estimateGas,
 * eth_createAccessList) and of alchemy_simulateAssetChanges, with geth's rules and words: the
 * call object (src/params/callObject.ts) as geth's TransactionArgs with its chain id checked,
 * geth's BlockNumberOrHash, StateOverride and BlockOverrides. A field geth knows but the engine
 * cannot honour, or a field nobody knows, is refused by name rather than dropped.
 *
 * @example
 * await callParams(4)([{ to, data }, 'latest'], ctx) // { call, block: { tag: 'latest' } }
 */
import type { BlockRef, CallParams } from '../../../engine/types.js'
import { BLOB_FIELDS, CALL_FIELDS, type CallRules, parseCall, type ParsedCall } from '../../params/callObject.js'
import { readBlock } from '../../params/blockSelector.js'
import { type OverrideRules, parseStateOverrides } from '../../params/stateOverrides.js'
import type { RpcContext } from '../types.js'
import { argReader, atMost, ETH, required } from './argReader.js'
import { parseBlockOverrides } from './blockOverrides.js'

/** eth_call's TransactionArgs: EIP-7702 authorizations read, blob fields refused unless empty, the chain id checked */
export const ETH_CALL: CallRules = {
  fields: [...CALL_FIELDS, 'authorizationList'],
  refused: { fields: BLOB_FIELDS, why: 'blob transaction fields are not supported by this endpoint', unlessEmpty: true },
  accessList: { keys: 'padded', strictEntries: false },
  feeChecks: 'all',
  chainId: 'check',
  type: 'read',
  authorizations: 'read',
}

export const ETH_OVERRIDES: OverrideRules = { slots: 'padded', movePrecompile: { refused: 'not supported by eth_call here (eth_simulateV1 takes it)' } }

/** the chain's id, which a call's `chainId` must match (geth's check) */
async function chainIdOf(ctx: RpcContext): Promise<number> {
  return Number(BigInt((await ctx.engine.readChain(ctx.at, 'eth_chainId', [])) as string))
}

/** the call object of argument 0 */
export async function callArg(params: unknown[], ctx: RpcContext): Promise<ParsedCall> {
  const chainId = await chainIdOf(ctx)
  return parseCall(argReader(0, ETH), required(params, 0), '', ETH_CALL, { chainId })
}

/** geth BlockNumberOrHash (a hash is resolved by the engine); `latest` when absent */
export const blockArg = (v: unknown, index: number): BlockRef => readBlock(argReader(index, ETH), v, '')

/** `[call, block?, stateOverrides?, blockOverrides?]`: eth_call and eth_estimateGas take 4, eth_createAccessList 3 */
export const callParams =
  (max: 3 | 4) =>
  async (params: unknown[], ctx: RpcContext): Promise<CallParams> => {
    atMost(params, max)
    const call = await callArg(params, ctx)
    const block = blockArg(params[1], 1)
    const stateOverrides = parseStateOverrides(argReader(2, ETH), params[2], '', ETH_OVERRIDES)
    const blockOverrides = max === 4 ? parseBlockOverrides(params[3], 3, '') : undefined
    return { call, block, ...(stateOverrides && { stateOverrides }), ...(blockOverrides && { blockOverrides }) }
  }

/** alchemy_simulateAssetChanges: `[call, block?]` */
export async function assetChangesParams(params: unknown[], ctx: RpcContext): Promise<{ call: ParsedCall; block: BlockRef }> {
  atMost(params, 2)
  const call = await callArg(params, ctx)
  return { call, block: blockArg(params[1], 1) }
}
