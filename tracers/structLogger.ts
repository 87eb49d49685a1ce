/**
 * structLogger: a port of go-ethereum v1.17 `eth/tracers/logger/logger.go` StructLogger, the
 * opcode-level default tracer of debug_trace*. Output `{gas, failed, returnValue, structLogs}`,
 * each log in geth's structLogLegacy field order:
 * `pc, op, gas, gasCost, depth, error?, stack?, returnData?, memory?, storage?, refund?`
 * (formats of v1.17.3: minimal-hex stack bottom→top, 0x-prefixed 32-byte memory words,
 * 0x-prefixed 32-byte storage keys/values; spec/geth-reference.md §1.6).
 *
 * Our API differs from geth only in its defaults (decisions.md §8): memory, stack and storage are
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
 * @example
 * const t = createStructLogger({ cleanStructLogs: true }, { maxSteps: 100_000 })
 * t.result() // { gas: 21000, failed: false, returnValue: '0x', structLogs: [...] }
 */
import { toHex, type Address, type Hex } from 'viem'
import { TracerError } from './tracerError.js'
import { normalizeWord, wordToHash } from './evmWords.js'
import { OP } from './opcodes.js'
import type { ExitEvent, OpcodeStep, StateReader, Tracer, TxEndEvent } from './types.js'

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

export interface StructLoggerResult {
  gas: number
  failed: boolean
  returnValue: Hex
  structLogs: StructLog[]
}

const DEFAULT_MAX_BYTES = 256 * 2 ** 20
/** fixed keys and numbers of one log, a stack item, a memory word, a storage entry (JSON bytes) */
const LOG_BYTES = 96
const STACK_ITEM_BYTES = 24
const WORD_BYTES = 69
const SLOT_BYTES = 136

function estimateSize(l: StructLog): number {
  let n = LOG_BYTES + l.op.length + (l.error?.length ?? 0) + (l.returnData?.length ?? 0)
  if (l.stack) n += l.stack.length * STACK_ITEM_BYTES
  if (l.memory) n += l.memory.length * WORD_BYTES
  if (l.storage) n += Object.keys(l.storage).length * SLOT_BYTES
  return n
}

/** a stack word as geth's struct log prints it */
export const toWord = (v: bigint): string => wordToHash(v)

/** 0x-prefixed 32-byte words; the last one right-padded (geth v1.17.3). */
export function memoryWords(mem: Uint8Array): string[] {
  const hex = Buffer.from(mem.buffer, mem.byteOffset, mem.byteLength).toString('hex')
  const words: string[] = []
  for (let i = 0; i < hex.length; i += 64) words.push(`0x${hex.slice(i, i + 64).padEnd(64, '0')}`)
  return words
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0
}

