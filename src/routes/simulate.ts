/**
 * POST /v1/simulate (interface §4). The body's keys decide the shape: `transaction` → shape B
 * (struct-log steps, `{success, result}`), otherwise shape A (`params`, `{success, data}`).
 * A call that did not succeed makes the answer 422 with the full result in `details`.
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import { z } from '@hono/zod-openapi'
import type { RunAt, StepTraceResult } from '../../engine/types.js'
import type { HttpEnv } from '../httpEnv.js'
import { fromTagOrNumber } from '../normalize/blockSelector.js'
import { toCallInput } from '../normalize/callInput.js'
import { fromOverrideList, toBlockOverrides } from '../normalize/overrides.js'
import { readJson, validate } from '../normalize/parseBody.js'
import { envelope, simulationResult, stepSimulationEnvelope } from '../schemas/responses.js'
import { simulationRequest, stepSimulationRequest } from '../schemas/simulate.js'
import type { RouteContext } from './context.js'
import { runAt } from '../runAt.js'
import { document } from './document.js'
import { callFailure, simulationFailure } from './simulationFailure.js'
import { toSimulateParams } from './simulationParams.js'

export function registerSimulate(app: OpenAPIHono<HttpEnv>, ctx: RouteContext): void {
  document(app, {
    method: 'post',
    path: '/v1/simulate',
    tags: ['simulation'],
    summary: 'Simulate calls (shape A) or one transaction with struct-log steps (shape B)',
    description:
      'Shape A (`params`): the calls run in order on the selected block, each on the state the previous left. ' +
      'Answers 422 SIMULATION_EXECUTION_FAILED / INSUFFICIENT_GAS when a call does not succeed, with the full result in `error.details.simulation`. ' +
      'Shape B (`transaction`): one transaction, answered as `{success, result}` with struct-log steps, storage and memory changes.',
    body: z.union([simulationRequest, stepSimulationRequest]),
    ok: { schema: z.union([envelope(simulationResult), stepSimulationEnvelope]), description: 'every call succeeded' },
    errors: [400, 404, 413, 415, 422, 502, 504],
  })

  app.post('/v1/simulate', async (c) => {
    const body = await readJson(c)
    if (isShapeB(body)) return c.json({ success: true, result: await simulateSteps(body, ctx, runAt(c)) }, 200)

    const req = validate(simulationRequest, body)
    const params = toSimulateParams(req, ctx.config.limits.max_calls_per_simulation)
    const result = await ctx.engine.simulate(runAt(c), params)
    const failure = simulationFailure(result, params.calls)
    if (failure) throw failure
    return c.json({ success: true, data: result }, 200)
  })
}

function isShapeB(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && 'transaction' in body && !('params' in body)
}

async function simulateSteps(body: unknown, ctx: RouteContext, at: RunAt): Promise<Omit<StepTraceResult, 'success' | 'error'>> {
  const req = validate(stepSimulationRequest, body)
  const call = toCallInput(req.transaction, 'transaction')
  const result = await ctx.engine.simulateSteps(at, {
    call,
    block: fromTagOrNumber(req.blockNumber, 'blockNumber'),
    traceConfig: req.traceConfig ?? {},
    ...withDefined('stateOverrides', fromOverrideList(req.stateOverrides, 'stateOverrides')),
    ...withDefined('blockOverrides', toBlockOverrides(req.blockOverrides, 'blockOverrides')),
  })
  const { success, error, ...rest } = result
  if (!success) {
    const status = /revert/i.test(error?.message ?? '') ? 'reverted' : 'failed'
    throw callFailure({ callIndex: 0, status, returnData: result.returnValue, gasUsed: result.gasUsed, logs: result.logs, ...(error && { error }) }, call, rest)
  }
  return rest
}

export const withDefined = <K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> =>
  value === undefined ? {} : ({ [key]: value } as Record<K, V>)
