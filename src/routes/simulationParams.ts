/** Shape-A simulation request → engine `SimulateParams`, with the call-count limit (interface §4, §5). */
import type { SimulateParams } from '../../engine/types.js'
import type { z } from '@hono/zod-openapi'
import { ApiError, joinPath, validationError } from '../errors/apiError.js'
import { toBlockSelector } from '../normalize/blockSelector.js'
import { toCallInput } from '../normalize/callInput.js'
import { fromOverrideList, toBlockOverrides } from '../normalize/overrides.js'
import { toAddress } from '../normalize/quantities.js'
import { toCallTreeConfig } from '../normalize/abis.js'
import type { simulationRequest } from '../schemas/simulate.js'

export function toSimulateParams(req: z.output<typeof simulationRequest>, maxCalls: number, prefix = ''): SimulateParams {
  const p = req.params
  assertCallCount(p.calls.length, maxCalls, joinPath(prefix, 'params.calls'))
  const params: SimulateParams = {
    calls: p.calls.map((call, i) => toCallInput(call, joinPath(prefix, `params.calls[${i}]`))),
    block: toBlockSelector(p, joinPath(prefix, 'params')),
    validation: p.validation ?? false,
    traceAssetChanges: p.traceAssetChanges ?? false,
    traceTransfers: p.traceTransfers ?? false,
  }
  if (p.account !== undefined) params.account = toAddress(p.account)
  if (p.traceCalls) params.traceCalls = true
  if (p.abis || p.labels) {
    // ABIs and labels only serve the decoded tree: sent without it they would be silently unused
    if (!p.traceCalls)
      throw validationError([{ path: joinPath(prefix, p.abis ? 'params.abis' : 'params.labels'), message: 'only used with params.traceCalls: true' }])
    params.callTree = toCallTreeConfig({ abis: p.abis, labels: p.labels }, joinPath(prefix, 'params'))
  }
  const stateOverrides = fromOverrideList(req.options?.stateOverrides, joinPath(prefix, 'options.stateOverrides'))
  if (stateOverrides) params.stateOverrides = stateOverrides
  const blockOverrides = toBlockOverrides(req.options?.blockOverrides, joinPath(prefix, 'options.blockOverrides'))
  if (blockOverrides) params.blockOverrides = blockOverrides
  return params
}

export function assertCallCount(count: number, max: number, path: string): void {
  if (count > max) {
    throw new ApiError(
      'PAYLOAD_TOO_LARGE',
      `${path} has ${count} calls; at most ${max} are allowed`,
      { path, count, max },
      'split the calls into several requests',
    )
  }
}
