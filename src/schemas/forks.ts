/** Writable forks: the resource's request and response bodies (docs/forks.md). */
import { z } from '@hono/zod-openapi'
import { envelope } from './responses.js'
import { FORK_POINT_TAGS } from '../../engine/types.js'

const hexNumber = z
  .string()
  .regex(/^0x(0|[1-9a-fA-F][0-9a-fA-F]{0,15})$/, 'expected a hex block number such as 0x1b4 (no leading zeros)')
  .openapi({ example: '0x14a2c3f' })

export const createForkRequest = z
  .strictObject({
    blockNumber: hexNumber.optional().openapi({ description: 'the block to fork at (default: the blockTag)' }),
    blockTag: z.enum(FORK_POINT_TAGS).optional().openapi({ description: 'default latest' }),
    ttlSeconds: z
      .number()
      .int()
      .positive()
      .max(365 * 86_400)
      .optional()
      .openapi({ description: 'default forks.default_ttl_seconds; each use moves the expiry forward by it' }),
    label: z.string().max(200).optional(),
  })
  .refine((b) => !(b.blockNumber !== undefined && b.blockTag !== undefined), { message: 'give blockNumber or blockTag, not both', path: ['blockTag'] })
  .openapi('CreateForkRequest', { example: { blockTag: 'latest', ttlSeconds: 3600, label: 'ci-run-1842' } })

export const fork = z
  .object({
    forkId: z.string().openapi({ example: 'fork_3f1b2c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d' }),
    rpcUrl: z.string().openapi({ example: 'http://127.0.0.1:8080/v1/forks/fork_3f1b2c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d/rpc' }),
    chainId: z.number().int(),
    forkBlockNumber: hexNumber,
    headBlockNumber: hexNumber,
    createdAt: z.string().openapi({ example: '2026-01-01T00:00:00.000Z' }),
    expiresAt: z.string().openapi({ example: '2026-01-02T00:00:00.000Z' }),
    label: z.string().nullable(),
  })
  .openapi('Fork')

export const forkWithCount = fork.extend({ transactionCount: z.number().int() }).openapi('ForkDetails')

export const forkEnvelope = envelope(fork)
export const forkDetailsEnvelope = envelope(forkWithCount)
export const forkListEnvelope = envelope(z.array(forkWithCount))

export const forkIdParam = z.object({
  forkId: z.string().openapi({ param: { name: 'forkId', in: 'path' }, example: 'fork_3f1b2c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d' }),
})
