/**
 * A block parameter through the engine's block grammar (engine/platform/blockRef.ts: a tag, a
 * number, a hash or EIP-1898's object; absent is `latest`), its refusal at `path` in the reader's
 * dialect with geth's words for what is wrong.
 *
 * @example
 * readBlock(r, '0x10', 'block') // { number: 16n }
 */
import { BlockRefError, type BlockRef, type BlockRefOptions, parseBlockRef } from '../../engine/types.js'
import type { Reader } from './grammar.js'

export function readBlock(r: Reader, v: unknown, path: string, opts: BlockRefOptions = {}): BlockRef {
  try {
    return parseBlockRef(v, opts)
  } catch (e) {
    if (e instanceof BlockRefError) r.said(path, e.message)
    throw e
  }
}
