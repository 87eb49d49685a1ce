/**
 * The source files a frame's page comes with (`withFiles`): those of the contract's compilation
 * that its code's source map refers to, in solc's source-id order, with their text until the
 * answer carries MAX_FILE_BYTES of it; the rest are listed with `content: null` (a viewer fetches
 * them as a registered project's files, or shows the path).
 */
import { codeMap } from '../../sources/sourceMap.js'
import type { ContractSource } from '../../sources/types.js'
import type { FrameStepsFile } from './types.js'

/** the text an answer carries at most, UTF-8 bytes */
export const MAX_FILE_BYTES = 4 * 2 ** 20

export function frameFiles(contract: ContractSource, creation: boolean, maxBytes = MAX_FILE_BYTES): FrameStepsFile[] {
  const map = codeMap(creation ? contract.creation : contract.runtime)
  const ids = new Set<number>()
  for (let pc = 0; pc < map.jumpMarks.length; pc++) {
    const id = map.elementAt(pc)?.index
    if (id !== undefined && id >= 0 && contract.sources[id] !== undefined) ids.add(id)
  }
  let left = maxBytes
  return [...ids]
    .sort((a, b) => a - b)
    .map((id) => {
      const file = contract.sources[id]!
      const size = file.content === undefined ? 0 : Buffer.byteLength(file.content)
      const fits = file.content !== undefined && size <= left
      if (fits) left -= size
      return { path: file.path, content: fits ? file.content! : null }
    })
}
