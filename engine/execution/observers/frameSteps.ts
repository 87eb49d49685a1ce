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
 * Bounded, and light where it looks at nothing: only the asked page is kept, and only the page's
 * steps are step objects for it. Before the page, a step is asked for (`wantsStep`, a lookup by
 * pc) only where the storage book or the source lens needs it — an SLOAD or SSTORE in any frame
 * (the book is the transaction's, as geth's), a JUMP the source map marks in the frame and the
 * step after it; after the page, none. The frame's step count comes with its exit (the adapter
 * counts every frame's steps). A page also ends early once its JSON would pass PAGE_BYTES (steps
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
        out.functionDepth = lens.functionDepth()
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

/** the frame asked for, entered: what the answer says of it, and its source lens where its code is known */
function targetFrame(e: EnterEvent, index: SourceIndex | undefined): { frame: NonNullable<RawFrameSteps['frame']>; lens: FrameSourceLens | undefined } {
  const creation = e.type === 'CREATE' || e.type === 'CREATE2'
  const known = index !== undefined && e.code !== undefined && e.code.length > 0
  const contract = !known ? undefined : creation ? index.matchCreation(e.code!) : index.matchRuntime(e.code!)
  return { frame: { type: e.type, address: e.to, depth: e.depth + 1, contract, creation }, lens: contract && frameSourceLens(contract, creation, e.input) }
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
  /**
   * keep: steps are looked at; close: the page is full, and the frame's next step ends it (so a
   * child opened by the page's last step is still marked); done: nothing more is looked at
   */
  let phase: 'keep' | 'close' | 'done' = 'keep'
  /** the index of the frame's step looked at last */
  let last = -1
  const keep = (step: OpcodeStep): void => {
    if (page.add(step, step.index, storage.of(step.address), lens)) phase = 'close'
  }

  return {
    readsCode: true,
    readsMemory: true,
    onTxStart(ctx) {
      storage.state = ctx.state
    },
    wantsStep(pc: number, _depth: number, n: number): boolean {
      const f = top
      if (f === undefined || phase === 'done') return false
      if (f.target && (n >= fromStep || lens?.wants(pc) === true)) return true
      if (phase === 'close') return false
      const op = f.code?.[pc]
      return op === undefined || op === OP.SLOAD || op === OP.SSTORE
    },
    onEnter(e: EnterEvent) {
      const parent = top
      const child = parent ? parent.calls++ : 0
      if (parent?.target) page.markChild(last, child)
      const onPath = parent === undefined || (parent.onPath && e.depth <= path.length && path[e.depth - 1] === child)
      top = { calls: 0, onPath, target: onPath && e.depth === path.length, code: e.code }
      live.push(top)
      if (top.target) ({ frame: out.frame, lens } = targetFrame(e, index))
    },
    onOpcode(step: OpcodeStep) {
      if (!top?.target) return settled(storage.touch(step))
      last = step.index
      if (phase !== 'keep') {
        phase = 'done'
        return
      }
      lens?.see(step.pc)
      const touched = storage.touch(step)
      if (step.index < fromStep) return settled(touched)
      if (touched instanceof Promise) return touched.then(() => keep(step))
      keep(step)
    },
    onExit(e: ExitEvent) {
      const f = live.pop()
      top = live[live.length - 1]
      if (f?.target) {
        phase = 'done'
        out.totalSteps = e.steps ?? 0
      }
      if (f?.onPath && !f.target && (!reached || e.depth > out.reached.length)) {
        reached = true
        out.reached = { length: e.depth, calls: f.calls }
      }
    },
    result: () => out,
  }
}
