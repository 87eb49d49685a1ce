/**
 * The params of the chain's read methods (src/rpc/methods/forwarded.ts). The state reads
 * (balance, code, nonce, storage) are the engine's own on every chain: their params are checked
 * here, with geth's grammar in one phrase per kind (TERSE: `invalid argument 0: hex string of
 * 20 bytes expected`). Every other read goes as sent to the chain that answers it, which reads its
 * params as a node does: the upstream node, whose own error passes through, or the devnet (and a
 * fork's own blocks), which words its refusal as geth does.
 *
 * @example
 * accountReadParams(['0xf39f…', 'latest']) // the same params, checked
 */
import type { BlockRef } from '../../../engine/types.js'
import { readBlock } from '../../params/blockSelector.js'
import { type ArgReader, argReader, TERSE } from './argReader.js'

const arg = (index: number): ArgReader => argReader(index, TERSE)
/** geth's BlockNumberOrHash; `latest` when absent */
const block = (v: unknown, index: number): BlockRef => readBlock(arg(index), v, '')

/** params the chain reads itself */
export const asSent = (params: unknown[]): unknown[] => params

/** eth_getBalance, eth_getCode, eth_getTransactionCount: `[address, block?]` */
export function accountReadParams(params: unknown[]): unknown[] {
  arg(0).address(params[0], '')
  block(params[1], 1)
  return params
}

/** eth_getStorageAt: `[address, slot, block?]` */
export function storageReadParams(params: unknown[]): unknown[] {
  arg(0).address(params[0], '')
  arg(1).word(params[1], '', 'padded')
  block(params[2], 2)
  return params
}
