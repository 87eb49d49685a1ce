/**
 * A spilled struct log step written as JSON bytes (jsonBytesWriter.ts), byte for byte what
 * `,` + JSON.stringify of the step's log object prints in geth's field order
 * (`test/tracers/structLoggerSpill.test.ts` compares the two for every option).
 *
 * Why bytes: built as strings, each step was a rope of a dozen pieces, flattened and then encoded
 * into the file's buffer; in a worker that was a third of a spilled trace's CPU and most of its
 * garbage. Here the keys are bytes made once (`,"op":"NAME","gas":` once per opcode), numbers go
 * in as ASCII digits, and the stack is kept as the bytes it was printed to from one step to the
 * next.
 *
 * @example
 * const writeStep = createStepWriter({ withStack: true, withReturnData: false })
 * writeStep(writer, step, undefined, undefined)
 */
import { toHex } from 'viem'
import { asciiBytes, type JsonBytesWriter } from './jsonBytesWriter.js'
import { untouchedBelow } from './opcodes.js'
import type { OpcodeStep } from './types.js'

/** a memory as a log prints it: its words, and their JSON bytes once a spilled log needed them */
export interface PrintedMemory {
  words: string[]
  json?: Uint8Array
}

export const OPEN_ARRAY = 0x5b
export const COMMA = 0x2c
export const CLOSE_ARRAY = 0x5d
const QUOTE = 0x22
/** plain Uint8Arrays like every other piece (one array type through the writer's copy) */
const UTF8 = new TextEncoder()
const CLOSE_OBJECT = 0x7d
const K_PC = asciiBytes(',{"pc":')
const K_GAS_COST = asciiBytes(',"gasCost":')
const K_DEPTH = asciiBytes(',"depth":')
const K_ERROR = asciiBytes(',"error":')
const K_STACK = asciiBytes(',"stack":[')
const K_RETURN_DATA = asciiBytes(',"returnData":')
const K_MEMORY = asciiBytes(',"memory":')
const K_STORAGE = asciiBytes(',"storage":')
const K_REFUND = asciiBytes(',"refund":')

/**
 * Stack words printed once per value at each stack position: from one step to the next most of a
 * stack stays as it was, and printing a bigint is the largest single cost of a step. A position
 * whose value changed is printed anew (bigints compare by value).
 */
export function printedByPosition<T>(print: (v: bigint) => T): (i: number, v: bigint) => T {
  const values: (bigint | undefined)[] = []
  const printed: T[] = []
  return (i, v) => {
    if (values[i] === v) return printed[i]!
    const p = print(v)
    values[i] = v
    printed[i] = p
    return p
  }
}

/** a stack word as the JSON bytes of its quoted minimal hex (`"0x…"`) */
function quotedWord(v: bigint): Uint8Array {
  const h = v.toString(16)
  const b = new Uint8Array(h.length + 4)
  b[0] = QUOTE
  b[1] = 0x30 // 0
  b[2] = 0x78 // x
  for (let k = 0; k < h.length; k++) b[k + 3] = h.charCodeAt(k)
  b[h.length + 3] = QUOTE
  return b
}

/**
 * A spilled log's stack as JSON bytes (the words between `[` and `]`), kept between steps: most of
 * a stack stays as it was from one step to the next, so only the words from the first position
 * that changed on are copied in again (and printed, if their value is new). Values are compared
 * from the bottom, except below what the previous step's opcode could have touched: between two
 * steps of one frame (the same depth, one after the other) an opcode changes at most its top
 * `pops` words (geth's minStack: SWAPn's n+1, DUPn's n), so those below stay as printed without
 * comparing (a bigint comparison is a call, ~10 ns, and a swap's stacks are ~10 deep). After a
 * step at another depth (a call entered or returned; a step that fails ends its frame) or a byte
 * no table defines, every position is compared.
 */
function createStackJson(): { print(stack: readonly bigint[], depth: number, opcode: number): number; bytes(): Uint8Array } {
  const itemBytes = printedByPosition(quotedWord)
  /** the stack printed last, and where each of its words ends in `json` */
  const values: bigint[] = []
  const ends: number[] = []
  let count = 0
  /** the previous step's depth and how many of its words its opcode left untouched (at most) */
  let lastDepth = -1
  let lastKept = 0
  // a plain Uint8Array, not a Buffer: the writer takes a view of its start at every step, and
  // Buffer's subarray (a FastBuffer) costs twice the builtin's
  let json = new Uint8Array(4096)
  return {
    /** prints `stack`; answers how many bytes of `bytes()` hold it */
    print(stack, depth, opcode) {
      const n = stack.length
      const same = n < count ? n : count
      let k = depth === lastDepth ? (lastKept < same ? lastKept : same) : 0
      while (k < same && values[k] === stack[k]) k++
      lastDepth = depth
      lastKept = untouchedBelow(opcode, n)
      let end = k === 0 ? 0 : ends[k - 1]!
      for (let i = k; i < n; i++) {
        const v = stack[i]!
        const b = itemBytes(i, v)
        if (end + b.length + 1 > json.length) {
          const grown = new Uint8Array(Math.max(json.length * 2, end + b.length + 1))
          grown.set(json.subarray(0, end))
          json = grown
        }
        if (i > 0) json[end++] = COMMA
        for (let j = 0; j < b.length; j++) json[end++] = b[j]!
        values[i] = v
        ends[i] = end
      }
      count = n
      return n === 0 ? 0 : ends[n - 1]!
    },
    bytes: () => json,
  }
}

/** writes one step: `memory` and `slots` are what the step prints of memory and storage, if anything */
export type StepWriter = (w: JsonBytesWriter, step: OpcodeStep, memory: PrintedMemory | undefined, slots: Record<string, string> | undefined) => void

export function createStepWriter(opts: { withStack: boolean; withReturnData: boolean }): StepWriter {
  const { withStack, withReturnData } = opts
  /** `,"op":"NAME","gas":` as bytes, by opcode (with the name it was made from): one copy, not three */
  const opNames: string[] = []
  const opBytes: Uint8Array[] = []
  const stackJson = createStackJson()
  return function writeStep(w, step, memory, slots) {
    w.bytes(K_PC)
    w.uint(step.pc)
    let op = opBytes[step.opcode]
    if (op === undefined || opNames[step.opcode] !== step.op) {
      opNames[step.opcode] = step.op
      opBytes[step.opcode] = op = UTF8.encode(`,"op":${JSON.stringify(step.op)},"gas":`)
    }
    w.bytes(op)
    w.uint(Number(step.gas))
    w.bytes(K_GAS_COST)
    w.uint(Number(step.cost))
    w.bytes(K_DEPTH)
    w.uint(step.depth)
    if (step.error) {
      w.bytes(K_ERROR)
      w.text(JSON.stringify(step.error))
    }
    if (withStack) {
      w.bytes(K_STACK)
      const length = stackJson.print(step.stack, step.depth, step.opcode)
      w.prefix(stackJson.bytes(), length)
      w.byte(CLOSE_ARRAY)
    }
    if (withReturnData && step.returnData.length > 0) {
      w.bytes(K_RETURN_DATA)
      w.text(`"${toHex(step.returnData)}"`)
    }
    if (memory) {
      w.bytes(K_MEMORY)
      w.bytes((memory.json ??= asciiBytes(JSON.stringify(memory.words))))
    }
    if (slots) {
      w.bytes(K_STORAGE)
      w.text(JSON.stringify(slots))
    }
    if (step.refund !== 0n) {
      w.bytes(K_REFUND)
      w.uint(Number(step.refund))
    }
    w.byte(CLOSE_OBJECT)
  }
}
