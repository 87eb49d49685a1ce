/** POST /v1/simulate/signature: what an EIP-712 signature gives away (docs/wallet-preview.md). */
import { z } from '@hono/zod-openapi'
import { address, blockTag, hexData, hexQuantity } from './primitives.js'
import { approvalChange, assetChange, previewWarning } from './responses.js'

const typedField = z.strictObject({ name: z.string().min(1), type: z.string().min(1) })

export const typedData = z
  .object({
    types: z.record(z.string(), z.array(typedField)),
    primaryType: z.string().min(1),
    domain: z.record(z.string(), z.unknown()),
    message: z.record(z.string(), z.unknown()),
  })
  .openapi('TypedData', { description: 'EIP-712 typed data as wallets receive it for eth_signTypedData_v4' })

export const signatureRequest = z
  .strictObject({
    typedData,
    signer: address,
    signature: hexData.optional().openapi({ description: 'when given, it must recover to `signer` (else a SIGNER_MISMATCH warning)' }),
    blockTag: blockTag.optional(),
    blockNumber: hexQuantity.optional(),
  })
  .openapi('SignaturePreviewRequest')

export const signatureKinds = ['erc2612', 'dai-permit', 'permit2-single', 'permit2-batch', 'permit2-transfer', 'permit2-batch-transfer', 'unknown'] as const

export const signaturePreview = z
  .object({
    kind: z.enum(signatureKinds),
    blockNumber: hexQuantity,
    tokens: z.array(address),
    spender: address.nullable(),
    amounts: z.array(hexQuantity).openapi({ description: 'per token, the amount granted' }),
    unlimited: z.boolean(),
    deadline: hexQuantity.optional().openapi({ description: "the signature's own validity, unix seconds" }),
    expiration: hexQuantity.optional().openapi({ description: 'Permit2 allowances: when they lapse (the latest of a batch)' }),
    nonce: hexQuantity.optional(),
    domain: z.record(z.string(), z.unknown()).optional().openapi({ description: 'kind unknown: the domain as given' }),
    message: z.record(z.string(), z.unknown()).optional().openapi({ description: 'kind unknown: the message as given' }),
    approvalChanges: z.array(approvalChange),
    assetChanges: z.array(assetChange),
    warnings: z.array(previewWarning),
  })
  .openapi('SignaturePreview')
