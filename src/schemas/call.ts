/** The call object (decisions §3): a transaction to simulate or trace, sender impersonated. */
import { z } from '@hono/zod-openapi'
import { address, hexData, hexQuantity } from './primitives.js'

export const accessListEntry = z.strictObject({
  address,
  storageKeys: z.array(hexQuantity),
})

/** strict: a misspelt field (`gasLimit`) is a VALIDATION_ERROR, never a call run without it */
export const callObject = z
  .strictObject({
    from: address.optional().openapi({ description: 'sender (impersonated; default the zero address)' }),
    to: address.nullable().optional().openapi({ description: 'target; absent or null: contract creation' }),
    data: hexData.optional().openapi({ description: 'call data (default 0x)' }),
    input: hexData.optional().openapi({ description: 'alias of data' }),
    gas: hexQuantity.optional().openapi({ description: 'gas limit (default: block gas limit capped by gas_cap)' }),
    value: hexQuantity.optional(),
    gasPrice: hexQuantity.optional(),
    maxFeePerGas: hexQuantity.optional(),
    maxPriorityFeePerGas: hexQuantity.optional(),
    nonce: hexQuantity.optional(),
    accessList: z.array(accessListEntry).optional(),
  })
  .openapi('CallObject', {
    example: {
      from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
      to: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
      data: '0xa9059cbb00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c80000000000000000000000000000000000000000000000000de0b6b3a7640000',
    },
  })

export type CallObjectInput = z.infer<typeof callObject>
