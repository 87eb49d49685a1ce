/**
 * The tracers of one traced transaction: geth's (tracers/createTracers) plus our own `callTree`,
 * which is a callTracer (withLog) run alongside them and decoded once the transaction is done.
 * The geth tracers are untouched: `callTree` never changes what `callTracer` returns, and asking
 * for `callTree` alone runs no geth tracer (no default callTracer in the result).
 *
 * Labels read token symbols on the state the transaction left (static calls, undone after).
 *
 * @example
 * const set = createTraceSet(config, { maxStructLogSteps })
 * await executeCall(ctx, call, { tracers: set.tracers })
 * const result = await set.result(ctx, executeCall)
 */
import { createTokenInfoReader } from '../../decoding/tokenInfo.js'
import { decodeCallTree } from '../../decoding/callTree/index.js'
import type { ExecuteCall, ExecutionContext } from '../../execution/types.js'
import { createStateBalanceReader } from '../../execution/observers/stateBalanceReader.js'
import type { TraceResult, TracerConfig } from '../../types.js'
import { createCallTracer } from '../../../tracers/callTracer.js'
import { createTracers, tracersAskedFor, type CreateTracersOptions } from '../../../tracers/createTracers.js'
import type { Tracer } from '../../../tracers/types.js'

export interface TraceSet {
  tracers: Tracer[]
  /** after the execution; `ctx` is the state the transaction left, for labels */
  result(ctx: ExecutionContext, execute: ExecuteCall): Promise<TraceResult>
}

export function createTraceSet(config: TracerConfig, opts: CreateTracersOptions): TraceSet {
  const { callTree, ...geth } = config
  if (!callTree) {
    const set = createTracers(config, opts)
    return { tracers: set.tracers, result: async () => set.result() }
  }
  const base = tracersAskedFor(geth).length > 0 ? createTracers(geth, opts) : undefined
  const frames = createCallTracer({ withLog: true })
  return {
    tracers: [...(base?.tracers ?? []), frames],
    async result(ctx, execute) {
      const out = base?.result() ?? {}
      const tokens = createTokenInfoReader(createStateBalanceReader(ctx, execute).call)
      out.callTree = await decodeCallTree(frames.result(), { ...callTree, tokens })
      return out
    },
  }
}
