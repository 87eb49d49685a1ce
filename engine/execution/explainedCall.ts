/**
 * executeExplained: a call whose failure is explained by observers that a success does not need.
 *
 * What a traced run adds to an untraced one, for a run whose own observers read nothing (a plain
 * /simulate, eth_call), matters only when the call fails: geth's error text with the failing
 * step's details (`stack underflow (0 <=> 2)`, `invalid opcode: INVALID`) and the frame the
 * failure came from. The tracing itself costs about a tenth more CPU on a token transfer (the
 * adapter's per-message events, the tx context, a fact per step). So such a call first runs
 * untraced; only a failure runs again with the explainers, from a copy of the state the call
 * started from: the same state, block and call, so the same execution, now observed. The
 * failure's answer is the observed run's; the caller's state keeps the first run's writes, which
 * are the same.
 *
 * With observers of its own (transfers, a call tree) the run is traced anyway, and the
 * explainers ride along in that one run.
 *
 * @example
 * const locator = createRevertLocator()
 * const res = await executeExplained(ctx, call, { validation }, [locator])
 * if (res.status !== 'success') origin = locator.result()
 */
import type { StateManagerInterface } from '@ethereumjs/common'
import type { Tracer } from '../../tracers/types.js'
import { executeCall } from './executeTransaction.js'
import type { CallInput, ExecuteOptions, ExecutionContext, ExecutionResult } from './types.js'

export async function executeExplained(
  ctx: ExecutionContext,
  call: CallInput,
  opts: ExecuteOptions,
  explainers: Tracer[],
  /** a copy of the state the call starts from, when the caller keeps one anyway (left unchanged) */
  start?: StateManagerInterface,
): Promise<ExecutionResult> {
  if (opts.tracers?.length) return executeCall(ctx, call, { ...opts, tracers: [...opts.tracers, ...explainers] })
  const before = start ?? ctx.state.shallowCopy()
  const res = await executeCall(ctx, call, opts)
  if (res.status === 'success') return res
  // on a copy of it: the caller's start state stays as it was
  return executeCall({ ...ctx, state: before.shallowCopy() }, call, { ...opts, tracers: explainers })
}
