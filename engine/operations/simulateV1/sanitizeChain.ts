/**
 * sanitizeChain: the blocks eth_simulateV1 will build, as geth's `simulator.sanitizeChain` fixes
 * them before anything runs — every block gets a number (the previous + 1) and a time (the
 * previous + 12 s) unless overridden; numbers and times must strictly increase; a skipped number
 * is filled with empty blocks (12 s apart); at most 256 blocks past the base block.
 *
 * @example
 * sanitizeChain(base, [{ blockOverrides: { number: base.number + 3n }, calls }]) // 2 empty blocks, then it
 */
import type { BlockHeaderInfo } from '../../chains/types.js'
import type { BlockOverrides, SimulateV1Block } from '../../types.js'
import { simulateError } from './simulateErrors.js'

/** geth maxSimulateBlocks */
export const MAX_SIMULATE_BLOCKS = 256n
/** geth timestampIncrement */
export const TIMESTAMP_INCREMENT = 12n

export type SanitizedBlock = Omit<SimulateV1Block, 'blockOverrides'> & { blockOverrides: BlockOverrides & { number: bigint; time: bigint } }

export function sanitizeChain(base: BlockHeaderInfo, blocks: SimulateV1Block[]): SanitizedBlock[] {
  const out: SanitizedBlock[] = []
  let prevNumber = base.number
  let prevTime = base.timestamp
  for (const block of blocks) {
    const o = block.blockOverrides ?? {}
    const number = o.number ?? prevNumber + 1n
    if (number <= prevNumber) throw simulateError('blockNumberOrder', `block numbers must be in order: ${number} <= ${prevNumber}`)
    if (number - base.number > MAX_SIMULATE_BLOCKS) throw simulateError('clientLimitExceeded', 'too many blocks')
    for (let n = prevNumber + 1n; n < number; n++) {
      prevTime += TIMESTAMP_INCREMENT
      out.push({ calls: [], blockOverrides: { number: n, time: prevTime } })
    }
    prevNumber = number
    let time: bigint
    if (o.time === undefined) time = prevTime + TIMESTAMP_INCREMENT
    else {
      time = o.time
      if (time <= prevTime) throw simulateError('blockTimestampOrder', `block timestamps must be in order: ${time} <= ${prevTime}`)
    }
    prevTime = time
    out.push({ ...block, blockOverrides: { ...o, number, time } })
  }
  return out
}
