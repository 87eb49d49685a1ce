/**
 * The gas a call gets when the caller gives none, per operation: geth applies its CallDefaults
 * differently in each RPC, and so do we, from this one table.
 *
 * - `simulate` (eth_call, eth_simulateV1, /simulate shapes A and B): the block gas limit (the cap
 *   where a block has none), clamped to the cap. With validation, eth_simulateV1 shares the
 *   block's gas: the caller passes what is left of it as the block gas limit.
 * - `trace` (debug_traceCall) and `accessList` (eth_createAccessList): the RPC gas cap.
 * In every operation a gas above the cap is clamped to it (geth's "capping" warning, no error).
 *
 * @example
 * const call = withCallDefaults('trace', input, { blockGasLimit: ctx.block.gasLimit, gasCap })
 */
import type { CallInput } from '../execution/types.js'

export const GAS_DEFAULTS = {
  simulate: 'blockGasLimit',
  trace: 'gasCap',
  accessList: 'gasCap',
} as const satisfies Record<string, 'blockGasLimit' | 'gasCap'>

export type CallOperation = keyof typeof GAS_DEFAULTS

export interface GasLimits {
  /** the gas limit of the block the call runs in (after block overrides) */
  blockGasLimit: bigint
  /** default and maximum gas of a call (EngineOptions.gasCap) */
  gasCap: bigint
}

export function defaultGas(op: CallOperation, given: bigint | undefined, limits: GasLimits): bigint {
  const fallback = GAS_DEFAULTS[op] === 'blockGasLimit' && limits.blockGasLimit > 0n ? limits.blockGasLimit : limits.gasCap
  const wanted = given ?? fallback
  return wanted > limits.gasCap ? limits.gasCap : wanted
}

export function withCallDefaults(op: CallOperation, call: CallInput, limits: GasLimits): CallInput & { gas: bigint } {
  return { ...call, gas: defaultGas(op, call.gas, limits) }
}
