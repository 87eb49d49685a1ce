/**
 * simulateSteps: POST /simulate shape B (decisions.md §4): one call with an opcode trace shaped by
 * `traceConfig` (tracers/stepTrace.ts), its storage changes and memory writes. Same call
 * semantics as shape A (state overrides, block overrides, gas default and cap, no validation);
 * not stored (shape B has no id).
 */
import { toHex } from 'viem'
import { decodeLogs, createTokenInfoReader } from '../decoding/index.js'
import { createStateBalanceReader } from '../observers/index.js'
import { applyStateOverrides, executionContext } from '../trace/index.js'
import type { SimulatedLog, StepTraceParams, StepTraceResult } from '../types.js'
import { createStepTracer } from '../../tracers/stepTrace.js'
import { createRevertLocator } from './revertLocator.js'
import { revertReason } from './revertReason.js'
import { callGas, fixedSelector, type SimulationDeps } from './simulate.js'
import { resolveAndPrefetch } from '../chain/resolveAndPrefetch.js'

export async function simulateSteps(
  deps: SimulationDeps & { maxStructLogSteps: number },
  params: StepTraceParams,
): Promise<StepTraceResult> {
  const header = await resolveAndPrefetch(deps.chain, fixedSelector(params.block), [params.call])
  const state = await deps.chain.stateAfter(header.number)
  await applyStateOverrides(state, params.stateOverrides)
  const ctx = executionContext(deps.chain, header, state, params.blockOverrides)
  const call = { ...params.call, gas: callGas(params.call, ctx.block.gasLimit, deps.gasCap) }
  const steps = createStepTracer(params.traceConfig, { maxSteps: deps.maxStructLogSteps })
  const locator = createRevertLocator()
  const res = await deps.execute(ctx, call, { tracers: [steps, locator] })
  const trace = steps.result()

  const logs: SimulatedLog[] = res.logs.map((l, i) => ({ ...l, logIndex: toHex(i) }))
  const decoded = logs.length ? await decodeLogs(logs, createTokenInfoReader(createStateBalanceReader(ctx, deps.execute).call)) : []
  logs.forEach((l, i) => decoded[i] && (l.decoded = decoded[i]))

  const result: StepTraceResult = {
    success: res.status === 'success',
    gasUsed: toHex(res.gasUsed),
    gasLimit: toHex(call.gas),
    logs,
    returnValue: res.returnData,
    trace: { steps: trace.steps, storageChanges: trace.storageChanges, memoryChanges: trace.memoryChanges },
  }
  if (res.status !== 'success') {
    const reason = res.status === 'reverted' ? revertReason(res.returnData) : undefined
    const contractAddress = locator.result() ?? call.to ?? undefined
    result.error = {
      message: res.error ?? 'execution reverted',
      ...(res.status === 'reverted' && res.returnData !== '0x' && { revertData: res.returnData }),
      ...(reason !== undefined && { revertReason: reason }),
      ...(contractAddress && { contractAddress }),
    }
  }
  return result
}
