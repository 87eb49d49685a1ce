/**
 * Tracer `frameSteps` (ours, not geth's; docs/decisions/0134-frame-steps-paged-per-frame.md): one
 * page of the steps of one external frame, named by its path in the callTracer's `calls` arrays —
 * what a source-level debugger shows of a frame, fetched a page at a time.
 *
 * A step's values are the struct logger's, printed by its own printers (stack, memory) and from
 * its own storage book (tracers/structLogStorage.ts), so a page equals the struct log's steps of
 * that frame; `storage` is printed at every step, as the book stands after it. With the frame's
 * contract sources known, each step also carries its source place and function
 * (frameStepSource.ts).
 *
 * Bounded: only the asked page is kept; the frame's other steps are counted. Until the page is
 * complete the run's SLOADs and SSTOREs are recorded in every frame (the book is the
 * transaction's, as geth's), the frame's own steps seen by the source lens; after it, only the
 * frame's steps are counted. Every other step is declined through `wantsStep`, a byte of the
 * frame's code looked up by pc. A page also ends early once its JSON would pass PAGE_BYTES (steps
 * over a large memory): `nextStep` says where the next one starts.
 */
import type { Address } from 'viem'
import type { FrameStep, RawFrameSteps } from '../../decoding/frameSteps/types.js'
import type { SourceIndex } from '../../sources/types.js'
import type { FrameStepsConfig } from '../../../tracers/config.js'
import { OP } from '../../../tracers/opcodes.js'
import { createMemoryPrinter, createStackPrinter, estimateSize } from '../../../tracers/structLogger.js'
import { createStorageBook, sortedSlots, type TouchedSlot } from '../../../tracers/structLogStorage.js'
import type { EnterEvent, ExitEvent, OpcodeStep, StateReader, Tracer } from '../../../tracers/types.js'
import { frameSourceLens, type FrameSourceLens } from './frameStepSource.js'

export const DEFAULT_MAX_STEPS = 256
/** a page's JSON (estimated) past which it ends early */
const PAGE_BYTES = 32 * 2 ** 20
/** a step's source place and function name, estimated */
const SOURCE_BYTES = 96

interface LiveFrame {
  /** the calls it made so far: its next child's index in `calls` */
  calls: number
  /** its path begins the asked one */
  onPath: boolean
  target: boolean
  code: Uint8Array | undefined
}

export interface FrameStepsOptions {
  /** the contracts whose sources are known; absent or empty: steps without source places */
  sources?: SourceIndex
}

/** the page being kept: each step as the struct logger prints it, with its place and function */
function createPage(maxSteps: number) {
  const printStack = createStackPrinter()
  const printMemory = createMemoryPrinter()
  const steps: FrameStep[] = []
  let bytes = 0
  return {
    steps,
    /** full: no more steps are kept */
    add(step: OpcodeStep, index: number, storage: Record<string, string>, lens: FrameSourceLens | undefined): boolean {
      const out: FrameStep = {
        step: index,
        pc: step.pc,
        op: step.op,
        gas: Number(step.gas),
        gasCost: Number(step.cost),
        stack: printStack(step.stack),
        memory: printMemory(step.depth, step.memory).words,
        storage,
      }
      if (lens) {
        out.source = lens.place(step.pc)
        const fn = lens.functionName()
        if (fn !== undefined) out.function = fn
      }
      if (step.error) out.error = step.error
      steps.push(out)
      bytes += estimateSize(out) + (lens ? SOURCE_BYTES : 0)
      return steps.length >= maxSteps || bytes > PAGE_BYTES
    },
    /** the child frame a step opened, when that step is kept */
    markChild(index: number, child: number): void {
      const last = steps[steps.length - 1]
      if (last?.step === index) last.child = child
    },
  }
}

/** the transaction's storage book as steps print it: one snapshot, shared by the steps between two touches */
function createStorageView() {
  const book = createStorageBook()
  /** the storage printed last, until a slot is touched again */
  let printed: { address: Address; slots: Record<string, string> } | undefined
  return {
    state: undefined as StateReader | undefined,
    touch(step: OpcodeStep) {
      const t = book.touch(step, this.state!)
      if (t !== undefined) printed = undefined
      return t
    },
    of(address: Address): Record<string, string> {
      if (printed?.address !== address) printed = { address, slots: sortedSlots(book.of(address) ?? new Map()) }
      return printed.slots
    },
  }
}

const settled = (t: TouchedSlot | Promise<TouchedSlot> | undefined): Promise<void> | undefined => (t instanceof Promise ? t.then(() => undefined) : undefined)

export function createFrameSteps(config: FrameStepsConfig, opts: FrameStepsOptions = {}): Tracer<RawFrameSteps> {
  const path = config.frame
  const fromStep = config.fromStep ?? 0
  const index = opts.sources && !opts.sources.empty ? opts.sources : undefined
  const page = createPage(config.maxSteps ?? DEFAULT_MAX_STEPS)
  const storage = createStorageView()
  const live: LiveFrame[] = []
  const out: RawFrameSteps = { frame: undefined, totalSteps: 0, steps: page.steps, reached: { length: 0, calls: 0 } }
  let reached = false
  let top: LiveFrame | undefined
  let lens: FrameSourceLens | undefined
  /** steps are still looked at: the page is not complete and the frame has not ended */
  let keeping = true
  const keep = (step: OpcodeStep, n: number): void => {
    if (page.add(step, n, storage.of(step.address), lens)) keeping = false
  }

  function enterTarget(e: EnterEvent): void {
    const creation = e.type === 'CREATE' || e.type === 'CREATE2'
    const known = index !== undefined && e.code !== undefined && e.code.length > 0
    const contract = !known ? undefined : creation ? index.matchCreation(e.code!) : index.matchRuntime(e.code!)
    out.frame = { type: e.type, address: e.to, depth: e.depth + 1, contract, creation }
    lens = contract && frameSourceLens(contract, creation, e.input)
  }

  return {
    readsCode: true,
    readsMemory: true,
    onTxStart(ctx) {
      storage.state = ctx.state
    },
    wantsStep(pc: number): boolean {
      const f = top
      if (f === undefined) return false
      if (f.target) return true
      if (!keeping) return false
      const op = f.code?.[pc]
      return op === undefined || op === OP.SLOAD || op === OP.SSTORE
    },
    onEnter(e: EnterEvent) {
      const parent = top
      const child = parent ? parent.calls++ : 0
      if (parent?.target) page.markChild(out.totalSteps - 1, child)
      const onPath = parent === undefined || (parent.onPath && e.depth <= path.length && path[e.depth - 1] === child)
      top = { calls: 0, onPath, target: onPath && e.depth === path.length, code: e.code }
      live.push(top)
      if (top.target) enterTarget(e)
    },
    onOpcode(step: OpcodeStep) {
      const f = top
      if (!f?.target) return keeping ? settled(storage.touch(step)) : undefined
      const n = out.totalSteps++
      if (!keeping) return
      lens?.see(step.pc)
      const touched = storage.touch(step)
      if (n < fromStep) return settled(touched)
      if (touched instanceof Promise) return touched.then(() => keep(step, n))
      keep(step, n)
    },
    onExit(e: ExitEvent) {
      const f = live.pop()
      top = live[live.length - 1]
      if (f?.target) keeping = false
      if (f?.onPath && !f.target && (!reached || e.depth > out.reached.length)) {
        reached = true
        out.reached = { length: e.depth, calls: f.calls }
      }
    },
    result: () => out,
  }
}
