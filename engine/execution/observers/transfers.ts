/**
 * The transfers observer (interface §4 `transfers`): every value movement of one transaction,
 * in execution order — native value of each value-carrying frame (CALL, CREATE, CREATE2 and the
 * adapter's synthesized SELFDESTRUCT; DELEGATECALL/CALLCODE move no value between accounts) and
 * ERC-20/ERC-721 `Transfer` and ERC-1155 `TransferSingle`/`TransferBatch` logs.
 *
 * What a frame records is held in that frame's bucket and merged into its parent's when it exits
 * successfully; a reverted frame drops its bucket, and with it everything its children recorded
 * (as geth's `eth/tracers/logger/logtracer.go` does for logs). So only transfers that really
 * happened remain.
 *
 * @example
 * const transfers = createTransfersTracer()
 * await executeTransaction(ctx, call, { tracers: [transfers] })
 * transfers.result() // [{ type: 'native', token: null, from, to, amount: '0xde0b6b3a7640000' }, …]
 */
import { decodeAbiParameters, hexToBigInt, size, toHex, type Address, type Hex } from 'viem'
import type { Transfer } from '../../vocabulary.js'
import type { CallType, EnterEvent, ExitEvent, LogEvent, Tracer } from '../../../tracers/types.js'
import { eventById } from '../../decoding/eventTable.js'

const VALUE_FRAMES: ReadonlySet<CallType> = new Set(['CALL', 'CREATE', 'CREATE2', 'SELFDESTRUCT'])

const TRANSFER_TOPIC = eventById('erc20.Transfer').topic0
const TRANSFER_SINGLE_TOPIC = eventById('erc1155.TransferSingle').topic0
const TRANSFER_BATCH_TOPIC = eventById('erc1155.TransferBatch').topic0

/** An indexed address topic; undefined when the high 12 bytes are not zero (not an address). */
function topicAddress(topic: Hex): Address | undefined {
  const t = topic.toLowerCase()
  if (t.length !== 66 || !/^0x0{24}[0-9a-f]{40}$/.test(t)) return undefined
  return `0x${t.slice(26)}` as Address
}

function word(data: Hex, index: number): bigint {
  return hexToBigInt(`0x${data.slice(2 + index * 64, 2 + (index + 1) * 64)}`)
}

/** The token transfers a log stands for; empty when it is not a well-formed transfer event. */
export function transfersOfLog(log: { address: Address; topics: readonly Hex[]; data: Hex }): Transfer[] {
  const topics = log.topics
  const topic0 = topics[0]?.toLowerCase()
  const token = log.address.toLowerCase() as Address
  const dataSize = size(log.data)
  if (topic0 === TRANSFER_TOPIC) {
    const from = topicAddress(topics[1] ?? '0x')
    const to = topicAddress(topics[2] ?? '0x')
    if (!from || !to) return []
    // ERC-20: amount in data; ERC-721: tokenId as the third indexed argument, no data.
    if (topics.length === 3 && dataSize === 32) return [{ type: 'erc20', token, from, to, amount: toHex(word(log.data, 0)) }]
    if (topics.length === 4 && dataSize === 0) return [{ type: 'erc721', token, from, to, amount: '0x1', tokenId: toHex(hexToBigInt(topics[3]!)) }]
    return []
  }
  if (topics.length !== 4 || (topic0 !== TRANSFER_SINGLE_TOPIC && topic0 !== TRANSFER_BATCH_TOPIC)) return []
  const from = topicAddress(topics[2]!)
  const to = topicAddress(topics[3]!)
  if (!from || !to) return []
  if (topic0 === TRANSFER_SINGLE_TOPIC) {
    if (dataSize !== 64) return []
    return [{ type: 'erc1155', token, from, to, amount: toHex(word(log.data, 1)), tokenId: toHex(word(log.data, 0)) }]
  }
  try {
    const [ids, values] = decodeAbiParameters([{ type: 'uint256[]' }, { type: 'uint256[]' }], log.data)
    if (ids.length !== values.length) return []
    return ids.map((id, i) => ({ type: 'erc1155' as const, token, from, to, amount: toHex(values[i]!), tokenId: toHex(id) }))
  } catch {
    return []
  }
}

export interface TransfersTracer extends Tracer<Transfer[]> {
  onEnter(e: EnterEvent): void
  onExit(e: ExitEvent): void
  onLog(log: LogEvent): void
}

export function createTransfersTracer(): TransfersTracer {
  /** one bucket per open frame, innermost last */
  const frames: Transfer[][] = []
  /** what survived the top frame */
  const done: Transfer[] = []

  return {
    onEnter(e) {
      const bucket: Transfer[] = []
      if (e.value !== undefined && e.value > 0n && VALUE_FRAMES.has(e.type)) {
        bucket.push({
          type: 'native',
          token: null,
          from: e.from.toLowerCase() as Address,
          to: e.to.toLowerCase() as Address,
          amount: toHex(e.value),
        })
      }
      frames.push(bucket)
    },
    onExit(e) {
      const bucket = frames.pop()
      if (!bucket || e.reverted) return
      const parent = frames.at(-1) ?? done
      parent.push(...bucket)
    },
    onLog(log) {
      // A log outside any frame cannot happen with a correct adapter; keep it rather than lose it.
      const bucket = frames.at(-1) ?? done
      bucket.push(...transfersOfLog(log))
    },
    result() {
      return [...done]
    },
  }
}
