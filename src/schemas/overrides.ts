/** State and block overrides (interface §9). */
import { z } from '@hono/zod-openapi'
import { address, hexData, hexQuantity, quantityOrInteger, hash } from './primitives.js'

const storageMap = z.record(z.string(), hexQuantity).openapi({
  description: 'slot → value, both hex quantities (left-padded to 32 bytes)',
  example: { '0x0': '0x1' },
})

const accountFields = {
  balance: hexQuantity.optional(),
  nonce: hexQuantity.optional(),
  code: hexData.optional(),
  storage: storageMap.optional().openapi({ description: 'patch these slots (geth stateDiff)' }),
  state: storageMap.optional().openapi({ description: 'replace all storage with these slots (geth state)' }),
  variables: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
    .optional()
    .openapi({
      description: "set variables by Solidity path with the contract's storage layout (a registered build-info), after the slots",
      example: { 'balances[0x70997970c51812dc3a010c7d01b50e0d17dc79c8]': '1000000', paused: true },
    }),
}

/** trace requests: `{address: {...}}` */
export const accountOverride = z.strictObject(accountFields).openapi('AccountOverride')
export const stateOverrideMap = z
  .record(z.string(), accountOverride)
  .openapi('StateOverrideMap', { example: { '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266': { balance: '0x56bc75e2d63100000' } } })

/** simulation requests: `[{address, ...}]` */
export const stateOverrideEntry = z.strictObject({ address, ...accountFields }).openapi('StateOverrideEntry')
export const stateOverrideList = z.array(stateOverrideEntry)

export const blockOverrides = z
  .strictObject({
    number: quantityOrInteger.optional(),
    time: quantityOrInteger.optional(),
    baseFee: quantityOrInteger.optional(),
    gasLimit: quantityOrInteger.optional(),
    coinbase: address.optional(),
    prevRandao: hash.optional(),
    blobBaseFee: quantityOrInteger.optional(),
  })
  .openapi('BlockOverrides', { example: { number: '0x100', time: 1735689600 } })