export function createStructLogger(config: StructLoggerConfig = {}, opts: StructLoggerOptions = {}): Tracer<StructLoggerResult> {
  const clean = config.cleanStructLogs === true
  const withMemory = config.disableMemory !== true
  const withStack = config.disableStack !== true
  const withStorage = config.disableStorage !== true
  const withReturnData = config.enableReturnData === true
  const maxSteps = opts.maxSteps && opts.maxSteps > 0 ? opts.maxSteps : Infinity
  const maxBytes = opts.maxBytes && opts.maxBytes > 0 ? opts.maxBytes : DEFAULT_MAX_BYTES
  /** estimated JSON size of the logs so far */
  let bytes = 0
  // geth's int: a negative limit is already passed at the first step (nothing is logged)
  const limit = config.limit ?? 0
  /** geth's resultSize: the exact JSON bytes of the logs so far (kept only under a limit) */
  let resultSize = 0

  const logs: StructLog[] = []
  /** cumulative storage seen per contract (geth l.storage) */
  const storage = new Map<Address, Map<string, string>>()
  /** last memory seen at each depth, with its rendered words (shared by unchanged steps) */
  const memoryAt = new Map<number, { bytes: Uint8Array; words: string[] }>()
  let prevWords: string[] | undefined
  let state: StateReader | undefined
  let gasUsed = 0n
  let output: Hex = '0x'
  let error: string | undefined
  let exited = false
  let refused: TracerError | undefined

  function wordsFor(depth: number, mem: Uint8Array): string[] {
    const cached = memoryAt.get(depth)
    if (cached && sameBytes(cached.bytes, mem)) return cached.words
    // the adapter may hand a live view of the EVM memory: keep a copy
    const entry = { bytes: Uint8Array.from(mem), words: memoryWords(mem) }
    memoryAt.set(depth, entry)
    return entry.words
  }

  function refuse(why: 'steps' | 'bytes'): never {
    refused ??= new TracerError(
      'PAYLOAD_TOO_LARGE',
      why === 'steps'
        ? `struct log exceeds the limit of ${maxSteps} steps`
        : `struct log exceeds ${Math.round(maxBytes / 2 ** 20)} MiB of output (memory printed at every step)`,
      why === 'steps' ? { maxStructLogSteps: maxSteps } : { maxStructLogBytes: maxBytes },
      'trace with structLogger {"cleanStructLogs": true, "disableMemory": true} (and disableStack), or use callTracer',
    )
    throw refused
  }

  return {
    onTxStart(ctx) {
      state = ctx.state
    },

    async onOpcode(step: OpcodeStep) {
      if (refused) throw refused
      // geth checks before logging: the step that crosses the limit is still logged
      if (limit !== 0 && resultSize > limit) return
      if (logs.length >= maxSteps) refuse('steps')
      const log: StructLog = {
        pc: step.pc,
        op: step.op,
        gas: Number(step.gas),
        gasCost: Number(step.cost),
        depth: step.depth,
      }
      if (step.error) log.error = step.error
      if (withStack) log.stack = step.stack.map((v) => toHex(v))
      if (withReturnData && step.returnData.length > 0) log.returnData = toHex(step.returnData)
      if (withMemory) {
        const words = step.memory.length > 0 ? wordsFor(step.depth, step.memory) : []
        if (!clean) {
          if (words.length > 0) log.memory = words
        } else if (words !== prevWords && !(words.length === 0 && (prevWords?.length ?? 0) === 0)) {
          log.memory = words
        }
        prevWords = words
      }
      if (withStorage && (step.opcode === OP.SLOAD || step.opcode === OP.SSTORE)) {
        const n = step.stack.length
        let touched: [string, string] | undefined
        if (step.opcode === OP.SLOAD && n >= 1) {
          const slot = toWord(step.stack[n - 1])
          touched = [slot, normalizeWord(await state!.getStorage(step.address, slot as Hex))]
        } else if (step.opcode === OP.SSTORE && n >= 2) {
          touched = [toWord(step.stack[n - 1]), toWord(step.stack[n - 2])]
        }
        if (touched) {
          let seen = storage.get(step.address)
          if (!seen) storage.set(step.address, (seen = new Map()))
          seen.set(touched[0], touched[1])
          if (clean) {
            log.storage = { [touched[0]]: touched[1] }
          } else {
            // a snapshot of everything touched so far in this contract, keys sorted like Go maps
            const snap: Record<string, string> = {}
            for (const k of [...seen.keys()].sort()) snap[k] = seen.get(k)!
            log.storage = snap
          }
        }
      }
      if (step.refund !== 0n) log.refund = Number(step.refund)
      bytes += estimateSize(log)
      if (bytes > maxBytes) refuse('bytes')
      if (limit !== 0) resultSize += JSON.stringify(log).length
      logs.push(log)
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

    result(): StructLoggerResult {
      if (refused) throw refused
      const failed = error !== undefined
      // return data on success, revert data on revert, otherwise empty
      const returnValue = failed && error !== 'execution reverted' ? '0x' : output
      return { gas: Number(gasUsed), failed, returnValue: returnValue.toLowerCase() as Hex, structLogs: logs }
    },
  }
}
