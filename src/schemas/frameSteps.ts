/**
 * Tracer `frameSteps` (interface §8): its options in `tracerConfig`, and its answer — one page of
 * one external frame's own steps as the struct logger prints them, with source places and
 * functions where the contract's sources are known.
 */
import { z } from '@hono/zod-openapi'

/** the EVM's call depth limit: no path is longer */
const MAX_DEPTH = 1024

export const frameStepsOptions = z
  .strictObject({
    frame: z
      .array(z.number().int().nonnegative())
      .max(MAX_DEPTH)
      .openapi({
        description: "the frame's path: its indices in the callTracer's `calls` arrays, [] the top frame",
        example: [0, 2],
      }),
    fromStep: z.number().int().nonnegative().optional().openapi({ description: "the first of the frame's own steps to give; default 0" }),
    maxSteps: z.number().int().min(1).max(4096).optional().openapi({ description: 'steps in the page at most; default 256' }),
    withFiles: z.boolean().optional().openapi({ description: "the source files the frame's code maps to, with their text; default false" }),
  })
  .openapi('FrameStepsOptions', { description: 'our own tracer (not geth): one page of the steps of one external frame' })

const frameStep = z.object({
  step: z.number().int().openapi({ description: "the index among the frame's own steps (its children's are not counted)" }),
  pc: z.number().int(),
  op: z.string(),
  gas: z.number().int(),
  gasCost: z.number().int(),
  stack: z.array(z.string()).openapi({ description: "as geth's structLogger prints it: minimal hex, bottom to top" }),
  memory: z.array(z.string()).openapi({ description: "as geth's structLogger prints it: 32-byte words" }),
  storage: z.record(z.string(), z.string()).openapi({
    description:
      "the slots of the step's storage (the caller's under DELEGATECALL) read or written so far in the transaction, as geth's structLogger keeps them",
  }),
  source: z
    .object({ file: z.string(), line: z.number().int(), column: z.number().int() })
    .nullable()
    .optional()
    .openapi({ description: 'with sources: 1-based line and column (bytes); null where the source map gives none (compiler-generated code)' }),
  function: z.string().optional().openapi({ description: 'with sources: the innermost function the step runs in, `Contract.function`' }),
  functionDepth: z
    .number()
    .int()
    .optional()
    .openapi({ description: 'with sources: the internal calls open at the step, 0 in the external function (a recursion counts each)' }),
  child: z.number().int().optional().openapi({ description: "on a step that opened a child frame: its index in this frame's `calls`" }),
  error: z.string().optional(),
})

export const frameStepsResult = z
  .object({
    frame: z.object({
      path: z.array(z.number().int()),
      type: z.enum(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL', 'CREATE', 'CREATE2']),
      address: z.string(),
      depth: z.number().int().openapi({ description: 'the struct log depth of its steps (the top frame: 1)' }),
      contract: z.object({ name: z.string(), file: z.string() }).optional().openapi({ description: 'when its sources are known' }),
    }),
    totalSteps: z.number().int().openapi({ description: "the frame's own steps" }),
    fromStep: z.number().int(),
    nextStep: z.number().int().nullable().openapi({ description: 'the first step of the next page; null when this page reaches the end' }),
    steps: z.array(frameStep),
    files: z
      .array(z.object({ path: z.string(), content: z.string().nullable() }))
      .optional()
      .openapi({ description: 'withFiles: the files the source map refers to; past 4 MiB of text, the rest with content null' }),
  })
  .openapi('FrameSteps', { description: 'tracer frameSteps (ours, not geth)' })
