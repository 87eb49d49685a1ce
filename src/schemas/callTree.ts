/**
 * Options of the decoded call tree: tracer `callTree` on the trace endpoints, `params.abis` and
 * `params.labels` with `params.traceCalls` on /simulate. Keys are addresses (checked when
 * normalized, like state-override maps); an ABI is the JSON a compiler emits, or human-readable
 * signatures (`"function transfer(address to, uint256 amount) returns (bool)"`).
 */
import { z } from '@hono/zod-openapi'

const abiItem = z.union([z.string().min(1), z.looseObject({ type: z.string() })])

export const abiMap = z.record(z.string(), z.array(abiItem)).openapi('AbiMap', {
  description: 'address → ABI (JSON items or human-readable signatures); used before the bundled ABIs and the signature database',
  example: { '0x5fbdb2315678afecb367f032d93f642f64180aa3': ['function transfer(address to, uint256 amount) returns (bool)'] },
})

export const labelMap = z.record(z.string(), z.string().min(1).max(64)).openapi('LabelMap', {
  description: 'address → label shown instead of a token symbol',
  example: { '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266': 'deployer' },
})

export const callTreeOptions = z
  .strictObject({
    abis: abiMap.optional(),
    labels: labelMap.optional(),
    internal: z.boolean().optional().openapi({
      description: "internal function calls as INTERNAL frames, nested where they ran, where the service knows the contracts' sources (POST /v1/sources)",
    }),
  })
  .openapi('CallTreeOptions', { description: 'decoded call tree: callTracer frames with functions, args, results, reverts, events and labels' })

const decodedArgs = z
  .record(z.string(), z.unknown())
  .openapi({ description: 'by parameter name, or position ("0", "1", …) when unnamed; integers as decimal strings' })
const source = z.enum(['abi', 'bundled', 'signatureDb'])

/** a frame of the decoded tree (response): geth's callTracer fields plus what decoding adds */
export const decodedCallFrame = z
  .object({
    from: z.string(),
    gas: z.string(),
    gasUsed: z.string(),
    to: z.string().optional(),
    input: z.string(),
    output: z.string().optional(),
    error: z.string().optional().openapi({ description: "geth's error string" }),
    revertReason: z.string().optional(),
    calls: z.array(z.unknown()).optional().openapi({
      description:
        'child frames, each a DecodedCallFrame or (callTree `internal`) an INTERNAL frame { type: "INTERNAL", to, gasUsed, function: { name, contract, signature, args, result }, calls, logs, reverted }',
    }),
    logs: z
      .array(
        z.object({
          address: z.string(),
          topics: z.array(z.string()),
          data: z.string(),
          index: z.string(),
          position: z.string(),
          decoded: z.object({ name: z.string(), signature: z.string(), args: decodedArgs, source, summary: z.string().optional() }).optional(),
        }),
      )
      .optional(),
    value: z.string().optional(),
    type: z.string(),
    labels: z.object({ from: z.string().optional(), to: z.string().optional() }).optional().openapi({ description: "the caller's labels, else token symbols" }),
    implementation: z.string().optional().openapi({ description: 'proxy frame: the code its DELEGATECALL child runs with the same calldata' }),
    function: z
      .object({
        name: z.string(),
        signature: z.string(),
        args: decodedArgs,
        source,
        exact: z.literal(false).optional().openapi({ description: 'no candidate re-encodes to the exact calldata' }),
        alternatives: z.array(z.string()).optional().openapi({ description: 'other signatures with this selector' }),
      })
      .optional(),
    result: decodedArgs.optional().openapi({ description: 'return data decoded with the function outputs (ABI sources)' }),
    revert: z
      .object({
        name: z.string(),
        signature: z.string(),
        args: decodedArgs,
        source: z.enum(['abi', 'bundled', 'signatureDb', 'builtin']),
        reason: z.string(),
        alternatives: z.array(z.string()).optional(),
      })
      .optional(),
    contract: z
      .object({ name: z.string(), file: z.string() })
      .optional()
      .openapi({ description: 'the contract whose code the frame runs, when its source is known' }),
    source: z
      .object({ file: z.string(), line: z.number().int(), column: z.number().int(), text: z.string() })
      .optional()
      .openapi({ description: "a failed frame: the statement its last instruction maps to (1-based line and column, the line's text)" }),
    backtrace: z
      .array(
        z.object({
          contract: z.string(),
          function: z.string().optional(),
          file: z.string().optional(),
          line: z.number().int().optional(),
          column: z.number().int().optional(),
        }),
      )
      .optional()
      .openapi({ description: "a reverted transaction's top frame: innermost first, one entry per frame, as forge's Backtrace lists it" }),
    warnings: z
      .array(z.string())
      .optional()
      .openapi({ description: 'the root frame: why sources the service could have fetched are missing (the verified-sources service failed)' }),
  })
  .openapi('DecodedCallFrame', { description: 'callTracer frame (withLog) with decoded function, result, revert, events and labels' })
