/**
 * simulateSteps: POST /simulate shape B (interface §4): one call with an opcode trace shaped by
 * `traceConfig` (stepTracer.ts), its storage changes and memory writes. Same call
 * semantics as shape A (state overrides, block overrides, gas default and cap, no validation);
 * not stored (shape B has no id).
 */
import { toHex } from 'viem'
import { decodeLogs, createTokenInfoReader } from '../../decoding/index.js'
import { executeCall } from '../../execution/executeTransaction.js'
import { createStateBalanceReader } from '../../execution/observers/index.js'
import { openRun, withCallDefaults, type RunDeps } from '../../run/index.js'
import type { SimulatedLog, StepTraceParams, StepTraceResult } from '../../types.js'
import { createRevertLocator } from './revertLocator.js'
import { revertReason } from './revertReason.js'
import { createStepTracer } from './stepTracer.js'

export async function simulateSteps(deps: Pick<RunDeps, 'chain' | 'gasCap' | 'maxStructLogSteps'>, params: StepTraceParams): Promise<StepTraceResult> {
  const { ctx } = await openRun(deps.chain, { ...params, calls: [params.call] })
  const call = withCallDefaults('simulate', params.call, { blockGasLimit: ctx.block.gasLimit, gasCap: deps.gasCap })
  const steps = createStepTracer(params.traceConfig, { maxSteps: deps.maxStructLogSteps })
  const locator = createRevertLocator()
  const res = await executeCall(ctx, call, { tracers: [steps, locator] })
  const trace = steps.result()

  const logs: SimulatedLog[] = res.logs.map((l, i) => ({ ...l, logIndex: toHex(i) }))
  const decoded = logs.length ? await decodeLogs(logs, createTokenInfoReader(createStateBalanceReader(ctx, executeCall).call)) : []
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
