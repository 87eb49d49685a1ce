/**
 * eth_simulateV1 (execution-apis src/eth/execute.yaml): params `[{ blockStateCalls,
 * traceTransfers, validation, returnFullTransactions }, block]`, read strictly (-32602 naming the
 * field), run by the engine, answered as geth prints it. A request the engine refuses as a whole
 * carries the spec's error name (engine/operations/simulateV1/simulateErrors.ts); this table gives its code.
 * Any other EngineError goes to the door's one mapping.
 */
import { isEngineError } from '../../../engine/types.js'
import type { SimulateV1Block, SimulateV1Params } from '../../../engine/types.js'
import { RpcError } from '../rpcError.js'
import type { RpcMethodTable } from '../types.js'
import { parseBlockOverrides } from '../params/blockOverrides.js'
import { accountOverridesParam, blockParam, callParam, paramReader } from '../params/simulateV1Params.js'

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

export function readSimulateV1Params(params: unknown[]): SimulateV1Params {
  if (params.length < 1) throw new RpcError(-32602, 'missing value for required argument 0')
  if (params.length > 2) throw new RpcError(-32602, `too many arguments, want at most 2`)
  const r = paramReader(0)
  const opts = r.object(params[0], '', ['blockStateCalls', 'traceTransfers', 'validation', 'returnFullTransactions'])
  const blockStateCalls: SimulateV1Block[] = r.array(opts.blockStateCalls ?? [], 'blockStateCalls').map((b, i) => {
    const p = `blockStateCalls[${i}]`
    const o = r.object(b, p, ['blockOverrides', 'stateOverrides', 'calls'])
    const block: SimulateV1Block = {
      calls: r.array(o.calls ?? [], `${p}.calls`).map((c, j) => callParam(r, c, `${p}.calls[${j}]`)),
    }
    if (o.blockOverrides !== undefined && o.blockOverrides !== null)
      block.blockOverrides = parseBlockOverrides(o.blockOverrides, 0, `${p}.blockOverrides`, { simulate: true })
    if (o.stateOverrides !== undefined && o.stateOverrides !== null) block.stateOverrides = accountOverridesParam(r, o.stateOverrides, `${p}.stateOverrides`)
    return block
  })
  return {
    blockStateCalls,
    block: blockParam(params[1], 1),
    traceTransfers: r.bool(opts.traceTransfers, 'traceTransfers'),
    validation: r.bool(opts.validation, 'validation'),
    returnFullTransactions: r.bool(opts.returnFullTransactions, 'returnFullTransactions'),
  }
}

export const simulateV1Methods: RpcMethodTable = {
  async eth_simulateV1(params, ctx) {
    const request = readSimulateV1Params(params)
    try {
      return await ctx.engine.simulateV1(ctx.at, request)
    } catch (e) {
      const kind = isEngineError(e) ? e.details?.simulateError : undefined
      if (typeof kind === 'string' && kind in SIMULATE_ERROR_CODES) throw new RpcError(SIMULATE_ERROR_CODES[kind]!, e instanceof Error ? e.message : String(e))
      // geth's words for a base block it does not have (StateAndHeaderByNumberOrHash)
      if (isEngineError(e) && e.code === 'BLOCK_NOT_FOUND') throw new RpcError(-32000, 'header not found')
      throw e
    }
  },
}
