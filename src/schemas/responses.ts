/** Response bodies (interface §2, §4–§10). Documentation schemas: the engine's types are the source. */
import { z } from '@hono/zod-openapi'
import { apiErrorCodes } from '../errors/statusTable.js'
import { address, hash, hexData, hexQuantity } from './primitives.js'
import { decodedCallFrame } from './callTree.js'
import { gasProfileResult } from './gasProfile.js'
import { frameStepsResult } from './frameSteps.js'

export const errorObject = z
  .object({
    code: z.enum(apiErrorCodes as [string, ...string[]]),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
    suggestion: z.string().optional(),
  })
  .openapi('Error')

export const errorEnvelope = z.object({ success: z.literal(false), error: errorObject }).openapi('ErrorEnvelope', {
  example: {
    success: false,
    error: {
      code: 'VALIDATION_ERROR',
      message: 'params.calls[0].to: mixed-case address with an invalid EIP-55 checksum',
      details: { issues: [{ path: 'params.calls[0].to', message: 'mixed-case address with an invalid EIP-55 checksum' }] },
    },
  },
})

export const envelope = <T extends z.ZodType>(data: T) => z.object({ success: z.literal(true), data })

const status = z.enum(['success', 'reverted', 'failed'])
const assetType = z.enum(['native', 'erc20', 'erc721', 'erc1155'])

export const decodedEvent = z.object({
  name: z.string(),
  signature: z.string(),
  args: z.record(z.string(), z.unknown()),
  summary: z.string().openapi({ example: 'Transfer 1 DEMO from 0xf39f…2266 to 0x7099…79c8' }),
})

export const simulatedLog = z.object({
  address,
  topics: z.array(hash),
  data: hexData,
  logIndex: hexQuantity,
  decoded: decodedEvent.optional(),
})

export const transfer = z.object({
  type: assetType,
  token: address.nullable(),
  from: address,
  to: address,
  amount: hexQuantity,
  tokenId: hexQuantity.optional(),
  name: z.string().optional(),
  symbol: z.string().optional(),
  decimals: z.number().int().optional(),
  formatted: z.string().optional().openapi({ description: 'amount in token units (a count for ERC-721/1155)', example: '1.5' }),
})

export const assetChange = z.object({
  account: address,
  type: assetType,
  token: address.nullable(),
  tokenId: hexQuantity.optional(),
  symbol: z.string().optional(),
  decimals: z.number().int().optional(),
  before: hexQuantity,
  after: hexQuantity,
  delta: z.string().openapi({ description: 'signed decimal', example: '-1000000000000000000' }),
  name: z.string().optional(),
  formatted: z.string().optional().openapi({ description: 'delta in token units', example: '-1' }),
})

export const approvalChange = z
  .object({
    owner: address,
    type: z.enum(['erc20', 'erc721', 'erc721-all', 'erc1155-all', 'permit2']),
    token: address.openapi({ description: 'for permit2: the ERC-20 the allowance is over' }),
    spender: address.openapi({ description: 'spender, approved address or operator' }),
    tokenId: hexQuantity.optional(),
    before: hexQuantity.openapi({ description: 'amount, or 0x0/0x1 for erc721 and *-all' }),
    after: hexQuantity,
    unlimited: z.boolean(),
    expiration: hexQuantity.optional().openapi({ description: 'permit2: unix seconds' }),
    permit2: address.optional().openapi({ description: 'permit2: the Permit2 contract' }),
    name: z.string().optional(),
    symbol: z.string().optional(),
    decimals: z.number().int().optional(),
    formatted: z.string().optional().openapi({ description: '`after` in token units' }),
    callIndex: z.number().int(),
  })
  .openapi('ApprovalChange')

export const previewWarning = z
  .object({
    code: z.string().openapi({ example: 'UNLIMITED_APPROVAL', description: 'docs/wallet-preview.md lists every code' }),
    severity: z.enum(['info', 'warning', 'danger']),
    message: z.string(),
    callIndex: z.number().int().openapi({ description: '-1 for a signature preview' }),
    account: address.optional(),
    token: address.optional(),
    spender: address.optional(),
  })
  .openapi('PreviewWarning')

export const callError = z.object({
  message: z.string(),
  revertReason: z.string().optional(),
  revertData: hexData.optional(),
  contractAddress: address.optional(),
  gasRequired: hexQuantity.optional(),
})

const rollupFeeFields = {
  l1Fee: hexQuantity.optional().openapi({ description: 'OP-stack chains, a call with a gas price: the L1 data fee charged, wei' }),
  l1GasUsed: hexQuantity.optional().openapi({ description: "OP-stack chains: the L1 gas the call's data counts as" }),
  operatorFee: hexQuantity.optional().openapi({ description: 'OP-stack chains from Isthmus: the operator fee charged, wei' }),
}

export const callResult = z.object({
  callIndex: z.number().int(),
  status,
  returnData: hexData,
  gasUsed: hexQuantity,
  logs: z.array(simulatedLog),
  error: callError.optional(),
  transfers: z.array(transfer).optional(),
  contractAddress: address.optional(),
  callTree: decodedCallFrame.optional().openapi({ description: 'with params.traceCalls' }),
  ...rollupFeeFields,
})

