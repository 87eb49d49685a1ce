/**
 * The scalar formats of the interface (interface §1). Schemas only validate;
 * `src/normalize/` turns validated input into the engine's canonical values. Input is lenient
 * (any-case addresses with a valid checksum, leading zeros), output canonical (lowercase, minimal).
 */
import { z } from '@hono/zod-openapi'
import { getAddress } from 'viem'
import { BLOCK_TAGS, parseBlockRef } from '../../engine/types.js'

const addressShape = /^0x[0-9a-fA-F]{40}$/

/** all-lowercase and all-uppercase carry no checksum (EIP-55); mixed case must be a valid one */
export function isAcceptableAddress(value: string): boolean {
  if (!addressShape.test(value)) return false
  const body = value.slice(2)
  if (body === body.toLowerCase() || body === body.toUpperCase()) return true
  try {
    return getAddress(value) === value
  } catch {
    return false
  }
}

export const address = z
  .string()
  .superRefine((v, ctx) => {
    if (!addressShape.test(v)) ctx.addIssue({ code: 'custom', message: 'expected an address: 0x followed by 40 hex characters' })
    else if (!isAcceptableAddress(v)) ctx.addIssue({ code: 'custom', message: 'mixed-case address with an invalid EIP-55 checksum' })
  })
  .openapi({ pattern: '^0x[0-9a-fA-F]{40}$', example: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266' })

/** `0x`-prefixed hex number; leading zeros allowed */
export const hexQuantity = z
  .string()
  .regex(/^0x[0-9a-fA-F]+$/, 'expected a hex quantity such as 0x1a')
  .openapi({ pattern: '^0x[0-9a-fA-F]+$', example: '0x5208' })

/** hex quantity or a non-negative JSON integer (block overrides) */
export const quantityOrInteger = z.union([hexQuantity, z.number().int().nonnegative()]).openapi({ example: '0x10' })

/** `0x`-prefixed bytes, even length */
export const hexData = z
  .string()
  .regex(/^0x([0-9a-fA-F]{2})*$/, 'expected hex data: 0x followed by an even number of hex characters')
  .openapi({ pattern: '^0x([0-9a-fA-F]{2})*$', example: '0x70a08231000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266' })

export const hash = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, 'expected a hash: 0x followed by 64 hex characters')
  .openapi({ pattern: '^0x[0-9a-fA-F]{64}$', example: `0x${'ab'.repeat(32)}` })

/** the engine's block tags (engine/platform/blockRef.ts, the one list) */
export const blockTags = BLOCK_TAGS
export const blockTag = z.enum(blockTags).openapi({ example: 'latest' })

/** a block by tag or hex number, in one string (access lists' `block`, batch's `blockNumber`) */
export const blockTagOrNumber = z
  .string()
  .refine((v) => isTagOrNumber(v), {
    message: `expected a block tag (${BLOCK_TAGS.join(', ')}) or a hex block number`,
  })
  .openapi({ example: 'latest' })

/** the engine's block grammar, as the REST API reads it: no hash, leading zeros accepted */
function isTagOrNumber(v: string): boolean {
  try {
    parseBlockRef(v, REST_BLOCK)
    return true
  } catch {
    return false
  }
}
export const REST_BLOCK = { hash: false, leadingZeros: true } as const
