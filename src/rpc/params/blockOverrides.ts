/**
 * Block overrides as JSON-RPC argument `index` holds them (src/params/blockOverrides.ts reads
 * them), every problem in geth's words whichever method takes them.
 *
 * @example
 * parseBlockOverrides({ baseFee: '0x7' }, 3) // { baseFee: 7n }
 */
import type { BlockOverrides } from '../../../engine/types.js'
import { type BlockOverridesOptions, parseBlockOverrides as readBlockOverrides } from '../../params/blockOverrides.js'
import { argReader, GETH } from './argReader.js'

export function parseBlockOverrides(v: unknown, index: number, path = 'blockOverrides', opts: BlockOverridesOptions = {}): BlockOverrides | undefined {
  return readBlockOverrides(argReader(index, GETH), v, path, opts)
}
