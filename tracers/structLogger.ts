/**
 * structLogger: a port of go-ethereum v1.17 `eth/tracers/logger/logger.go` StructLogger, the
 * opcode-level default tracer of debug_trace*. Output `{gas, failed, returnValue, structLogs}`,
 * each log in geth's structLogLegacy field order:
 * `pc, op, gas, gasCost, depth, error?, stack?, returnData?, memory?, storage?, refund?`
 * (formats of v1.17.3: minimal-hex stack bottom→top, 0x-prefixed 32-byte memory words,
 * 0x-prefixed 32-byte storage keys/values; docs/geth-reference.md §1.6).
 *
 * Our API differs from geth only in its defaults (interface §8): memory, stack and storage are
 * ON unless disabled (geth: memory off unless enableMemory). `cleanStructLogs` keeps every step but
 * drops repetition: `memory` only where it changed since the previous step (`[]` when it changed
 * to empty, so a reader that carries the last memory forward stays right), `storage` only at
 * SLOAD/SSTORE and only the touched slot.
 *
 * Memory: a frame's memory is copied and rendered to words only when it changed since that
 * frame's depth was last seen; unchanged steps share the previous words array.
 *
 * Size guards: past `maxSteps` steps, or once the JSON the logs serialize to would pass
 * `maxBytes` (estimated as geth does with its `resultSize`: shared memory words count at every step
 * that prints them), the tracer refuses with TracerError('PAYLOAD_TOO_LARGE') — the same code as
 * an oversized request (HTTP 413): the answer would be too large to build or send, and the message
 * tells the caller how to shrink it (cleanStructLogs / disableMemory / disableStack). The byte
 * guard matters when memory is large: 10k steps over 1 MiB of memory print ~25 GB.
 *
 * Spilling (`opts.spill`): a long trace is not held as objects. Once the logs' JSON passes
 * `spill.thresholdBytes`, the logger opens the sink it was given (the engine's temporary file; the
 * tracer knows nothing of files) and from then on writes each step's JSON as it goes: `[`, the
 * logs joined by `,`, `]` — exactly the bytes `JSON.stringify(structLogs)` prints. A step is
 * written as bytes, not built as a string (structLogBytes.ts: a third of a spilled trace's CPU
 * went to building, flattening and encoding those strings), and the sink gets them a chunk at a
 * time. The result
 * then carries, in place of the `structLogs` array, whatever the sink's `finish()` returns (a
 * handle the front door streams from). The byte guard becomes `spill.maxBytes`, counted exactly.
 *
 * @example
 * const t = createStructLogger({ cleanStructLogs: true }, { maxSteps: 100_000 })
 * t.result() // { gas: 21000, failed: false, returnValue: '0x', structLogs: [...] }
 */
import { toHex, type Hex } from 'viem'
import { JsonBytesWriter } from './jsonBytesWriter.js'
import { CLOSE_ARRAY, COMMA, createStepWriter, OPEN_ARRAY, printedByPosition, type PrintedMemory } from './structLogBytes.js'
import { TracerError } from './tracerError.js'
import { createStorageBook, sortedSlots, type TouchedSlot } from './structLogStorage.js'
import type { ExitEvent, OpcodeStep, StateReader, Tracer, TxEndEvent } from './types.js'

export { toWord } from './structLogStorage.js'

export interface StructLoggerConfig {
  cleanStructLogs?: boolean
  disableMemory?: boolean
  disableStack?: boolean
  disableStorage?: boolean
  enableReturnData?: boolean
  /**
   * geth's `limit` (logger.Config.Limit): once the logs' JSON passed this many bytes, further
   * steps are not logged — the trace is cut short, not refused. 0 or absent: no limit; negative:
   * nothing logged (geth compares the size so far, 0, with it).
   */
  limit?: number
}

