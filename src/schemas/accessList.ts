/** Request of POST /simulate/access-list (interface §7). */
import { z } from '@hono/zod-openapi'
import { callObject } from './call.js'
import { stateOverrideMap } from './overrides.js'
import { blockTag, blockTagOrNumber, hexQuantity } from './primitives.js'

export const accessListRequest = z
  .object({
    params: callObject,
    block: blockTagOrNumber.optional().openapi({ description: 'block tag or hex number (default latest)' }),
    blockNumber: hexQuantity.optional(),
    blockTag: blockTag.optional(),
    stateOverrides: stateOverrideMap.optional(),
  })
  .openapi('AccessListRequest', {
    example: {
      params: {
        from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
        to: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
        data: '0x70a0823100000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c8',
      },
      block: 'latest',
    },
  })
