/** The answer of tracer `gasProfile` (interface §8): gas by function and by source line, folded stacks, a speedscope document. */
import { z } from '@hono/zod-openapi'

const gas = z.number().int().nonnegative()

export const gasProfileResult = z
  .object({
    intrinsicGas: gas.openapi({ description: "the transaction's intrinsic gas, apart from the profile" }),
    executionGas: gas.openapi({
      description: "the top frame's execution gas, first step to last, before refunds: the top function's totalGas and the sum of every selfGas",
    }),
    functions: z.array(
      z.object({
        contract: z.string().openapi({ description: 'the contract name where its sources are known, else the address its code ran at' }),
        function: z.string().openapi({ description: 'the function name, else the selector; fallback, constructor, precompile' }),
        kind: z.enum(['external', 'internal', 'constructor']),
        calls: z.number().int(),
        selfGas: gas,
        totalGas: gas.openapi({ description: 'entering to leaving, each activation counted once under recursion' }),
      }),
    ),
    lines: z.array(z.object({ file: z.string(), line: z.number().int(), gas, hits: z.number().int() })).openapi({
      description: 'with sources: the gas of the steps each source line ran, costliest first',
    }),
    folded: z.string().openapi({ description: 'folded stacks (`Contract::fn;Contract::fn gas`, one a line) as flamegraph.pl and inferno read them' }),
    speedscope: z.record(z.string(), z.unknown()).openapi({ description: 'a speedscope document: one profile sampled by gas' }),
    warnings: z.array(z.string()).optional().openapi({ description: 'why sources looked for are missing (the verified-sources service failed)' }),
  })
  .openapi('GasProfile', { description: 'tracer gasProfile (ours, not geth)' })
