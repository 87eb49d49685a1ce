/**
 * POST /v1/simulate/batch (interface §5).
 * - An array of shape-A requests: each item is validated and simulated on its own, concurrently;
 *   `data[i]` is `{simulationId, status, gasUsed}` plus `error` (a failure envelope's error object)
 *   when item i did not succeed. One bad item never fails the batch; an item that never ran (e.g.
 *   invalid) is `{simulationId: null, error}`.
 * - `{transactions, blockNumber}`: one simulation, the transactions in sequence; `data[i]` is the
 *   summary of transaction i with the shared `simulationId` and its `callIndex`.
 * Both are bounded by `max_batch_size` (413 PAYLOAD_TOO_LARGE).
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import type { RunAt } from '../../engine/types.js'
import { z } from '@hono/zod-openapi'
import { ApiError, validationError } from '../errors/apiError.js'
import type { HttpEnv } from '../httpEnv.js'
import { fromTagOrNumber } from '../normalize/blockSelector.js'
import { toCallInput } from '../normalize/callInput.js'
import { readJson, validate } from '../normalize/parseBody.js'
import { batchItem, envelope } from '../schemas/responses.js'
import { batchRequest, sequenceBatchRequest, simulationRequest } from '../schemas/simulate.js'
import type { RouteContext } from './context.js'
import { runAt } from '../runAt.js'
import { document } from './document.js'
import { callFailure, simulationFailure } from './simulationFailure.js'
import { toSimulateParams } from './simulationParams.js'

type BatchItem = z.output<typeof batchItem>

export function registerBatch(app: OpenAPIHono<HttpEnv>, ctx: RouteContext): void {
  document(app, {
    method: 'post',
    path: '/v1/simulate/batch',
    tags: ['simulation'],
    summary: 'Simulate independent requests (array) or a sequence of transactions ({transactions, blockNumber})',
    description:
      'Array form: each item is a shape-A request simulated independently (own block selector, in parallel); a failing or invalid item carries `error` in its slot and never fails the batch. ' +
      'Object form: one simulation of `transactions` in sequence. Each item`s full result is stored: GET /v1/simulations/{simulationId}.',
    body: batchRequest,
    ok: {
      schema: envelope(z.array(batchItem)),
      description: 'one summary per item, in request order',
      example: { success: true, data: [{ simulationId: 'sim_3f1b2c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', status: 'success', gasUsed: '0xcb3c' }] },
    },
    errors: [400, 413, 415, 502, 504],
  })

  app.post('/v1/simulate/batch', async (c) => {
    const body = await readJson(c)
    const requestId = c.get('requestId')
    const max = ctx.config.limits.max_batch_size
    if (Array.isArray(body)) {
      assertBatchSize(body.length, max, 'requests')
      if (body.length === 0) throw validationError([{ path: '', message: 'the batch is empty' }])
      const at = runAt(c)
      const data = await Promise.all(body.map((item) => simulateItem(item, ctx, at, requestId)))
      return c.json({ success: true, data }, 200)
    }
    if (typeof body === 'object' && body !== null && Array.isArray((body as { transactions?: unknown }).transactions)) {
      assertBatchSize((body as { transactions: unknown[] }).transactions.length, max, 'transactions')
    }
    const req = validate(sequenceBatchRequest, body)
    const calls = req.transactions.map((call, i) => toCallInput(call, `transactions[${i}]`))
    const result = await ctx.engine.simulate(runAt(c), {
      calls,
      block: fromTagOrNumber(req.blockNumber, 'blockNumber'),
      validation: false,
      traceAssetChanges: false,
      traceTransfers: false,
    })
    const data: BatchItem[] = result.calls.map((call) => ({
      simulationId: result.simulationId,
      callIndex: call.callIndex,
      status: call.status,
      gasUsed: call.gasUsed,
      ...(call.status !== 'success' && { error: callFailure(call, calls[call.callIndex]).toBody() }),
    }))
    return c.json({ success: true, data }, 200)
  })
}

async function simulateItem(item: unknown, ctx: RouteContext, at: RunAt, requestId: string): Promise<BatchItem> {
  try {
    const params = toSimulateParams(validate(simulationRequest, item), ctx.config.limits.max_calls_per_simulation)
    const result = await ctx.engine.simulate(at, params)
    const failure = simulationFailure(result, params.calls)
    return {
      simulationId: result.simulationId,
      status: result.status,
      gasUsed: result.gasUsed,
      ...(failure && { error: ctx.toErrorBody(failure, requestId) }),
    }
  } catch (err) {
    return { simulationId: null, error: ctx.toErrorBody(err, requestId) } as BatchItem
  }
}

function assertBatchSize(count: number, max: number, what: string): void {
  if (count > max) {
    throw new ApiError(
      'PAYLOAD_TOO_LARGE',
      `the batch has ${count} ${what}; at most ${max} are allowed`,
      { count, max },
      'split the batch into several requests',
    )
  }
}