export const simulationResult = z
  .object({
    simulationId: z.string().openapi({ example: 'sim_3f1b2c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d' }),
    status,
    blockNumber: hexQuantity,
    gasUsed: hexQuantity,
    calls: z.array(callResult),
    assetChanges: z.array(assetChange).optional(),
    approvalChanges: z.array(approvalChange).optional().openapi({ description: 'with params.traceAssetChanges' }),
    warnings: z.array(previewWarning).optional().openapi({ description: 'with params.traceAssetChanges' }),
    l1Fee: hexQuantity.optional().openapi({ description: "OP-stack chains: the calls' L1 data fees summed, wei" }),
    l1GasUsed: hexQuantity.optional(),
    operatorFee: hexQuantity.optional(),
  })
  .openapi('SimulationResult')

export const stepSimulationEnvelope = z
  .object({
    success: z.literal(true),
    result: z.object({
      gasUsed: hexQuantity,
      gasLimit: hexQuantity,
      logs: z.array(simulatedLog),
      returnValue: hexData,
      trace: z.object({
        steps: z.array(z.record(z.string(), z.unknown())),
        storageChanges: z.record(z.string(), z.record(z.string(), z.object({ before: hexQuantity, after: hexQuantity }))),
        decoded: z
          .record(
            z.string(),
            z.array(
              z.object({
                variable: z.string().nullable(),
                type: z.string().nullable(),
                slots: z.array(z.string()),
                before: z.union([z.string(), z.boolean()]).nullable(),
                after: z.union([z.string(), z.boolean()]).nullable(),
              }),
            ),
          )
          .optional()
          .openapi({ description: "the changed slots told by variable, for contracts whose storage layout is known (prestateTracer's decoded)" }),
        memoryChanges: z.array(z.object({ step: z.number().int(), offset: hexQuantity, data: hexData })),
      }),
    }),
  })
  .openapi('StepSimulationResponse')

export const batchItem = z
  .object({
    simulationId: z.string().nullable().optional(),
    callIndex: z.number().int().optional().openapi({ description: 'transactions form: the index in the sequence' }),
    status: status.optional(),
    gasUsed: hexQuantity.optional(),
    error: errorObject.optional().openapi({ description: 'present when the item did not succeed' }),
  })
  .openapi('BatchItem')

export const accessListResult = z
  .object({
    accessList: z.array(z.object({ address, storageKeys: z.array(hash) })),
    gasUsed: hexQuantity,
    error: z.string().optional(),
  })
  .openapi('AccessListResult')

export const traceResult = z
  .object({
    callTracer: z.record(z.string(), z.unknown()).optional(),
    prestateTracer: z.record(z.string(), z.unknown()).optional(),
    structLogger: z.record(z.string(), z.unknown()).optional(),
    callTree: decodedCallFrame.optional(),
    gasProfile: gasProfileResult.optional(),
    frameSteps: frameStepsResult.optional(),
    '4byteTracer': z
      .object({ totalIdentifiers: z.number().int(), identifiers: z.record(z.string(), z.object({ count: z.number().int(), dataSize: z.number().int() })) })
      .optional(),
  })
  .openapi('TraceResult', { description: 'keyed by the tracer names requested; geth v1.17 output per tracer' })

/** a traced call: the tracers' outputs and, beside them (never inside), what an OP-stack chain charged it */
export const callTraceResult = traceResult.extend(rollupFeeFields).openapi('CallTraceResult', {
  description: 'keyed by the tracer names requested (geth v1.17 output per tracer); on an OP-stack chain, for a call with a gas price, its fees beside them',
})

/** a call-many's fees summed (OP-stack chains, when any call paid one) */
export const rollupFeeTotals = z.object(rollupFeeFields)

export const chainSummary = z
  .object({
    name: z.string().openapi({ description: "the route segment: /v1/chains/{name}/…; 'default' for the unprefixed routes" }),
    default: z.boolean(),
    chainId: z.number().int(),
    network: z.string(),
    kind: z.enum(['ethereum', 'op-stack', 'arbitrum']),
    head: z.string().nullable().openapi({ description: 'the newest block number (hex); null when the upstream does not answer' }),
    status: z.enum(['ok', 'degraded', 'down']).openapi({
      description:
        'degraded: its upstream or the cache store does not answer now; down: the chain is not served (its upstream has not answered since the start, retried in the background, or came back as another chain id): its routes answer 503 CHAIN_UNAVAILABLE',
    }),
    error: z.string().optional().openapi({ description: 'a chain that is down: why' }),
  })
  .openapi('Chain')

export const healthResult = z
  .object({
    status: z.enum(['ok', 'degraded']),
    version: z.string(),
    network: z.string(),
    chainId: z.number().int(),
    uptime: z.number().openapi({ description: 'seconds since start' }),
    chains: z.array(chainSummary).optional().openapi({ description: 'a deployment serving named chains: each of them' }),
  })
  .openapi('Health', { example: { status: 'ok', version: '0.1.0', network: 'devnet', chainId: 31337, uptime: 42 } })

export const livenessResult = z
  .object({
    status: z.literal('live'),
    uptime: z.number().openapi({ description: 'seconds since start' }),
  })
  .openapi('Liveness', { example: { status: 'live', uptime: 42 } })

export const readinessResult = z
  .object({
    status: z.enum(['ready', 'not-ready']),
    missing: z
      .array(z.enum(['draining', 'engine', 'upstream', 'cache']))
      .optional()
      .openapi({
        description:
          "not-ready: what is missing. draining: the process is stopping (SIGTERM), finishing its requests; engine: no engine (worker thread) is up to run requests; upstream: the chain's node does not answer; cache: the cache store does not answer",
      }),
  })
  .openapi('Readiness', { example: { status: 'not-ready', missing: ['upstream'] } })
