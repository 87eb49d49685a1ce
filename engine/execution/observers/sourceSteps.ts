/**
 * The source-level facts of a run, for frames whose code the SourceIndex knows: which contract
 * each frame runs, the pc its last instruction had (where a failed frame stopped), and — when
 * asked — the internal function calls inside it, found as forge finds them (foundry v1.7.1
 * crates/evm/traces/src/debug/mod.rs DebugStepsWalker):
 *
 * - a JUMP the source map marks `i`, landing on a JUMPDEST whose source range is a function
 *   definition (not the JUMP's own range: that is the external function's dispatch), opens a call;
 * - a JUMP marked `o` closes the innermost open call whose entering JUMP has the range of the
 *   JUMPDEST it lands on, or whose first JUMPDEST has the range of this JUMP; the calls opened
 *   above it are source-map noise of the optimizer and are dropped, as forge drops them;
 * - arguments are read at the function's JUMPDEST, results at the JUMPDEST after the exit;
 * - gas is forge's: the frame's gas used (refunds counted as revm counts them) at the JUMPDEST
 *   after the exit less that at the entering JUMP.
 *
 * Where forge shows nothing, this keeps something, by the rule of docs/decisions/0107: calls still
 * open when their frame reverts are closed there, kept, and marked reverted (forge's trace leaves
 * them out), with the gas from their entry to the frame's end.
 *
 * Cost: the adapter runs a step through here only where `wantsStep` says so — the JUMPs the map
 * marks `i` or `o` and the one step after each — a table lookup by pc for every other step; with
 * `internal` off, no step at all. Nothing is attached when no source is known.
 */
import type { ContractSource, SourceIndex } from '../../sources/types.js'
import { codeMap, type CodeMap, type SourceElement } from '../../sources/sourceMap.js'
import { decodeFromStack } from '../../sources/internalFunction.js'
import { closedCallIndex, enteredFunction } from '../../sources/internalCalls.js'
import type { FrameEvent, FrameSourceFacts as FrameSource, InternalCall } from '../../sources/frameFacts.js'
import type { EnterEvent, ExitEvent, OpcodeStep, Tracer, TxContext } from '../../../tracers/types.js'

interface Opening {
  call: InternalCall
  jump: SourceElement
  dest: SourceElement
  /** forge's gas used by the frame at the entering JUMP */
  startGasUsed: bigint
  state: 'open' | 'closed' | 'dropped'
}

type Pending = { kind: 'open' | 'close'; opening: Opening } | { kind: 'call' | 'log' }

interface LiveFrame {
  out: FrameSource
  contract: ContractSource | undefined
  map: CodeMap | undefined
  gasLimit: bigint
  /** the refund revm lets a frame keep: at most spent / quotient */
  quotient: bigint
  refundBase: bigint | undefined
  /** the mark (1 `i`, 2 `o`) of the previous step when it was a marked JUMP, else 0 */
  afterJump: number
  jumpElement: SourceElement | undefined
  jumpGasUsed: bigint
  stack: Opening[]
  seq: Pending[]
}

export interface SourceStepsOptions {
  index: SourceIndex
  /** find internal calls (else only contracts and the pcs frames stopped at) */
  internal: boolean
}

export interface SourceSteps extends Tracer<FrameSource[]> {}

/** revm-inspectors' step gas_used: the frame's gas spent less the refund it may keep */
function gasUsedAt(f: LiveFrame, step: OpcodeStep): bigint {
  const spent = f.gasLimit - step.gas
  if (f.refundBase === undefined) f.refundBase = step.refund
  const refund = step.refund - f.refundBase
  const cap = spent / f.quotient
  const kept = refund < cap ? refund : cap
  return spent - (kept > 0n ? kept : 0n)
}

/** forge's jump_in: at the JUMPDEST after a JUMP marked `i` */
function enterCall(f: LiveFrame, step: OpcodeStep, dest: SourceElement): void {
  const jump = f.jumpElement!
  const fn = enteredFunction(f.contract!, jump, dest)
  if (fn === undefined) return
  const args = fn.parameters ? decodeFromStack(fn.parameters, step.stack, step.memory) : undefined
  const opening: Opening = { call: { fn, args, result: undefined, gasUsed: 0n, reverted: false }, jump, dest, startGasUsed: f.jumpGasUsed, state: 'open' }
  f.stack.push(opening)
  f.seq.push({ kind: 'open', opening })
}

