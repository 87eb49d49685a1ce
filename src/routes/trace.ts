/**
 * POST /v1/trace/tx, /v1/trace/call, /v1/trace/call-many (interface §8). `data` is keyed by the
 * tracer names requested (call-many: `data[bundle][tx]`); reverts are not errors here, they show
 * in the tracer output. On an OP-stack chain a call with a gas price also carries `l1Fee`,
 * `l1GasUsed` and `operatorFee` beside its tracers (call-many: their totals beside `data`), as a
 * simulation reports them (docs/decisions/0092-op-stack-fees-of-a-traced-call.md).
 *
 * A long struct log is streamed from the engine's temporary file (src/respond/jsonAnswer.ts).
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import { z } from '@hono/zod-openapi'
import { toHex, type Hex } from 'viem'
import type { RollupFeeFields } from '../../engine/types.js'
import type { HttpEnv } from '../httpEnv.js'
import { toBlockSelector } from '../normalize/blockSelector.js'
import { toCallInput } from '../normalize/callInput.js'
import { fromOverrideMap, toBlockOverrides } from '../normalize/overrides.js'
import { readJson, validate } from '../normalize/parseBody.js'
import { toTracerConfig } from '../normalize/tracerConfig.js'
import { callTraceResult, envelope, rollupFeeTotals, traceResult } from '../schemas/responses.js'
import { traceCallManyRequest, traceCallRequest, traceTxRequest } from '../schemas/trace.js'
import { jsonAnswer } from '../respond/jsonAnswer.js'
import type { RouteContext } from './context.js'
import { runAt } from '../runAt.js'
import { document } from './document.js'
import { assertCallCount } from './simulationParams.js'
import { withDefined } from './simulate.js'

const overrides = (req: { stateOverrides?: Record<string, object>; blockOverrides?: object }) => ({
  ...withDefined('stateOverrides', fromOverrideMap(req.stateOverrides as never, 'stateOverrides')),
  ...withDefined('blockOverrides', toBlockOverrides(req.blockOverrides as never, 'blockOverrides')),
})

export function registerTrace(app: OpenAPIHono<HttpEnv>, ctx: RouteContext): void {
  document(app, {
    method: 'post',
    path: '/v1/trace/tx',
    tags: ['trace'],
    summary: 'Trace a mined transaction by hash (debug_traceTransaction)',
    description:
      'Replayed on the state before it, every earlier transaction of its block applied first (the callTracer log index counts from the block start, as geth v1.17). Tracers: callTracer (default), prestateTracer, structLogger, 4byteTracer; combinable.',
    body: traceTxRequest,
    ok: { schema: envelope(traceResult), description: 'tracer outputs keyed by tracer name' },
    errors: [400, 404, 413, 415, 502, 504],
  })
  app.post('/v1/trace/tx', async (c) => {
    const req = validate(traceTxRequest, await readJson(c))
    const extra = overrides(req)
    const data = await ctx.engine.traceTransaction(
      runAt(c),
      req.transactionHash.toLowerCase() as Hex,
      toTracerConfig(req.tracerConfig),
      ...(Object.keys(extra).length ? [extra] : []),
    )
    return jsonAnswer(c, { success: true, data })
  })

  document(app, {
    method: 'post',
    path: '/v1/trace/call',
    tags: ['trace'],
    summary: 'Trace a hypothetical call (debug_traceCall)',
    body: traceCallRequest,
    ok: {
      schema: envelope(callTraceResult),
      description: 'tracer outputs keyed by tracer name; on an OP-stack chain, for a call with a gas price, its l1Fee, l1GasUsed and operatorFee beside them',
    },
    errors: [400, 404, 413, 415, 502, 504],
  })
  app.post('/v1/trace/call', async (c) => {
    const req = validate(traceCallRequest, await readJson(c))
    const data = await ctx.engine.traceCall(runAt(c), {
      call: toCallInput(req.call, 'call'),
      block: toBlockSelector(req, ''),
      tracerConfig: toTracerConfig(req.tracerConfig),
      ...overrides(req),
    })
    return jsonAnswer(c, { success: true, data })
  })

  document(app, {
    method: 'post',
    path: '/v1/trace/call-many',
    tags: ['trace'],
    summary: 'Trace bundles of calls in sequence, state carried over',
    description: '`data[b][t]` is the tracer output of transaction t of bundle b; bundles run one after another.',
    body: traceCallManyRequest,
    ok: {
      schema: envelope(z.array(z.array(callTraceResult))).extend(rollupFeeTotals.shape),
      description:
        'tracer outputs per bundle and transaction; on an OP-stack chain the fees of each call with a gas price beside its tracers, and their totals beside `data`',
    },
    errors: [400, 404, 413, 415, 502, 504],
  })
  app.post('/v1/trace/call-many', async (c) => {
    const req = validate(traceCallManyRequest, await readJson(c))
    const total = req.bundles.reduce((n, b) => n + b.transactions.length, 0)
    assertCallCount(total, ctx.config.limits.max_calls_per_simulation, 'bundles')
    const data = await ctx.engine.traceCallMany(runAt(c), {
      bundles: req.bundles.map((b, i) => ({ transactions: b.transactions.map((t, j) => toCallInput(t, `bundles[${i}].transactions[${j}]`)) })),
      block: toBlockSelector(req, ''),
      tracerConfig: toTracerConfig(req.tracerConfig),
      ...overrides(req),
    })
    return jsonAnswer(c, { success: true, data, ...rollupFeeTotalsOf(data.flat()) })
  })
}

/** the calls' OP-stack fees summed, as a simulation's totals; nothing when no call paid one */
function rollupFeeTotalsOf(calls: RollupFeeFields[]): RollupFeeFields {
  const charged = calls.filter((r) => r.l1Fee !== undefined)
  if (charged.length === 0) return {}
  const sum = (key: keyof RollupFeeFields) => toHex(charged.reduce((n, r) => n + BigInt(r[key] ?? 0), 0n))
  return { l1Fee: sum('l1Fee'), l1GasUsed: sum('l1GasUsed'), operatorFee: sum('operatorFee') }
}
