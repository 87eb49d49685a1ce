/**
 * eth_simulateV1 (execution-apis src/eth/execute.yaml): params `[{ blockStateCalls,
 * traceTransfers, validation, returnFullTransactions }, block]`, read strictly (-32602 naming the
 * field), run by the engine, answered as geth prints it. A request the engine refuses as a whole
 * carries the spec's error name (engine/operations/simulateV1/simulateErrors.ts); this table gives its code.
 * Any other EngineError goes to the door's one mapping.
 */
import { isEngineError } from '../../../engine/types.js'
import { readSimulateV1Params } from '../params/simulateV1Params.js'
import { RpcError } from '../rpcError.js'
import { method, methodTable } from './table.js'

export { readSimulateV1Params }

/** execution-apis eth_simulateV1 errors (geth internal/ethapi/errors.go) */
export const SIMULATE_ERROR_CODES: Record<string, number> = {
  nonceTooLow: -38010,
  nonceTooHigh: -38011,
  feeCapTooLow: -38012,
  intrinsicGas: -38013,
  insufficientFunds: -38014,
  blockGasLimitReached: -38015,
  blockNumberOrder: -38020,
  blockTimestampOrder: -38021,
  movePrecompileSelf: -38022,
  movePrecompileDuplicate: -38023,
  senderNotEoa: -38024,
  maxInitCodeSize: -38025,
  clientLimitExceeded: -38026,
  invalidParams: -32602,
  invalidRequest: -32000,
  internal: -32603,
}

/** a request the engine refused as a whole, with the spec's code for it */
async function withSpecErrors<T>(run: Promise<T>): Promise<T> {
  try {
    return await run
  } catch (e) {
    const kind = isEngineError(e) ? e.details?.simulateError : undefined
    if (typeof kind === 'string' && kind in SIMULATE_ERROR_CODES) throw new RpcError(SIMULATE_ERROR_CODES[kind]!, e instanceof Error ? e.message : String(e))
    // geth's words for a base block it does not have (StateAndHeaderByNumberOrHash)
    if (isEngineError(e) && e.code === 'BLOCK_NOT_FOUND') throw new RpcError(-32000, 'header not found')
    throw e
  }
}

export const SIMULATE_V1_METHODS = [method(['eth_simulateV1'], readSimulateV1Params, (p, ctx) => withSpecErrors(ctx.engine.simulateV1(ctx.at, p)))]

export const simulateV1Methods = methodTable(SIMULATE_V1_METHODS)
