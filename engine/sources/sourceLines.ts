/**
 * The source line of every instruction of a compiled code, as one table by pc: a step's line is a
 * lookup, never a search. A line is one of the compilation's own source files (its input), so an
 * instruction of the compiler's generated Yul, or of a file whose text the compilation did not
 * carry, has none (-1). Built once per code (WeakMap).
 */
import { codeMap, sourcePlace } from './sourceMap.js'
import type { CompiledCode, ContractSource } from './types.js'

export interface SourceLine {
  file: string
  /** 1-based */
  line: number
}

export interface CodeLines {
  /** pc → index into `lines`, -1 where no line is known */
  readonly lineAt: Int32Array
  readonly lines: readonly SourceLine[]
}

const tables = new WeakMap<CompiledCode, CodeLines>()

export function codeLines(contract: ContractSource, compiled: CompiledCode): CodeLines {
  let table = tables.get(compiled)
  if (table === undefined) tables.set(compiled, (table = buildLines(contract, compiled)))
  return table
}

function buildLines(contract: ContractSource, compiled: CompiledCode): CodeLines {
  const map = codeMap(compiled)
  const size = map.jumpMarks.length
  const lineAt = new Int32Array(size).fill(-1)
  const lines: SourceLine[] = []
  const ids = new Map<string, number>()
  for (let pc = 0; pc < size; pc++) {
    const element = map.elementAt(pc)
    if (element === undefined || element.index < 0) continue
    const file = contract.sources[element.index]
    const place = sourcePlace(file, element.offset)
    if (place === undefined || file === undefined) continue
    const key = `${element.index}:${place.line}`
    let id = ids.get(key)
    if (id === undefined) {
      id = lines.length
      ids.set(key, id)
      lines.push({ file: file.path, line: place.line })
    }
    lineAt[pc] = id
  }
  return { lineAt, lines }
}
