/**
 * blockEnvironment: the ExecutionContext a trace runs in — the resolved block's header (geth
 * eth_call/debug_traceCall semantics: header of block N over the state after block N), with the
 * request's block overrides applied. The hardfork follows the overridden number and time, as geth
 * derives its rules from the block context it executes in.
 *
 * @example
 * const ctx = await callContext(chain, header, state, { number: header.number + 1n })
 */
import type { StateManagerInterface } from '@ethereumjs/common'
import type { BlockHeaderInfo, ChainSource } from '../chains/types.js'
import type { BlockEnv, ExecutionContext } from '../execution/types.js'
import type { BlockOverrides } from '../vocabulary.js'

/** geth `override.BlockOverrides.Apply`: every given field replaces the header's */
export function applyBlockOverrides(header: BlockHeaderInfo, o: BlockOverrides | undefined): BlockHeaderInfo {
  if (!o) return header
  const env: BlockHeaderInfo = { ...header }
  if (o.number !== undefined) env.number = o.number
  if (o.time !== undefined) env.timestamp = o.time
  if (o.gasLimit !== undefined) env.gasLimit = o.gasLimit
  if (o.coinbase !== undefined) env.coinbase = o.coinbase
  if (o.baseFee !== undefined) env.baseFeePerGas = o.baseFee
  if (o.prevRandao !== undefined) env.prevRandao = o.prevRandao
  if (o.blobBaseFee !== undefined) env.blobBaseFee = o.blobBaseFee
  return env
}

/** strips the header-only fields: the execution layer takes a plain BlockEnv */
function toBlockEnv(h: BlockHeaderInfo): BlockEnv {
  const { hash: _hash, parentHash: _parentHash, gasUsed: _gasUsed, blobGasUsed: _blobGasUsed, extraData: _extraData, ...env } = h
  return env
}

export function executionContext(chain: ChainSource, header: BlockHeaderInfo, state: StateManagerInterface, overrides?: BlockOverrides): ExecutionContext {
  const env = applyBlockOverrides(header, overrides)
  return {
    ...(chain.runStop && { stop: chain.runStop }),
    common: chain.commonAt(env),
    state,
    block: toBlockEnv(env),
    getBlockHash: (n) => chain.getBlockHash(n),
    ...(chain.rules && { rules: chain.rules }),
  }
}