export interface StructLoggerOptions {
  /** refuse past this many steps; undefined or 0: unlimited */
  maxSteps?: number
  /** refuse once the serialized logs would pass this many bytes (default 256 MiB, under V8's string limit) */
  maxBytes?: number
  /** where the logs' JSON goes once it grows large (the engine's temporary file); absent: kept in memory */
  spill?: StructLogSpill
}

/** Receives the logs' JSON as UTF-8 bytes, in order; the tracer writes, the engine stores. */
export interface StructLogSink {
  /** the next bytes: consumed before it returns (the tracer writes over the chunk afterwards) */
  write(chunk: Uint8Array): void
  /** every log written: the value the result carries in place of the `structLogs` array */
  finish(): object
}

export interface StructLogSpill {
  /** logs past this many bytes of JSON (estimated) go to the sink; 0: every trace */
  thresholdBytes: number
  /** refuse once this many bytes were written (the disk cap) */
  maxBytes: number
  open(): StructLogSink
}

export interface StructLog {
  pc: number
  op: string
  gas: number
  gasCost: number
  depth: number
  error?: string
  stack?: string[]
  returnData?: Hex
  memory?: string[]
  storage?: Record<string, string>
  refund?: number
}

export interface StructLoggerResult<Logs = StructLog[]> {
  gas: number
  failed: boolean
  returnValue: Hex
  /** with a spill that was used: the sink's handle (object), which stands for `[...logs]` */
  structLogs: Logs
}

const DEFAULT_MAX_BYTES = 256 * 2 ** 20
/** fixed keys and numbers of one log, a stack item, a memory word, a storage entry (JSON bytes) */
const LOG_BYTES = 96
const STACK_ITEM_BYTES = 24
const WORD_BYTES = 69
const SLOT_BYTES = 136

/** the JSON bytes a log prints, estimated (exact enough to bound an answer, far cheaper than printing it) */
export function estimateSize(l: Pick<StructLog, 'op' | 'error' | 'returnData' | 'stack' | 'memory' | 'storage'>): number {
  let n = LOG_BYTES + l.op.length + (l.error?.length ?? 0) + (l.returnData?.length ?? 0)
  if (l.stack) n += l.stack.length * STACK_ITEM_BYTES
  if (l.memory) n += l.memory.length * WORD_BYTES
  if (l.storage) n += Object.keys(l.storage).length * SLOT_BYTES
  return n
}

/** 0x-prefixed 32-byte words; the last one right-padded (geth v1.17.3). */
export function memoryWords(mem: Uint8Array): string[] {
  const hex = Buffer.from(mem.buffer, mem.byteOffset, mem.byteLength).toString('hex')
  const words: string[] = []
  for (let i = 0; i < hex.length; i += 64) words.push(`0x${hex.slice(i, i + 64).padEnd(64, '0')}`)
  return words
}

/** a memory as printed (shared by unchanged steps), and the bytes it was copied from */
export interface MemoryEntry extends PrintedMemory {
  bytes: Uint8Array
}
/** an empty memory (shared by every log that prints one: frozen, so no reader can change them all) */
const NO_MEMORY: MemoryEntry = { bytes: new Uint8Array(0), words: Object.freeze([]) as unknown as string[] }

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  // a few words (most steps): a loop costs less than the native call
  if (a.length > 256) return Buffer.compare(a, b) === 0
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/**
 * A step's memory as geth prints it, by the depth of its frame: a frame's memory is copied and
 * rendered to words only when it changed since that depth was last seen; unchanged steps share the
 * previous entry (and its words array), an empty memory the frozen NO_MEMORY.
 */
export function createMemoryPrinter(): (depth: number, mem: Uint8Array) => MemoryEntry {
  const memoryAt = new Map<number, MemoryEntry>()
  return (depth, mem) => {
    if (mem.length === 0) return NO_MEMORY
    const cached = memoryAt.get(depth)
    if (cached && sameBytes(cached.bytes, mem)) return cached
    // the adapter may hand a live view of the EVM memory: keep a copy
    const entry: MemoryEntry = { bytes: Uint8Array.from(mem), words: memoryWords(mem) }
    memoryAt.set(depth, entry)
    return entry
  }
}

