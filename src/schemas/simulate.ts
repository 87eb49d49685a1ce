/** Requests of POST /simulate (shapes A and B) and POST /simulate/batch (interface §4, §5). */
import { z } from '@hono/zod-openapi'
import { callObject } from './call.js'
import { abiMap, labelMap } from './callTree.js'
import { blockOverrides, stateOverrideList } from './overrides.js'
import { address, blockTag, blockTagOrNumber, hexQuantity } from './primitives.js'

const exampleCall = {
  from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
  to: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
  data: '0xa9059cbb00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c80000000000000000000000000000000000000000000000000de0b6b3a7640000',
}

export const simulationParams = z.strictObject({
  calls: z.array(callObject).min(1, 'at least one call is required'),
  blockTag: blockTag.optional(),
  blockNumber: hexQuantity.optional(),
  validation: z.boolean().optional().openapi({ description: 'true: nonce, fee and funds checked as for a real transaction' }),
  account: address.optional().openapi({ description: 'account whose asset changes are reported (default: every changed account)' }),
  traceAssetChanges: z.boolean().optional(),
  traceTransfers: z.boolean().optional(),
  traceCalls: z.boolean().optional().openapi({ description: 'true: each call carries `callTree`, its decoded call tree' }),
  abis: abiMap.optional(),
  labels: labelMap.optional(),
})

export const simulationOptions = z.strictObject({
  stateOverrides: stateOverrideList.optional(),
  blockOverrides: blockOverrides.optional(),
})

/** shape A */
export const simulationRequest = z.object({ params: simulationParams, options: simulationOptions.optional() }).openapi('SimulationRequest', {
  example: { params: { calls: [exampleCall], blockTag: 'latest', validation: false, traceTransfers: true, traceAssetChanges: true } },
})

/** shape B: one transaction, struct-log steps */
export const stepSimulationRequest = z
  .object({
    transaction: callObject,
    blockNumber: blockTagOrNumber.optional(),
    traceConfig: z
      .strictObject({ enableMemory: z.boolean().optional(), enableReturnData: z.boolean().optional(), enableStorage: z.boolean().optional() })
      .optional(),
    stateOverrides: stateOverrideList.optional(),
    blockOverrides: blockOverrides.optional(),
  })
  .openapi('StepSimulationRequest', {
    example: { transaction: exampleCall, blockNumber: 'latest', traceConfig: { enableMemory: false, enableReturnData: true, enableStorage: true } },
  })

/** the differing batch description: one simulation, transactions in sequence */
export const sequenceBatchRequest = z
  .object({
    transactions: z.array(callObject).min(1, 'at least one transaction is required'),
    blockNumber: blockTagOrNumber.optional(),
  })
  .openapi('SequenceBatchRequest', { example: { transactions: [exampleCall, exampleCall], blockNumber: 'latest' } })

export const batchRequest = z.union([z.array(simulationRequest), sequenceBatchRequest]).openapi('BatchRequest', {
  example: [{ params: { calls: [exampleCall], blockTag: 'latest' } }, { params: { calls: [exampleCall], blockNumber: '0x1' } }],
})
