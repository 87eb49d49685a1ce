/**
 * Where one frame's steps are in its contract's source (tracer `frameSteps`): a step's file, line
 * and column from the source map, and the innermost function it runs in — an internal function
 * entered and left by forge's rules (engine/sources/internalCalls.ts), else the external function
 * the frame's selector dispatches to (the constructor in a creation).
 *
 * It sees the frame's steps from the first one, not only the page's: an internal call entered
 * before the page starts still names the page's steps. A step costs a table lookup by pc unless it
 * is a JUMP the map marks or the step after one.
 */
import type { Hex } from 'viem'
import { dispatchedFunction } from '../../decoding/callTree/signatures.js'
import type { StepSource } from '../../decoding/frameSteps/types.js'
import { closedCallIndex, enteredFunction, type OpenedCall } from '../../sources/internalCalls.js'
import { codeMap, sourcePlace, type SourceElement } from '../../sources/sourceMap.js'
import type { ContractSource } from '../../sources/types.js'

export interface FrameSourceLens {
  /** the steps it must see: the JUMPs the map marks and the step after each */
  wants(pc: number): boolean
  /** a step of the frame, in order (at least those it wants): follows the internal calls */
  see(pc: number): void
  /** the place of the instruction at `pc`; null where the map gives no line of the compilation's input */
  place(pc: number): StepSource | null
  /** the innermost function of the last step seen, `Contract.function`; undefined when none is known */
  functionName(): string | undefined
  /** the internal calls open at the last step seen: 0 in the external function */
  functionDepth(): number
}

interface Opening extends OpenedCall {
  name: string
}

const selectorOf = (input: Hex): string => (input.length >= 10 ? input.slice(0, 10).toLowerCase() : '')

export function frameSourceLens(contract: ContractSource, creation: boolean, input: Hex): FrameSourceLens {
  const map = codeMap(creation ? contract.creation : contract.runtime)
  const external = creation ? 'constructor' : dispatchedFunction(contract.abi, selectorOf(input))
  const outer = external === undefined ? undefined : `${contract.name}.${external}`
  const open: Opening[] = []
  /** the mark (1 `i`, 2 `o`) of the previous step when it was a marked JUMP, else 0 */
  let afterJump = 0
  let jump: SourceElement | undefined

  /** the step after a marked JUMP: where it landed opens or closes an internal call */
  const landed = (mark: number, pc: number): void => {
    const dest = map.elementAt(pc)
    if (dest === undefined || jump === undefined) return
    if (mark === 1) {
      const fn = enteredFunction(contract, jump, dest)
      if (fn !== undefined) open.push({ jump, dest, name: `${fn.contract}.${fn.name}` })
      return
    }
    const i = closedCallIndex(open, dest, jump)
    // the calls above the one closed are the optimizer's noise: they close with it
    if (i >= 0) open.length = i
  }

  return {
    wants: (pc) => afterJump !== 0 || (map.jumpMarks[pc] ?? 0) !== 0,
    see(pc) {
      if (afterJump !== 0) landed(afterJump, pc)
      afterJump = map.jumpMarks[pc] ?? 0
      if (afterJump !== 0) jump = map.elementAt(pc)
    },
    place(pc) {
      const element = map.elementAt(pc)
      const file = element && element.index >= 0 ? contract.sources[element.index] : undefined
      const place = file && sourcePlace(file, element!.offset)
      return place ? { file: file!.path, line: place.line, column: place.column } : null
    },
    functionName: () => open.at(-1)?.name ?? outer,
    functionDepth: () => open.length,
  }
}
