/**
 * The gas profile of a run (tracer `gasProfile`), built while it runs: every function activation
 * — external calls, constructors and, where the code's sources are known, internal functions —
 * with the gas it spent outside its callees, and the gas of each source line.
 *
 * Gas is counted between boundaries, never per step: a frame's gas left at one boundary less that
 * at the next, less what the frames it called in between used, is spent by the function and the
 * line that were current. A frame without sources has two boundaries, its start and its end (no
 * step is looked at); a frame with sources adds the steps where the line changes and the JUMPs the
 * source map marks (asked for through `wantsStep`, a table lookup for every other step). So the
 * self gas of all activations sums to the top frame's execution gas exactly, by construction.
 *
 * Internal functions are found as engine/execution/observers/sourceSteps.ts finds them (forge's
 * rules): a JUMP marked `i` that lands on a function's definition opens one, with the JUMP's own
 * gas inside it; a JUMP marked `o` closes the innermost matching one at the JUMPDEST after it, the
 * JUMP inside; activations above it dissolve into their caller; a frame that reverts closes what
 * is still open, one that succeeds dissolves it (docs/decisions/0107, 0130).
 */
import type { Hex } from 'viem'
import { codeLines, type CodeLines } from '../../sources/sourceLines.js'
import { codeMap, type CodeMap, type SourceElement } from '../../sources/sourceMap.js'
import { closedCallIndex, enteredFunction } from '../../sources/internalCalls.js'
import type { ContractSource, SourceIndex } from '../../sources/types.js'
import type { EnterEvent, ExitEvent, OpcodeStep, Tracer, TxContext } from '../../../tracers/types.js'
import { dissolveInto, mergeChild, newNode, type ProfileFrameId, type ProfileNode } from '../../decoding/gasProfile/profileTree.js'
import type { LineCost, RawGasProfile } from '../../decoding/gasProfile/types.js'

interface Opening {
  node: ProfileNode
  jump: SourceElement
  dest: SourceElement
}

interface Lens {
  contract: ContractSource
  map: CodeMap
  lines: CodeLines
  /** this run's cost entry of a line of the code (an index of `lines.lines`), made on first use */
  cost(id: number): LineCost
}

interface LiveFrame {
  node: ProfileNode
  startGas: number
  /** gas left at the last boundary */
  mark: number
  /** gas the frames it called used since the last boundary */
  childGas: number
  lens: Lens | undefined
  /** the line of the last boundary, -1 none */
  line: number
  openings: Opening[]
  /** the mark (1 `i`, 2 `o`) of the previous step when it was a marked jump, else 0 */
  afterJump: number
  jumpElement: SourceElement | undefined
}

export interface GasProfileOptions {
  /** the contracts whose sources are known; absent or empty: external frames only, no step seen */
  sources?: SourceIndex
}

export type GasProfileTracer = Tracer<RawGasProfile>

const selectorOf = (input: Hex): string => (input.length >= 10 ? input.slice(0, 10).toLowerCase() : '')

/** the run's cost of each source line, shared by the frames whose code has it */
function createLineBook() {
  const lenses = new Map<object, Lens>()
  const lineCosts = new Map<string, LineCost>()
  const lensOf = (contract: ContractSource, creation: boolean): Lens => {
    const compiled = creation ? contract.creation : contract.runtime
    let lens = lenses.get(compiled)
    if (lens !== undefined) return lens
    const lines = codeLines(contract, compiled)
    const costs: (LineCost | undefined)[] = []
    const cost = (id: number): LineCost => {
      let entry = costs[id]
      if (entry !== undefined) return entry
      const { file, line } = lines.lines[id]!
      const key = `${file}\u0000${line}`
      entry = lineCosts.get(key)
      if (entry === undefined) lineCosts.set(key, (entry = { file, line, gas: 0, hits: 0 }))
      costs[id] = entry
      return entry
    }
    lenses.set(compiled, (lens = { contract, map: codeMap(compiled), lines, cost }))
    return lens
  }
  return { lensOf, all: () => [...lineCosts.values()] }
}

/** closes the stretch since the last boundary at `gasLeft`: its gas to the current function and line */
function charge(f: LiveFrame, gasLeft: number): void {
  const spent = f.mark - gasLeft - f.childGas
  f.mark = gasLeft
  f.childGas = 0
  current(f).selfGas += spent
  if (f.line >= 0) f.lens!.cost(f.line).gas += spent
}

/** the innermost activation of a frame: its innermost open internal call, else the frame */
const current = (f: LiveFrame): ProfileNode => (f.openings.length > 0 ? f.openings[f.openings.length - 1]!.node : f.node)