/** forge's jump_out: at the JUMPDEST after a JUMP marked `o` */
function leaveCall(f: LiveFrame, step: OpcodeStep, dest: SourceElement): void {
  const i = closedCallIndex(f.stack, dest, f.jumpElement)
  if (i < 0) return
  const opening = f.stack[i]!
  for (const above of f.stack.splice(i)) above.state = 'dropped'
  opening.state = 'closed'
  const fn = opening.call.fn
  opening.call.result = fn.returns ? decodeFromStack(fn.returns, step.stack, step.memory) : undefined
  const used = gasUsedAt(f, step) - opening.startGasUsed
  opening.call.gasUsed = used > 0n ? used : 0n
  f.seq.push({ kind: 'close', opening })
}

/** a revert closes what is still open, kept and marked (docs/decisions/0107) */
function closeReverted(f: LiveFrame, frameGasUsed: bigint): void {
  while (f.stack.length > 0) {
    const opening = f.stack.pop()!
    opening.state = 'closed'
    opening.call.reverted = true
    const used = frameGasUsed - opening.startGasUsed
    opening.call.gasUsed = used > 0n ? used : 0n
    f.seq.push({ kind: 'close', opening })
  }
}

/** the frame's events without the calls that were dropped */
function finish(f: LiveFrame): void {
  const events: FrameEvent[] = []
  for (const p of f.seq) {
    if (!('opening' in p)) events.push(p)
    else if (p.opening.state === 'closed') events.push(p.kind === 'open' ? { kind: 'open', call: p.opening.call } : { kind: 'close' })
  }
  f.out.events = events
}

/** one step the frame asked for: a marked JUMP, or the step after one */
function observeStep(f: LiveFrame, map: CodeMap, step: OpcodeStep): void {
  const after = f.afterJump
  f.afterJump = 0
  if (after !== 0) {
    const dest = map.elementAt(step.pc)
    if (dest !== undefined && f.jumpElement !== undefined) {
      if (after === 1) enterCall(f, step, dest)
      else leaveCall(f, step, dest)
    }
  }
  const mark = map.jumpMarks[step.pc] ?? 0
  if (mark !== 0) {
    f.afterJump = mark
    f.jumpElement = map.elementAt(step.pc)
    f.jumpGasUsed = gasUsedAt(f, step)
  }
}

export function createSourceSteps(opts: SourceStepsOptions): SourceSteps {
  const frames: FrameSource[] = []
  const live: LiveFrame[] = []
  // from London on, revm caps the refund at a fifth of the gas spent (before: a half)
  let quotient = 5n
  let top: LiveFrame | undefined
  return {
    readsCode: true,
    onTxStart(ctx: TxContext) {
      quotient = ctx.isActive('london') ? 5n : 2n
    },
    wantsStep(pc: number): boolean {
      const f = top
      return f !== undefined && f.map !== undefined && (f.afterJump !== 0 || (f.map.jumpMarks[pc] ?? 0) !== 0)
    },
    onEnter(e: EnterEvent) {
      top?.seq.push({ kind: 'call' })
      const creation = e.type === 'CREATE' || e.type === 'CREATE2'
      const known = e.code !== undefined && e.code.length > 0
      const contract = !known ? undefined : creation ? opts.index.matchCreation(e.code!) : opts.index.matchRuntime(e.code!)
      const out: FrameSource = { contract, code: creation ? 'creation' : 'runtime', lastPc: undefined, failed: false }
      frames.push(out)
      const map = opts.internal && contract ? codeMap(creation ? contract.creation : contract.runtime) : undefined
      const gasLimit = e.executionGas ?? e.gas
      top = { out, contract, map, gasLimit, quotient, refundBase: undefined, afterJump: 0, jumpElement: undefined, jumpGasUsed: 0n, stack: [], seq: [] }
      live.push(top)
    },
    onOpcode(step: OpcodeStep) {
      if (top?.map) observeStep(top, top.map, step)
    },
    onLog() {
      top?.seq.push({ kind: 'log' })
    },
    onExit(e: ExitEvent) {
      const f = live.pop()
      top = live[live.length - 1]
      if (f === undefined) return
      f.out.lastPc = e.pc
      f.out.failed = e.error !== undefined
      if (!f.map) return
      if (e.reverted) closeReverted(f, e.executionGasUsed ?? e.gasUsed)
      finish(f)
    },
    result: () => frames,
  }
}
