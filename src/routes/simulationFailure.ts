/**
 * A simulation whose calls did not all succeed → the failure of interface §4:
 * SIMULATION_EXECUTION_FAILED (INSUFFICIENT_GAS when the call ran out of gas) with
 * `details: {callIndex, revertReason, revertData, contractAddress, simulation}`; nothing is lost.
 */
import type { Address } from 'viem'
import type { CallInput } from '../../engine/types.js'
import type { CallResult, SimulationResult } from '../../engine/types.js'
import { ApiError } from '../errors/apiError.js'

export function firstFailedCall(result: SimulationResult): CallResult | undefined {
  return result.calls.find((c) => c.status !== 'success')
}

/** the failure for call `call` of a run; `simulation` is attached when given */
export function callFailure(call: CallResult, request: CallInput | undefined, simulation?: unknown): ApiError {
  const err = call.error
  const outOfGas = /out of gas/i.test(err?.message ?? '')
  const reason = err?.revertReason ?? err?.message ?? call.status
  const contractAddress: Address | null = err?.contractAddress ?? request?.to ?? null
  const details: Record<string, unknown> = {
    callIndex: call.callIndex,
    revertReason: err?.revertReason ?? null,
    revertData: err?.revertData ?? (call.status === 'reverted' ? call.returnData : null),
    contractAddress,
    ...(err?.message !== undefined && { error: err.message }),
    ...(err?.gasRequired !== undefined && { gasRequired: err.gasRequired }),
    ...(simulation !== undefined && { simulation }),
  }
  const verb = call.status === 'reverted' ? 'reverted' : 'failed'
  let suggestion: string
  if (outOfGas) {
    suggestion = err?.gasRequired
      ? `raise the call's gas limit to at least ${err.gasRequired}`
      : 'raise the gas limit; the call did not succeed within the gas cap'
  } else {
    suggestion = 'trace the call with POST /v1/trace/call (callTracer) to see the failing frame'
  }
  return new ApiError(outOfGas ? 'INSUFFICIENT_GAS' : 'SIMULATION_EXECUTION_FAILED', `call ${call.callIndex} ${verb}: ${reason}`, details, suggestion)
}

export function simulationFailure(result: SimulationResult, calls: CallInput[]): ApiError | undefined {
  const failed = firstFailedCall(result)
  if (!failed) {
    if (result.status === 'success') return undefined
    return new ApiError('SIMULATION_EXECUTION_FAILED', `simulation ${result.status}`, { simulation: result })
  }
  return callFailure(failed, calls[failed.callIndex], result)
}
