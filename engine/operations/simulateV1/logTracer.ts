/**
 * The logs of one simulated block, as geth's eth_simulateV1 tracer collects them
 * (internal/ethapi/logtracer.go): the contracts' logs, and with `traceTransfers` every ETH
 * movement (transaction value, call value, selfdestruct; not DELEGATECALL/CALLCODE) as an
 * ERC-20 `Transfer` log from the ERC-7528 address 0xeeee…eeee, interleaved in execution order.
 * A reverted frame's logs are dropped and their indices freed: they are the latest logs, so the
 * count goes back by as many and the next log takes the first freed index (geth's current
 * tracer; the execution-apis vectors were recorded before it and leave gaps, see
 * docs/decisions/0079-simulatev1-frees-reverted-log-indices.md). The index runs on across the block's transactions (one tracer per block,
 * `startTx` per call), so a block's logs are numbered 0, 1, 2, … without gaps.
 *
 * @example
 * const logs = createSimLogTracer(true)
 * logs.startTx(); await executeCall(ctx, call, { tracers: [logs] }); logs.result()
 */
import { pad, toHex, type Address, type Hex } from 'viem'
import type { EnterEvent, ExitEvent, LogEvent, Tracer } from '../../../tracers/types.js'

export const TRANSFER_TOPIC: Hex = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
/** ERC-7528: the address that stands for native ETH */
export const ETH_TRANSFER_ADDRESS: Address = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee'

export interface SimLog {
  address: Address
  topics: Hex[]
  data: Hex
  /** index in the block */
  index: number
}

export interface SimLogTracer extends Tracer<SimLog[]> {
  /** a new transaction: its logs start empty, the block's index runs on */
  startTx(): void
}

export function createSimLogTracer(traceTransfers: boolean): SimLogTracer {
  /** one bucket per open frame */
  let frames: SimLog[][] = []
  let count = 0

  const capture = (address: Address, topics: Hex[], data: Hex) => {
    frames[frames.length - 1]!.push({ address, topics, data, index: count++ })
  }

  return {
    startTx() {
      frames = []
    },
    onEnter(e: EnterEvent) {
      frames.push([])
      if (traceTransfers && e.type !== 'DELEGATECALL' && e.type !== 'CALLCODE' && e.value !== undefined && e.value > 0n) {
        capture(ETH_TRANSFER_ADDRESS, [TRANSFER_TOPIC, pad(e.from), pad(e.to)], pad(toHex(e.value)))
      }
    },
    onExit(e: ExitEvent) {
      if (e.depth === 0) {
        if (e.reverted && frames[0]) {
          count -= frames[0].length
          frames[0] = []
        }
        return
      }
      if (frames.length <= 1) return
      const call = frames.pop()!
      if (e.reverted) count -= call.length
      else frames[frames.length - 1]!.push(...call)
    },
    onLog(log: LogEvent) {
      capture(log.address, log.topics, log.data)
    },
    result() {
      return frames[0] ?? []
    },
  }
}
