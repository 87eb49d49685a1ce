/**
 * simulateSteps: POST /simulate shape B (interface §4): one call with an opcode trace shaped by
 * `traceConfig` (stepTracer.ts), its storage changes (told by variable in `decoded` where the
 * contract's storage layout is known: engine/sources/storageLayout) and memory writes. Same call
 * semantics as shape A (state overrides, block overrides, gas default and cap, no validation);
 * not stored (shape B has no id).
 */
import { toHex } from 'viem'
import { decodeLogs, createTokenInfoReader } from '../../decoding/index.js'
import { executeCall } from '../../execution/executeTransaction.js'
import { createStateBalanceReader } from '../../execution/observers/index.js'
import { openRun, withCallDefaults, type RunDeps } from '../../run/index.js'
import type { SimulatedLog, StepTraceParams, StepTraceResult } from '../../types.js'
import { createKeccakPreimages } from '../../execution/observers/keccakPreimages.js'
import { decodeAccounts, Preimages } from '../../sources/storageLayout/index.js'
import { createRevertLocator } from './revertLocator.js'
import { revertReason } from './revertReason.js'
import { createStepTracer } from './stepTracer.js'

export async function simulateSteps(
  deps: Pick<RunDeps, 'chain' | 'gasCap' | 'maxStructLogSteps' | 'sources'>,
  params: StepTraceParams,
): Promise<StepTraceResult> {
  const { ctx } = await openRun(deps.chain, { ...params, calls: [params.call], sources: deps.sources })
  const call = withCallDefaults('simulate', params.call, { blockGasLimit: ctx.block.gasLimit, gasCap: deps.gasCap })
  const steps = createStepTracer(params.traceConfig, { maxSteps: deps.maxStructLogSteps })
  const locator = createRevertLocator()
  // storage changes told by variable: only when some source is known (the hashes are kept for it)
  const sources = deps.sources ? await deps.sources.index() : undefined
  const preimages = sources && !sources.empty ? createKeccakPreimages() : undefined
  const res = await executeCall(ctx, call, { tracers: [steps, locator, ...(preimages ? [preimages] : [])] })
  const trace = steps.result()
  const decoded = preimages && sources ? await decodeAccounts(trace.storageChanges, new Preimages(preimages.result()), sources, ctx.state) : {}

  const logs: SimulatedLog[] = res.logs.map((l, i) => ({ ...l, logIndex: toHex(i) }))
  const decodedLogs = logs.length ? await decodeLogs(logs, createTokenInfoReader(createStateBalanceReader(ctx, executeCall).call)) : []
  logs.forEach((l, i) => decodedLogs[i] && (l.decoded = decodedLogs[i]))

  const result: StepTraceResult = {
    success: res.status === 'success',
    gasUsed: toHex(res.gasUsed),
    gasLimit: toHex(call.gas),
    logs,
    returnValue: res.returnData,
    trace: {
      steps: trace.steps,
      storageChanges: trace.storageChanges,
      ...(Object.keys(decoded).length > 0 && { decoded }),
      memoryChanges: trace.memoryChanges,
    },
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
