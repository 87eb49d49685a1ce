/**
 * The block grammar, written once: the block tags, the parser every front door and the chain
 * reads use (geth's `rpc.BlockNumberOrHash`: a tag, a 0x number of at most 64 bits, a 32-byte
 * block hash, or EIP-1898's `{blockNumber}` / `{blockHash, requireCanonical}`), and the one place
 * `pending` becomes `latest`. A parse failure is a `BlockRefError` whose message is geth's words
 * for the part that is wrong; each front door prefixes it with where the value was
 * (`invalid argument 1: block: hex number with leading zero digits`) or words it as its dialect
 * does.
 *
 * @example
 * parseBlockRef('0x10')                  // { number: 16n }
 * parseBlockRef({ blockHash: '0xab…' })  // { hash: '0xab…' }
 * stateBlock({ tag: 'pending' })         // { tag: 'latest' }
 */
import type { Hex } from 'viem'

export const BLOCK_TAGS = ['latest', 'earliest', 'safe', 'finalized', 'pending'] as const
export type BlockTag = (typeof BLOCK_TAGS)[number]
export type BlockSelector = { number: bigint } | { tag: BlockTag }
/** a block by number, tag or hash (EIP-1898 style) */
export type BlockRef = BlockSelector | { hash: Hex }

/** the tags a writable fork may start at: a block the upstream has (not `earliest`'s genesis, not `pending`) */
export const FORK_POINT_TAGS = BLOCK_TAGS.filter((t): t is Exclude<BlockTag, 'earliest' | 'pending'> => t !== 'earliest' && t !== 'pending')
export type ForkPointTag = (typeof FORK_POINT_TAGS)[number]

export const isBlockTag = (v: unknown): v is BlockTag => typeof v === 'string' && (BLOCK_TAGS as readonly string[]).includes(v)

const UINT64_MAX = (1n << 64n) - 1n

/** a value that is not a block reference; `message` says what is wrong with it, in geth's words */
export class BlockRefError extends Error {
  override readonly name = 'BlockRefError'
}

export interface BlockRefOptions {
  /** a block hash (bare or `{blockHash}`) and the EIP-1898 object are accepted (default true) */
  hash?: boolean
  /** `0x01` is read as 1 (the REST API's leniency); geth refuses leading zero digits (default false) */
  leadingZeros?: boolean
}

/** absent is `latest` */
export function parseBlockRef(v: unknown, opts: BlockRefOptions = {}): BlockRef {
  const hash = opts.hash ?? true
  if (v === undefined || v === null) return { tag: 'latest' }
  if (typeof v === 'string') {
    if (isBlockTag(v)) return { tag: v }
    if (hash && v.length === 66) return { hash: blockHash(v) }
    return { number: blockNumber(v, opts.leadingZeros ?? false) }
  }
  if (typeof v === 'object' && !Array.isArray(v)) {
    if (!hash) throw new BlockRefError('expected a block number or tag string, got object (a block hash is not supported here)')
    return eip1898(v as Record<string, unknown>, opts)
  }
  throw new BlockRefError(`expected a block number or tag string, got ${Array.isArray(v) ? 'array' : typeof v}`)
}

function eip1898(o: Record<string, unknown>, opts: BlockRefOptions): BlockRef {
  const unknown = Object.keys(o).find((k) => k !== 'blockNumber' && k !== 'blockHash' && k !== 'requireCanonical')
  if (unknown !== undefined) throw new BlockRefError(`${unknown}: unknown field (accepted: blockNumber, blockHash, requireCanonical)`)
  if (o.blockNumber !== undefined && o.blockHash !== undefined)
    throw new BlockRefError('cannot specify both BlockHash and BlockNumber, choose one or the other')
  if (o.requireCanonical !== undefined && typeof o.requireCanonical !== 'boolean') throw new BlockRefError('requireCanonical: expected a boolean')
  // every block this service knows is canonical (a fork reads one upstream chain)
  if (o.blockHash !== undefined) {
    if (typeof o.blockHash !== 'string') throw new BlockRefError('blockHash: expected a hex string of 32 bytes')
    return { hash: blockHash(o.blockHash) }
  }
  if (o.blockNumber !== undefined) {
    if (typeof o.blockNumber !== 'string') throw new BlockRefError(`blockNumber: expected a block number or tag string, got ${typeof o.blockNumber}`)
    return isBlockTag(o.blockNumber) ? { tag: o.blockNumber } : { number: blockNumber(o.blockNumber, opts.leadingZeros ?? false) }
  }
  throw new BlockRefError('neither block number nor hash specified')
}

/** geth hexutil.DecodeUint64 */
function blockNumber(v: string, leadingZeros: boolean): bigint {
  if (!/^0[xX]/.test(v)) throw new BlockRefError('hex string without 0x prefix')
  const digits = v.slice(2)
  if (digits.length === 0) throw new BlockRefError('hex string "0x"')
  if (!/^[0-9a-fA-F]+$/.test(digits)) throw new BlockRefError('invalid hex string')
  if (!leadingZeros && digits.length > 1 && digits[0] === '0') throw new BlockRefError('hex number with leading zero digits')
  const n = BigInt(v)
  if (n > UINT64_MAX) throw new BlockRefError('hex number > 64 bits')
  return n
}

function blockHash(v: string): Hex {
  if (!/^0[xX][0-9a-fA-F]{64}$/.test(v)) throw new BlockRefError('expected a block hash: 0x and 64 hex digits')
  return v.toLowerCase() as Hex
}

/**
 * The block whose state a run or a read uses: `pending` is `latest` (no mempool of our own, the
 * pending block's state is the latest block's), absent is `latest`, a hash stays a hash. The one
 * place this rule lives.
 */
export function stateBlock<T extends BlockRef>(block: T | undefined): T | { tag: 'latest' } {
  return !block || ('tag' in block && block.tag === 'pending') ? { tag: 'latest' } : block
}
