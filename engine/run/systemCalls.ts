/**
 * The block-start system calls a replayed transaction must see, as geth's `stateAtTransaction`
 * applies them before the block's first transaction (eth/state_accessor.go):
 * - EIP-4788 (Cancun on, when the header has a parent beacon block root): the beacon roots
 *   contract stores `timestamp` and the root in its two ring buffers;
 * - EIP-2935 (Prague on): the history storage contract stores the parent hash at slot
 *   `(number − 1) % serveWindow`.
 * Both contracts only run their storage writes (as ethereumjs runBlock does), and only when their
 * code is deployed. Without this, a transaction that reads either contract sees the state after
 * the parent block instead of the state the block really gave it.
 *
 * @example
 * await applyBlockSystemCalls(state, common, header) // then replay the block's transactions
 */
import type { Common, StateManagerInterface } from '@ethereumjs/common'
import { bigIntToBytes, bytesToHex, createAddressFromString, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import type { Hex } from 'viem'
import type { BlockHeaderInfo } from '../chains/types.js'
import type { AccessList } from '../state/index.js'

// the EIPs' constants (a bare Common does not carry the VM's params, and the EVM's copy of the
// serve window is an outdated 8192)
const BEACON_ROOTS_ADDRESS = '0x000f3df6d732807ef1319fb7b8bb8522d0beac02'
const HISTORICAL_ROOTS_LENGTH = 8191n
const HISTORY_STORAGE_ADDRESS = '0x0000f90827f1c53a10cb7a02335b175320002935'
const HISTORY_SERVE_WINDOW = 8191n

const slot = (n: bigint) => setLengthLeft(bigIntToBytes(n), 32)

/**
 * What the block's start system calls read (the contracts' code, the slots they write): a replay
 * prefetches them with its transactions' state, in the same batch.
 */
export function systemCallReads(header: BlockHeaderInfo): AccessList {
  const word = (n: bigint) => bytesToHex(slot(n)) as Hex
  const index = header.timestamp % HISTORICAL_ROOTS_LENGTH
  return [
    { address: BEACON_ROOTS_ADDRESS, storageKeys: header.parentBeaconBlockRoot ? [word(index), word(index + HISTORICAL_ROOTS_LENGTH)] : [] },
    { address: HISTORY_STORAGE_ADDRESS, storageKeys: header.number > 0n ? [word((header.number - 1n) % HISTORY_SERVE_WINDOW)] : [] },
  ]
}

export async function applyBlockSystemCalls(state: StateManagerInterface, common: Common, header: BlockHeaderInfo): Promise<void> {
  if (common.isActivatedEIP(4788) && header.parentBeaconBlockRoot) {
    const beacon = createAddressFromString(BEACON_ROOTS_ADDRESS)
    if ((await state.getCode(beacon)).length > 0) {
      const length = HISTORICAL_ROOTS_LENGTH
      const index = header.timestamp % length
      await state.putStorage(beacon, slot(index), bigIntToBytes(header.timestamp))
      await state.putStorage(beacon, slot(index + length), hexToBytes(header.parentBeaconBlockRoot))
    }
  }
  if (common.isActivatedEIP(2935) && header.number > 0n) {
    const history = createAddressFromString(HISTORY_STORAGE_ADDRESS)
    if ((await state.getCode(history)).length > 0) {
      await state.putStorage(history, slot((header.number - 1n) % HISTORY_SERVE_WINDOW), hexToBytes(header.parentHash))
    }
  }
}