export function createGasProfile(opts: GasProfileOptions = {}): GasProfileTracer {
  const index = opts.sources && !opts.sources.empty ? opts.sources : undefined
  const live: LiveFrame[] = []
  const book = createLineBook()
  let top: LiveFrame | undefined
  let ctx: TxContext | undefined
  const out: RawGasProfile = { root: undefined, intrinsicGas: 0, executionGas: 0, lines: [] }

  return {
    readsCode: index !== undefined,
    readsMemory: false,
    onTxStart(c) {
      ctx = c
    },
    wantsStep(pc: number): boolean {
      const f = top
      const lens = f?.lens
      return lens !== undefined && (f!.afterJump !== 0 || (lens.lines.lineAt[pc] ?? -1) !== f!.line || (lens.map.jumpMarks[pc] ?? 0) !== 0)
    },
    onEnter(e: EnterEvent) {
      const creation = e.type === 'CREATE' || e.type === 'CREATE2'
      const known = index !== undefined && e.code !== undefined && e.code.length > 0
      const contract = !known ? undefined : creation ? index.matchCreation(e.code!) : index.matchRuntime(e.code!)
      const id: ProfileFrameId = {
        kind: creation ? 'constructor' : 'external',
        address: e.to,
        fn: creation ? 'constructor' : selectorOf(e.input),
        ...(contract && { contract: contract.name, abi: contract.abi }),
        ...(!creation && ctx?.isPrecompile(e.to) && { precompile: true }),
      }
      const startGas = Number(e.executionGas ?? e.gas)
      if (e.depth === 0 && e.executionGas !== undefined) out.intrinsicGas = Number(e.gas - e.executionGas)
      const lens = contract ? book.lensOf(contract, creation) : undefined
      top = { node: newNode(id), startGas, mark: startGas, childGas: 0, lens, line: -1, openings: [], afterJump: 0, jumpElement: undefined }
      live.push(top)
    },
    onOpcode(step: OpcodeStep) {
      const f = top
      if (f?.lens) atBoundary(f, f.lens, step)
    },
    onExit(e: ExitEvent) {
      const f = live.pop()
      top = live[live.length - 1]
      if (f === undefined) return
      const used = Number(e.executionGasUsed ?? e.gasUsed)
      charge(f, f.startGas - used)
      endOpenings(f, e.reverted)
      if (top) {
        top.childGas += used
        mergeChild(current(top).children, f.node)
      } else {
        out.root = f.node
        out.executionGas = used
      }
    },
    result() {
      out.lines = book.all()
      return out
    },
  }
}

/** one step a sourced frame asked for: the stretch before it charged, internal calls opened or closed, the line moved */
function atBoundary(f: LiveFrame, lens: Lens, step: OpcodeStep): void {
  const after = f.afterJump
  f.afterJump = 0
  const dest = after !== 0 && f.jumpElement !== undefined ? lens.map.elementAt(step.pc) : undefined
  // the entering JUMP's own gas is the callee's (forge measures from it)
  if (dest !== undefined && after === 1) openInternal(f, lens.contract, dest)
  charge(f, Number(step.gas))
  if (dest !== undefined && after === 2) closeInternal(f, dest)
  const line = lens.lines.lineAt[step.pc] ?? -1
  if (line !== f.line) {
    f.line = line
    if (line >= 0) lens.cost(line).hits++
  }
  const mark = lens.map.jumpMarks[step.pc] ?? 0
  if (mark !== 0) {
    f.afterJump = mark
    f.jumpElement = lens.map.elementAt(step.pc)
  }
}

/** forge's jump_in, at the JUMPDEST after a JUMP marked `i` */
function openInternal(f: LiveFrame, contract: ContractSource, dest: SourceElement): void {
  const jump = f.jumpElement!
  const fn = enteredFunction(contract, jump, dest)
  if (fn === undefined) return
  f.openings.push({ node: newNode({ kind: 'internal', contract: fn.contract, fn: fn.name }), jump, dest })
}

/** forge's jump_out, at the JUMPDEST after a JUMP marked `o`: the matching activation closes, those above it dissolve */
function closeInternal(f: LiveFrame, dest: SourceElement): void {
  const open = f.openings
  const i = closedCallIndex(open, dest, f.jumpElement)
  if (i < 0) return
  while (open.length > i + 1) dissolveInto(open[open.length - 2]!.node, open.pop()!.node)
  const closed = open.pop()!
  mergeChild(current(f).children, closed.node)
}

/** at the frame's end: a revert closes what is still open (kept, as the call tree keeps it), a success dissolves it */
function endOpenings(f: LiveFrame, reverted: boolean): void {
  const open = f.openings
  while (open.length > 0) {
    const node = open.pop()!.node
    const parent = current(f)
    if (reverted) mergeChild(parent.children, node)
    else dissolveInto(parent, node)
  }
}
