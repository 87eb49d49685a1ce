/** Requests of the trace endpoints (interface §8) and the tracer configuration. */
import { z } from '@hono/zod-openapi'
import { callObject } from './call.js'
import { callTreeOptions } from './callTree.js'
import { frameStepsOptions } from './frameSteps.js'
import { blockOverrides, stateOverrideMap } from './overrides.js'
import { blockTag, hash, hexQuantity } from './primitives.js'

const tracerOptions = <T extends z.ZodRawShape>(shape: T) => z.union([z.boolean(), z.strictObject(shape)])

/** strict: an unknown tracer name is a VALIDATION_ERROR, not silently nothing */
export const tracerConfig = z
  .strictObject({
    callTracer: tracerOptions({
      onlyTopCall: z.boolean().optional(),
      withLogs: z.boolean().optional(),
      withLog: z.boolean().optional().openapi({ description: "geth's name, alias of withLogs" }),
    }).optional(),
    prestateTracer: tracerOptions({
      diffMode: z.boolean().optional(),
      disableCode: z.boolean().optional(),
      disableStorage: z.boolean().optional(),
      includeEmpty: z.boolean().optional(),
    }).optional(),
    structLogger: tracerOptions({
      cleanStructLogs: z.boolean().optional(),
      disableMemory: z.boolean().optional(),
      disableStack: z.boolean().optional(),
      disableStorage: z.boolean().optional(),
      enableReturnData: z.boolean().optional(),
    }).optional(),
    '4byteTracer': z.boolean().optional(),
    callTree: z
      .union([z.boolean(), callTreeOptions])
      .optional()
      .openapi({ description: 'our own tracer (not geth): the callTracer frames decoded, see CallTreeOptions' }),
    gasProfile: z.boolean().optional().openapi({ description: 'our own tracer (not geth): gas by function and source line, folded stacks, speedscope' }),
    frameSteps: frameStepsOptions.optional(),
  })
  .openapi('TracerConfig', {
    description: 'each key selects a tracer; none given: callTracer',
    example: { callTracer: { withLogs: true }, prestateTracer: { diffMode: true }, '4byteTracer': true },
  })

const overrides = {
  stateOverrides: stateOverrideMap.optional(),
  blockOverrides: blockOverrides.optional(),
}
const blockSelector = {
  blockNumber: hexQuantity.optional(),
  blockTag: blockTag.optional().openapi({ description: 'default latest' }),
}

export const traceTxRequest = z.object({ transactionHash: hash, tracerConfig: tracerConfig.optional(), ...overrides }).openapi('TraceTransactionRequest', {
  example: { transactionHash: '0x<hash of a devnet demo transaction, see README>', tracerConfig: { callTracer: { withLogs: true } } },
})

export const traceCallRequest = z
  .object({ call: callObject, tracerConfig: tracerConfig.optional(), ...blockSelector, ...overrides })
  .openapi('TraceCallRequest', {
    example: {
      call: {
        from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
        to: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
        data: '0x70a08231000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266',
      },
      blockTag: 'latest',
      tracerConfig: { callTracer: {}, '4byteTracer': true },
    },
  })

export const traceCallManyRequest = z
  .object({
    bundles: z.array(z.strictObject({ transactions: z.array(callObject).min(1) })).min(1),
    tracerConfig: tracerConfig.optional(),
    ...blockSelector,
    ...overrides,
  })
  .openapi('TraceCallManyRequest', {
    example: {
      bundles: [
        {
          transactions: [
            {
              from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
              to: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
              value: '0xde0b6b3a7640000',
            },
          ],
        },
      ],
      tracerConfig: { callTracer: {} },
    },
  })
