/** Block selectors (interface §8): `blockNumber` or `blockTag`, not both; default `latest`. */
import type { BlockSelector, BlockTag } from '../../engine/types.js'
import { joinPath, validationError } from '../errors/apiError.js'
import { readBlock } from '../params/blockSelector.js'
import { REST } from './bodyReader.js'
import { REST_BLOCK } from '../schemas/primitives.js'
import { toQuantity, UINT64_MAX } from './quantities.js'

export function toBlockSelector(sel: { blockNumber?: string; blockTag?: string }, path: string): BlockSelector {
  if (sel.blockNumber !== undefined && sel.blockTag !== undefined) {
    throw validationError(
      [{ path: joinPath(path, 'blockNumber'), message: 'both blockNumber and blockTag are set' }],
      'select the block by blockNumber or by blockTag, not both',
    )
  }
  if (sel.blockNumber !== undefined) return { number: toQuantity(sel.blockNumber, joinPath(path, 'blockNumber'), UINT64_MAX) }
  return { tag: (sel.blockTag ?? 'latest') as BlockTag }
}

/** one string holding a tag or a hex number (`block` of access lists, `blockNumber` of shape B): the engine's block grammar */
export function fromTagOrNumber(value: string | undefined, path: string): BlockSelector {
  return readBlock(REST, value, path, REST_BLOCK) as BlockSelector
}
