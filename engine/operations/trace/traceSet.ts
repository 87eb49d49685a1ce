/**
 * The tracers of one traced transaction: geth's (tracers/createTracers) plus our own `callTree`,
 * which is a callTracer (withLog) run alongside them and decoded once the transaction is done.
 * The geth tracers are untouched: `callTree` never changes what `callTracer` returns, and asking
 * for `callTree` alone runs no geth tracer (no default callTracer in the result).
 *
 * With sources known (`opts.sources`), a source-step observer runs beside the callTracer and the
 * tree shows contracts, revert lines, internal calls (`callTree.internal`) and a backtrace
 * (engine/decoding/callTree/sourceFrames.ts); with none, nothing more runs than without.
 *
 * `gasProfile`, also our own, is one more observer (engine/execution/observers/gasProfile.ts) over
 * the same run, its answer named and shaped once the run is done (engine/decoding/gasProfile);
 * `frameSteps` likewise (engine/execution/observers/frameSteps.ts, engine/decoding/frameSteps).
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
import { createSourceSteps } from '../../execution/observers/sourceSteps.js'
import type { SourceIndex } from '../../sources/types.js'
import { type SourceLookup, withDecodedStorage } from './decodedStorage.js'
import { createGasProfile } from '../../execution/observers/gasProfile.js'
import { gasProfileReport } from '../../decoding/gasProfile/index.js'
import { createFrameSteps } from '../../execution/observers/frameSteps.js'
import { frameStepsReport } from '../../decoding/frameSteps/index.js'

export interface TraceSet {
  tracers: Tracer[]
  /** after the execution; `ctx` is the state the transaction left, for labels */
  result(ctx: ExecutionContext, execute: ExecuteCall): Promise<TraceResult>
}

export interface TraceSetOptions extends CreateTracersOptions {
  /** the contracts whose sources the service knows; absent or empty: no source step is observed */
  sources?: SourceIndex
  /** a prestate diff's accounts looked up at the verified-sources service, when one is configured */
  lookup?: SourceLookup
}

export function createTraceSet(config: TracerConfig, opts: TraceSetOptions): TraceSet {
  return withDecodedStorage(createTracerSet(config, opts), config, opts.sources, opts.lookup)
}

function createTracerSet(config: TracerConfig, opts: TraceSetOptions): TraceSet {
  const { callTree, gasProfile, frameSteps, ...geth } = config
  const { sources, ...tracerOpts } = opts
  if (!callTree && !gasProfile && !frameSteps) {
    const set = createTracers(config, tracerOpts)
    return { tracers: set.tracers, result: async () => set.result() }
  }
  const base = tracersAskedFor(geth).length > 0 ? createTracers(geth, tracerOpts) : undefined
  const tree = callTree ? callTreeParts(callTree, sources) : undefined
  const profile = gasProfile ? createGasProfile({ sources }) : undefined
  const steps = frameSteps ? createFrameSteps(frameSteps, { sources }) : undefined
  return {
    tracers: [...(base?.tracers ?? []), ...(tree?.tracers ?? []), ...(profile ? [profile] : []), ...(steps ? [steps] : [])],
    async result(ctx, execute) {
      const out = base?.result() ?? {}
      if (steps) out.frameSteps = frameStepsReport(steps.result(), frameSteps!)
      if (tree) out.callTree = await tree.result(ctx, execute)
      if (profile) out.gasProfile = await gasProfileReport(profile.result())
      return out
    },
  }
}

/** the callTracer and source steps a `callTree` runs, and the tree decoded from them */
function callTreeParts(callTree: NonNullable<TracerConfig['callTree']>, sources: SourceIndex | undefined) {
  const frames = createCallTracer({ withLog: true })
  const steps = sources && !sources.empty ? createSourceSteps({ index: sources, internal: callTree.internal === true }) : undefined
  return {
    tracers: [frames, ...(steps ? [steps] : [])] as Tracer[],
    async result(ctx: ExecutionContext, execute: ExecuteCall) {
      const tokens = createTokenInfoReader(createStateBalanceReader(ctx, execute).call)
      return decodeCallTree(frames.result(), { ...callTree, tokens, ...(steps && { sources: steps.result() }) })
    },
  }
}
