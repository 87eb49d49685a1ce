/**
 * A block's header as the chain keeps it: read from the upstream's block JSON (checked at the
 * edge, upstreamAnswers.ts), and written to and read from the cache store that instances on one
 * Redis share, under the fork's own key space.
 */
import type { Address, Hex } from 'viem'
import { toQuantity as q } from '../../platform/quantity.js'
import { EngineError } from '../../platform/errors.js'
import type { UpstreamAnswer } from '../../upstream/upstreamAnswers.js'
import type { BlockHeaderInfo } from '../types.js'

/** blocks as checked at the edge (upstreamAnswers.ts): every field read is well-formed */
export type RpcBlock = NonNullable<UpstreamAnswer<'eth_getBlockByNumber(hashes)'>>
export type RpcFullBlock = NonNullable<UpstreamAnswer<'eth_getBlockByNumber(full)'>>

/** the header of a block the upstream answered; a value that does not parse is the upstream's fault */
export function toHeader(b: RpcBlock | RpcFullBlock): BlockHeaderInfo {
  try {
    return {
      number: BigInt(b.number),
      timestamp: BigInt(b.timestamp),
      gasLimit: BigInt(b.gasLimit),
      coinbase: b.miner.toLowerCase() as Address,
      baseFeePerGas: b.baseFeePerGas !== undefined ? BigInt(b.baseFeePerGas) : undefined,
      difficulty: BigInt(b.difficulty ?? '0x0'),
      prevRandao: (b.mixHash ?? `0x${'0'.repeat(64)}`).toLowerCase() as Hex,
      excessBlobGas: b.excessBlobGas !== undefined ? BigInt(b.excessBlobGas) : undefined,
      parentBeaconBlockRoot: b.parentBeaconBlockRoot?.toLowerCase() as Hex | undefined,
      hash: b.hash.toLowerCase() as Hex,
      parentHash: b.parentHash.toLowerCase() as Hex,
      ...(b.gasUsed !== undefined && { gasUsed: BigInt(b.gasUsed) }),
      ...(b.blobGasUsed !== undefined && { blobGasUsed: BigInt(b.blobGasUsed) }),
      ...(b.extraData !== undefined && b.extraData !== '0x' && { extraData: b.extraData.toLowerCase() as Hex }),
    }
  } catch {
    throw new EngineError('STATE_ACCESS_ERROR', 'the upstream node answered a malformed block')
  }
}

/** headers in the cache store, shared by instances: under the fork's own key space */
export const headerKey = (chainId: number, n: bigint) => `fs:${chainId}:${n.toString(16)}:h`

// made once: a TextEncoder or TextDecoder per header read or written costs microseconds
const utf8Encoder = new TextEncoder()
const utf8Decoder = new TextDecoder()
const HEADER_FIELDS = ['number', 'timestamp', 'gasLimit', 'baseFeePerGas', 'difficulty', 'excessBlobGas', 'gasUsed', 'blobGasUsed'] as const

export function encodeHeader(h: BlockHeaderInfo): Uint8Array {
  const json: Record<string, string> = { coinbase: h.coinbase, prevRandao: h.prevRandao, hash: h.hash, parentHash: h.parentHash }
  for (const f of HEADER_FIELDS) if (h[f] !== undefined) json[f] = q(h[f]!)
  if (h.parentBeaconBlockRoot) json.parentBeaconBlockRoot = h.parentBeaconBlockRoot
  if (h.extraData) json.extraData = h.extraData
  return utf8Encoder.encode(JSON.stringify(json))
}

/** undefined for anything that is not a header this code wrote */
export function decodeHeader(raw: Uint8Array): BlockHeaderInfo | undefined {
  try {
    const j = JSON.parse(utf8Decoder.decode(raw)) as Record<string, string | undefined>
    const big = (k: string) => (j[k] === undefined ? undefined : BigInt(j[k]!))
    if (!j.number || !j.hash || !j.parentHash || !j.coinbase || !j.prevRandao) return undefined
    return {
      number: BigInt(j.number),
      timestamp: BigInt(j.timestamp!),
      gasLimit: BigInt(j.gasLimit!),
      coinbase: j.coinbase as Address,
      baseFeePerGas: big('baseFeePerGas'),
      difficulty: BigInt(j.difficulty ?? '0x0'),
      prevRandao: j.prevRandao as Hex,
      excessBlobGas: big('excessBlobGas'),
      parentBeaconBlockRoot: j.parentBeaconBlockRoot as Hex | undefined,
      hash: j.hash as Hex,
      parentHash: j.parentHash as Hex,
      ...(j.gasUsed !== undefined && { gasUsed: BigInt(j.gasUsed) }),
      ...(j.blobGasUsed !== undefined && { blobGasUsed: BigInt(j.blobGasUsed) }),
      ...(j.extraData !== undefined && { extraData: j.extraData as Hex }),
    }
  } catch {
    return undefined
  }
}