/** a step's stack as geth prints it (minimal hex, bottom → top); each position printed again only when its value changed */
export function createStackPrinter(): (stack: readonly bigint[]) => string[] {
  // minimal hex (viem toHex of a non-negative bigint, without its checks)
  const hexAt = printedByPosition((v) => v.toString(16))
  return (stack) => {
    const words = new Array<string>(stack.length)
    for (let i = 0; i < stack.length; i++) words[i] = `0x${hexAt(i, stack[i]!)}`
    return words
  }
}

export function createStructLogger(config?: StructLoggerConfig, opts?: StructLoggerOptions & { spill?: undefined }): Tracer<StructLoggerResult>
export function createStructLogger(config: StructLoggerConfig, opts: StructLoggerOptions): Tracer<StructLoggerResult<StructLog[] | object>>
export function createStructLogger(config: StructLoggerConfig = {}, opts: StructLoggerOptions = {}): Tracer<StructLoggerResult<StructLog[] | object>> {
  const clean = config.cleanStructLogs === true
  const withMemory = config.disableMemory !== true
  const withStack = config.disableStack !== true
  const withStorage = config.disableStorage !== true
  const withReturnData = config.enableReturnData === true
  const maxSteps = opts.maxSteps && opts.maxSteps > 0 ? opts.maxSteps : Infinity
  const maxBytes = opts.maxBytes && opts.maxBytes > 0 ? opts.maxBytes : DEFAULT_MAX_BYTES
  /** the byte cap that applies: the in-memory estimate's, or the sink's once spilling */
  let byteCap = maxBytes
  /** the step count (the in-memory array is emptied once spilling) */
  let steps = 0
  /** estimated JSON size of the logs so far */
  let bytes = 0
  // geth's int: a negative limit is already passed at the first step (nothing is logged)
  const limit = config.limit ?? 0
  /** geth's resultSize: the exact JSON bytes of the logs so far (kept only under a limit) */
  let resultSize = 0

  let logs: StructLog[] = []
  const spill = opts.spill
  /** open once the logs passed spill.thresholdBytes: every later log is written, not kept */
  let sink: StructLogSink | undefined
  /** writes into the sink (its size: the JSON bytes written, exact) */
  let out: JsonBytesWriter | undefined
  /** what the sink answered when the logs were complete */
  let handle: object | undefined
  /** cumulative storage seen per contract (geth l.storage) */
  const storage = createStorageBook()
  const printMemory = createMemoryPrinter()
  const printStack = createStackPrinter()
  let prevWords: string[] | undefined
  let state: StateReader | undefined
  let gasUsed = 0n
  let output: Hex = '0x'
  let error: string | undefined
  let exited = false
  let refused: TracerError | undefined
  const writeStep = createStepWriter({ withStack, withReturnData })

  /** what an SLOAD/SSTORE step prints of storage (geth's rules): its slot, or a snapshot of everything its contract touched so far */
  const printed = (t: TouchedSlot): Record<string, string> => (clean ? { [t.slot]: t.value } : sortedSlots(t.seen))

  /** the log object, keys in geth's field order: pc, op, gas, gasCost, depth, error?, stack?, returnData?, memory?, storage?, refund? */
  function toLog(step: OpcodeStep, memory: MemoryEntry | undefined, slots: Record<string, string> | undefined): StructLog {
    const log: StructLog = { pc: step.pc, op: step.op, gas: Number(step.gas), gasCost: Number(step.cost), depth: step.depth }
    if (step.error) log.error = step.error
    if (withStack) log.stack = printStack(step.stack)
    if (withReturnData && step.returnData.length > 0) log.returnData = toHex(step.returnData)
    if (memory) log.memory = memory.words
    if (slots) log.storage = slots
    if (step.refund !== 0n) log.refund = Number(step.refund)
    return log
  }

  /**
   * A finished step (`memory`: the memory it prints, if any; `slots`: the storage it prints):
   * written when spilling, else kept (and spilled once past the threshold).
   */
  function emit(step: OpcodeStep, memory: MemoryEntry | undefined, slots: Record<string, string> | undefined): void {
    steps++
    if (out) {
      const before = out.size
      writeStep(out, step, memory, slots)
      // the separator came with the log
      if (limit !== 0) resultSize += out.size - before - 1
      if (out.size > spill!.maxBytes) refuse('bytes')
      return
    }
    const log = toLog(step, memory, slots)
    bytes += estimateSize(log)
    if (limit !== 0) resultSize += JSON.stringify(log).length
    if (spill && bytes > spill.thresholdBytes) {
      byteCap = spill.maxBytes
      logs.push(log)
      return startSpilling()
    }
    if (bytes > maxBytes) refuse('bytes')
    logs.push(log)
  }

  /** the logs so far go to a newly opened sink, `[` first; the array is dropped */
  function startSpilling(): void {
    const opened = (sink = spill!.open())
    out = new JsonBytesWriter((chunk) => opened.write(chunk))
    out.byte(OPEN_ARRAY)
    for (let i = 0; i < logs.length; i++) {
      if (i > 0) out.byte(COMMA)
      out.text(JSON.stringify(logs[i]))
    }
    logs = []
    if (out.size > spill!.maxBytes) refuse('bytes')
  }

  function refuse(why: 'steps' | 'bytes'): never {
    refused ??= new TracerError(
      'PAYLOAD_TOO_LARGE',
      why === 'steps'
        ? `struct log exceeds the limit of ${maxSteps} steps`
        : `struct log exceeds ${Math.round(byteCap / 2 ** 20)} MiB of output (memory printed at every step)`,
      why === 'steps' ? { maxStructLogSteps: maxSteps } : { maxStructLogBytes: byteCap },
      'trace with structLogger {"cleanStructLogs": true, "disableMemory": true} (and disableStack), or use callTracer',
    )
    throw refused
  }

  return {
    readsMemory: withMemory,
    onTxStart(ctx) {
      state = ctx.state
    },

    // synchronous but for an SLOAD's state read: a promise per step costs more than the step
    onOpcode(step: OpcodeStep): void | Promise<void> {
      if (refused) throw refused
      // geth checks before logging: the step that crosses the limit is still logged
      if (limit !== 0 && resultSize > limit) return
      if (steps >= maxSteps) refuse('steps')
      let memory: MemoryEntry | undefined
      if (withMemory) {
        const entry = printMemory(step.depth, step.memory)
        if (!clean) {
          if (entry.words.length > 0) memory = entry
        } else if (entry.words !== prevWords && !(entry.words.length === 0 && (prevWords?.length ?? 0) === 0)) {
          memory = entry
        }
        prevWords = entry.words
      }
      const touched = withStorage ? storage.touch(step, state!) : undefined
      if (touched instanceof Promise) return touched.then((t) => emit(step, memory, printed(t)))
      emit(step, memory, touched && printed(touched))
    },

    onExit(e: ExitEvent) {
      if (e.depth !== 0) return
      exited = true
      output = e.output
      error = e.error
    },

    onTxEnd(e: TxEndEvent) {
      gasUsed = e.gasUsed
      if (!exited) {
        output = e.output
        error = e.error
      }
    },

    result(): StructLoggerResult<StructLog[] | object> {
      if (refused) throw refused
      const failed = error !== undefined
      // return data on success, revert data on revert, otherwise empty
      const returnValue = failed && error !== 'execution reverted' ? '0x' : output
      let structLogs: StructLog[] | object = logs
      if (sink && out) {
        if (!handle) {
          out.byte(CLOSE_ARRAY)
          out.close()
          handle = sink.finish()
        }
        structLogs = handle
      }
      return { gas: Number(gasUsed), failed, returnValue: returnValue.toLowerCase() as Hex, structLogs }
    },
  }
}
