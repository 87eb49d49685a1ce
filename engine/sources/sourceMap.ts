/**
 * solc's source maps, read: the compressed `s:l:f:j:m;…` string decompressed into one element per
 * instruction (solc's "Source Mappings" rules: an empty field repeats the previous entry's), the
 * instruction index of each pc of a bytecode (PUSH data is no instruction), and a byte offset of a
 * source file as a 1-based line and column with the line's text.
 *
 * Offsets in a source map count UTF-8 bytes, so lines are found in the file's bytes, not in its
 * JavaScript string. Everything here is computed once per compiled code or source file and cached
 * on it (WeakMap), so a trace pays for a table lookup per step at most.
 *
 * @example
 * const map = codeMap(contract.runtime)
 * const element = map.elementAt(pc) // { offset, length, index, jump: 'i' | 'o' | '-' }
 * const place = sourcePlace(contract.sources[element.index], element.offset)
 */
import type { CompiledCode, SourceFile } from './types.js'

export type JumpKind = 'i' | 'o' | '-'

export interface SourceElement {
  /** byte offset in the source file */
  offset: number
  length: number
  /** the source id (`-1`: none, e.g. compiler-internal code) */
  index: number
  jump: JumpKind
  modifierDepth: number
}

export function decompressSourceMap(map: string): SourceElement[] {
  const out: SourceElement[] = []
  let prev: SourceElement = { offset: -1, length: -1, index: -1, jump: '-', modifierDepth: 0 }
  if (map === '') return out
  for (const entry of map.split(';')) {
    const [s, l, f, j, m] = entry.split(':')
    const next: SourceElement = {
      offset: s ? Number(s) : prev.offset,
      length: l ? Number(l) : prev.length,
      index: f ? Number(f) : prev.index,
      jump: j ? (j as JumpKind) : prev.jump,
      modifierDepth: m ? Number(m) : prev.modifierDepth,
    }
    out.push(next)
    prev = next
  }
  return out
}

const JUMP = 0x56
const JUMPDEST = 0x5b
const PUSH1 = 0x60
const PUSH32 = 0x7f

/** hex of a compiled object to bytes; library placeholders (`__$…$__`) read as zeros */
function objectBytes(object: string): Uint8Array {
  const hex = (object.startsWith('0x') ? object.slice(2) : object).replace(/__\$[0-9a-fA-F]{34}\$__/g, '0'.repeat(40))
  const bytes = new Uint8Array(hex.length >> 1)
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16) || 0
  return bytes
}

/** pc → instruction index; -1 inside PUSH data */
export function instructionIndexes(code: Uint8Array): Int32Array {
  const out = new Int32Array(code.length).fill(-1)
  let ic = 0
  for (let pc = 0; pc < code.length; pc++) {
    out[pc] = ic++
    const op = code[pc]!
    if (op >= PUSH1 && op <= PUSH32) pc += op - PUSH1 + 1
  }
  return out
}

/** what a trace needs of one compiled code, by pc */
export interface CodeMap {
  /** the source element of the instruction at `pc`; undefined for PUSH data or past the map */
  elementAt(pc: number): SourceElement | undefined
  /**
   * 1: a JUMP or JUMPDEST the map marks as entering a function (`i`), 2: one marked as leaving
   * (`o`), 0 otherwise — the only instructions whose steps internal calls are found at
   */
  readonly jumpMarks: Uint8Array
}

const maps = new WeakMap<CompiledCode, CodeMap>()

export function codeMap(compiled: CompiledCode): CodeMap {
  let map = maps.get(compiled)
  if (map === undefined) maps.set(compiled, (map = buildCodeMap(compiled)))
  return map
}

function buildCodeMap(compiled: CompiledCode): CodeMap {
  const code = objectBytes(compiled.object)
  const ics = instructionIndexes(code)
  const elements = decompressSourceMap(compiled.sourceMap)
  const jumpMarks = new Uint8Array(code.length)
  for (let pc = 0; pc < code.length; pc++) {
    const ic = ics[pc]!
    const op = code[pc]
    if (ic < 0 || ic >= elements.length || (op !== JUMP && op !== JUMPDEST)) continue
    const jump = elements[ic]!.jump
    if (jump === 'i') jumpMarks[pc] = 1
    else if (jump === 'o') jumpMarks[pc] = 2
  }
  return {
    jumpMarks,
    elementAt: (pc) => {
      const ic = pc >= 0 && pc < ics.length ? ics[pc]! : -1
      return ic >= 0 ? elements[ic] : undefined
    },
  }
}

export function sameElement(a: SourceElement | undefined, b: SourceElement | undefined): boolean {
  return a !== undefined && b !== undefined && a.offset === b.offset && a.length === b.length && a.index === b.index
}

/** a file's bytes and where each of its lines starts */
interface FileLines {
  bytes: Uint8Array
  starts: number[]
}

const files = new WeakMap<SourceFile, FileLines>()
const utf8 = new TextEncoder()
const text = new TextDecoder()

function linesOf(file: SourceFile & { content: string }): FileLines {
  let lines = files.get(file)
  if (lines === undefined) {
    const bytes = utf8.encode(file.content)
    const starts = [0]
    for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0x0a) starts.push(i + 1)
    files.set(file, (lines = { bytes, starts }))
  }
  return lines
}

export interface SourcePlace {
  /** 1-based */
  line: number
  /** 1-based, in bytes from the line's start */
  column: number
  /** the whole line, without its line break */
  text: string
}

/** the line and column of a byte offset of a file; undefined when the file has no text or the offset is past it */
export function sourcePlace(file: SourceFile | undefined, offset: number): SourcePlace | undefined {
  if (file?.content === undefined || offset < 0) return undefined
  const { bytes, starts } = linesOf(file as SourceFile & { content: string })
  if (offset >= bytes.length) return undefined
  let lo = 0
  let hi = starts.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (starts[mid]! <= offset) lo = mid
    else hi = mid - 1
  }
  const start = starts[lo]!
  const end = lo + 1 < starts.length ? starts[lo + 1]! - 1 : bytes.length
  return { line: lo + 1, column: offset - start + 1, text: text.decode(bytes.subarray(start, end)).replace(/\r$/, '') }
}

/** the source text a range covers (byte offsets) */
export function sourceSlice(file: SourceFile | undefined, offset: number, length: number): string | undefined {
  if (file?.content === undefined || offset < 0 || length < 0) return undefined
  const { bytes } = linesOf(file as SourceFile & { content: string })
  if (offset + length > bytes.length) return undefined
  return text.decode(bytes.subarray(offset, offset + length))
}
