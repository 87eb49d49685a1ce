/**
 * callTracer: a port of go-ethereum v1.17 `eth/tracers/native/call.go` (+ gen_callframe_json.go
 * for field order and omitempty rules). Config `{onlyTopCall, withLog}`; rules in
 * docs/geth-reference.md §1.3.
 *
 * Frame keys in geth's order: from, gas, gasUsed, to, input, output, error, revertReason, calls,
 * logs, value, type. The top frame's gas is the tx gas limit (OnTxStart) and its gasUsed the
 * receipt gas (OnTxEnd); a failed CREATE has no `to`; output is kept on error only for a revert.
 *
 * @example
 * const t = createCallTracer({ withLog: true })
 * // ... fed by the execution adapter ...
 * t.result() // { from, gas, gasUsed, to, input, ..., type: 'CALL' }
 */
import type { Address, Hex } from 'viem'
import { toQuantity as q } from './evmWords.js'
import { unpackRevert } from './gethRevert.js'
import { TracerError } from './tracerError.js'
import type { CallType, EnterEvent, ExitEvent, LogEvent, Tracer, TxContext, TxEndEvent } from './types.js'

export interface CallTracerConfig {
  onlyTopCall?: boolean
  withLog?: boolean
}

export interface CallLogJson {
  address: Address
  topics: Hex[]
  data: Hex
  index: Hex
  position: Hex
}

export interface CallFrameJson {
  from: Address
  gas: Hex
  gasUsed: Hex
  to?: Address
  input: Hex
  output?: Hex
  error?: string
  revertReason?: string
  calls?: CallFrameJson[]
  logs?: CallLogJson[]
  value?: Hex
  type: CallType
}

interface CallLog {
  address: Address
  topics: Hex[]
  data: Hex
  index: number
  position: number
}

interface CallFrame {
  type: CallType
  from: Address
  gas: bigint
  gasUsed: bigint
  to: Address | undefined
  input: Hex
  output: Hex | undefined
  error: string | undefined
  revertReason: string | undefined
  calls: CallFrame[]
  logs: CallLog[] | undefined
  value: bigint | undefined
  revertedSnapshot: boolean
}

const REVERTED = 'execution reverted'

function processOutput(f: CallFrame, output: Hex, error: string | undefined, reverted: boolean): void {
  // pre-Homestead code-store OOG does not revert: geth clears the error
  if (error !== undefined && !reverted) error = undefined
  if (error === undefined) {
    f.output = output
    return
  }
  f.error = error
  f.revertedSnapshot = reverted
  if (f.type === 'CREATE' || f.type === 'CREATE2') f.to = undefined
  if (error !== REVERTED || output === '0x') return
  f.output = output
  if (output.length < 10) return
  const reason = unpackRevert(output)
  if (reason !== undefined) f.revertReason = reason
}

function clearFailedLogs(f: CallFrame, parentFailed: boolean): void {
  const failed = (f.error !== undefined && f.error.length > 0 && f.revertedSnapshot) || parentFailed
  if (failed) f.logs = undefined
  for (const c of f.calls) clearFailedLogs(c, failed)
}

function toJson(f: CallFrame): CallFrameJson {
  const out: CallFrameJson = { from: f.from, gas: q(f.gas), gasUsed: q(f.gasUsed) } as CallFrameJson
  if (f.to !== undefined) out.to = f.to
  out.input = f.input
  if (f.output !== undefined && f.output !== '0x') out.output = f.output
  if (f.error) out.error = f.error
  if (f.revertReason) out.revertReason = f.revertReason
  if (f.calls.length > 0) out.calls = f.calls.map(toJson)
  if (f.logs && f.logs.length > 0) {
    out.logs = f.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data, index: q(l.index), position: q(l.position) }))
  }
  if (f.value !== undefined) out.value = q(f.value)
  out.type = f.type
  return out
}

export function createCallTracer(config: CallTracerConfig = {}): Tracer<CallFrameJson> {
  const onlyTopCall = config.onlyTopCall === true
  const withLog = config.withLog === true
  const callstack: CallFrame[] = []
  let gasLimit = 0n
  let depth = 0

  return {
    onTxStart(ctx: TxContext) {
      gasLimit = ctx.gasLimit
    },
    onEnter(e: EnterEvent) {
      depth = e.depth
      if (onlyTopCall && e.depth > 0) return
      callstack.push({
        type: e.type,
        from: e.from,
        gas: e.depth === 0 ? gasLimit : e.gas,
        gasUsed: 0n,
        to: e.to,
        input: e.input,
        output: undefined,
        error: undefined,
        revertReason: undefined,
        calls: [],
        logs: undefined,
        value: e.value,
        revertedSnapshot: false,
      })
    },
    onExit(e: ExitEvent) {
      if (e.depth === 0) {
        if (callstack.length === 1) processOutput(callstack[0]!, e.output, e.error, e.reverted)
        return
      }
      depth = e.depth - 1
      if (onlyTopCall) return
      if (callstack.length <= 1) return
      const call = callstack.pop()!
      call.gasUsed = e.gasUsed
      processOutput(call, e.output, e.error, e.reverted)
      callstack[callstack.length - 1]!.calls.push(call)
    },
    onLog(log: LogEvent) {
      if (!withLog) return
      if (onlyTopCall && depth > 0) return
      const frame = callstack[callstack.length - 1]
      if (!frame) return
      ;(frame.logs ??= []).push({ address: log.address, topics: log.topics, data: log.data, index: log.index, position: frame.calls.length })
    },
    onTxEnd(e: TxEndEvent) {
      const top = callstack[0]
      if (!top) return
      top.gasUsed = e.gasUsed
      if (withLog) clearFailedLogs(top, false)
    },
    result(): CallFrameJson {
      if (callstack.length !== 1) throw new TracerError('INTERNAL_ERROR', 'callTracer: incorrect number of top-level calls')
      return toJson(callstack[0]!)
    },
  }
}
