/** The call object (interface §3): a transaction to simulate or trace, sender impersonated. */
import { z } from '@hono/zod-openapi'
import { address, hexData, hexQuantity } from './primitives.js'

export const accessListEntry = z.strictObject({
  address,
  storageKeys: z.array(hexQuantity),
})

/** an EIP-7702 authorization as geth's `types.SetCodeAuthorization` JSON: every field required */
export const authorization = z
  .strictObject({
    chainId: hexQuantity.openapi({ description: 'chain the authorization is for; 0x0: any chain' }),
    address: address.openapi({ description: 'the contract the authority delegates its code to' }),
    nonce: hexQuantity.openapi({ description: "the authority's nonce the authorization is valid at (uint64)" }),
    yParity: hexQuantity.openapi({ description: 'signature y parity (0x0 or 0x1; at most 0xff)' }),
    r: hexQuantity,
    s: hexQuantity,
  })
  .openapi('Authorization')

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
    authorizationList: z.array(authorization).optional().openapi({
      description:
        "EIP-7702: run the call as a set-code transaction (type 4); each valid authorization sets its authority's code to 0xef0100 ‖ address before the call runs (needs `to` and at least one entry)",
    }),
  })
  .openapi('CallObject', {
    example: {
      from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
      to: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
      data: '0xa9059cbb00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c80000000000000000000000000000000000000000000000000de0b6b3a7640000',
    },
  })

export type CallObjectInput = z.infer<typeof callObject>
