/**
 * stepTrace: the opcode trace of /simulate shape B (interface §4 shape B). The `steps` are the
 * struct logger's logs shaped by `traceConfig` (stack always; memory with enableMemory, return data
 * with enableReturnData, storage with enableStorage), plus two summaries:
 * - `storageChanges` `{address: {slot: {before, after}}}` for every slot whose value differs
 *   between the start and the end of the transaction (`before` read at first touch, `after` read at
 *   onTxEnd, so writes undone by a revert do not show);
 * - `memoryChanges` `[{step, offset, data}]`, one per memory write (only with enableMemory): `step`
 *   is the index of the writing step in `steps`; `data` is what landed in memory, read at the next
 *   step of the same frame (for a CALL family op: the bytes of return data copied back).
 *
 * @example
 * const t = createStepTracer({ enableMemory: true }, { maxSteps: 100_000 })
 * t.result().memoryChanges // [{ step: 3, offset: '0x40', data: '0x…80' }]
 */
import { toHex, type Address, type Hex } from 'viem'
import type { StepTraceConfig } from '../../types.js'
import { createStructLogger, toWord, type StructLog, type StructLoggerOptions } from '../../../tracers/structLogger.js'
import type { OpcodeStep, StateReader, Tracer, TxEndEvent } from '../../../tracers/types.js'

export interface StepTraceOutput {
  gas: number
  failed: boolean
  returnValue: Hex
  steps: StructLog[]
  storageChanges: Record<Address, Record<Hex, { before: Hex; after: Hex }>>
  memoryChanges: { step: number; offset: Hex; data: Hex }[]
}

interface PendingWrite {
  step: number
  offset: bigint
  size: bigint
  /** CALL family: only min(size, returndata length) bytes are written */
  isCall: boolean
}

/** where a memory-writing op writes: stack indices counted from the top (0 = top) */
/** (`fixed`: size is the byte count itself) */
const WRITES: Record<number, { offset: number; size: number; call?: boolean; fixed?: boolean }> = {
  0x52: { offset: 0, size: 32, fixed: true }, // MSTORE
  0x53: { offset: 0, size: 1, fixed: true }, // MSTORE8
  0x37: { offset: 0, size: 2 }, // CALLDATACOPY(destOffset, offset, size)
  0x39: { offset: 0, size: 2 }, // CODECOPY
  0x3c: { offset: 1, size: 3 }, // EXTCODECOPY(addr, destOffset, offset, size)
  0x3e: { offset: 0, size: 2 }, // RETURNDATACOPY
  0x5e: { offset: 0, size: 2 }, // MCOPY(dest, src, size)
  0xf1: { offset: 5, size: 6, call: true }, // CALL(gas, addr, value, argsOff, argsLen, retOff, retLen)
  0xf2: { offset: 5, size: 6, call: true }, // CALLCODE
  0xf4: { offset: 4, size: 5, call: true }, // DELEGATECALL(gas, addr, argsOff, argsLen, retOff, retLen)
  0xfa: { offset: 4, size: 5, call: true }, // STATICCALL
}

export function createStepTracer(cfg: StepTraceConfig, opts: Omit<StructLoggerOptions, 'spill'> = {}): Tracer<StepTraceOutput> {
  const logger = createStructLogger(
    {
      disableMemory: cfg.enableMemory !== true,
      disableStorage: cfg.enableStorage !== true,
      enableReturnData: cfg.enableReturnData === true,
    },
    opts,
  )
  const s: StepTrace = { state: undefined, stepIndex: 0, before: new Map(), storageChanges: {}, memoryChanges: [], pending: new Map() }
  const trackMemory = cfg.enableMemory === true

  return {
    async onTxStart(ctx) {
      s.state = ctx.state
      await logger.onTxStart?.(ctx)
    },
    onEnter: (e) => logger.onEnter?.(e),
    onExit: (e) => logger.onExit?.(e),
    onLog: (l) => logger.onLog?.(l),

    async onOpcode(step: OpcodeStep) {
      const index = s.stepIndex++
      // only a storage op awaits a read (the first touch of its slot); every other step runs through
      if ((step.opcode === 0x54 || step.opcode === 0x55) && step.stack.length >= 1 && !step.error) await keepFirstValue(s, step)
      if (trackMemory) trackMemoryWrite(s, step, index)
      await logger.onOpcode?.(step)
    },

    async onTxEnd(e: TxEndEvent) {
      await logger.onTxEnd?.(e)
      await collectStorageChanges(s)
    },

    result(): StepTraceOutput {
      const r = logger.result()
      return { gas: r.gas, failed: r.failed, returnValue: r.returnValue, steps: r.structLogs, storageChanges: s.storageChanges, memoryChanges: s.memoryChanges }
    },
  }
}

/** what the step trace keeps besides the struct logger's steps */
interface StepTrace {
  state: StateReader | undefined
  stepIndex: number
  /** first-touch values: address → slot → before */
  readonly before: Map<Address, Map<Hex, Hex>>
  readonly storageChanges: StepTraceOutput['storageChanges']
  readonly memoryChanges: StepTraceOutput['memoryChanges']
  /** a write waits, per depth, for the next step of its frame to read what landed */
  readonly pending: Map<number, PendingWrite>
}

/** an SLOAD's or SSTORE's slot: its value before the transaction, read at its first touch */
async function keepFirstValue(s: StepTrace, step: OpcodeStep): Promise<void> {
  const slot = toWord(step.stack[step.stack.length - 1]) as Hex
  let slots = s.before.get(step.address)
  if (!slots) s.before.set(step.address, (slots = new Map()))
  if (!slots.has(slot)) slots.set(slot, normalize(await s.state!.getStorage(step.address, slot)))
}

/** the write this frame's previous step made, read now it has landed; this step's own write, kept for the next */
function trackMemoryWrite(s: StepTrace, step: OpcodeStep, index: number): void {
  const { pending } = s
  // frames deeper than this step have ended: their memory is gone
  for (const d of [...pending.keys()]) if (d > step.depth) pending.delete(d)
  const p = pending.get(step.depth)
  if (p) {
    pending.delete(step.depth)
    settleWrite(s, p, step)
  }
  const n = step.stack.length
  const w = WRITES[step.opcode]
  if (w && !step.error && n > w.offset && (w.fixed || n > w.size)) {
    const size = w.fixed ? BigInt(w.size) : step.stack[n - 1 - w.size]
    if (size > 0n) pending.set(step.depth, { step: index, offset: step.stack[n - 1 - w.offset], size, isCall: w.call === true })
  }
}

function settleWrite(s: StepTrace, p: PendingWrite, step: OpcodeStep): void {
  let size = p.size
  if (p.isCall) size = size < BigInt(step.returnData.length) ? size : BigInt(step.returnData.length)
  // a write that lands past the memory the next step sees did not happen (the op failed)
  if (size === 0n || p.offset + size > BigInt(step.memory.length)) return
  const start = Number(p.offset)
  const slice = new Uint8Array(Number(size))
  if (start < step.memory.length) slice.set(step.memory.subarray(start, Math.min(step.memory.length, start + slice.length)))
  s.memoryChanges.push({ step: p.step, offset: toHex(p.offset), data: toHex(slice) })
}

/** every slot touched whose value at the end differs from its first-touch value */
async function collectStorageChanges(s: StepTrace): Promise<void> {
  for (const [addr, slots] of s.before) {
    for (const [slot, was] of slots) {
      const now = normalize(await s.state!.getStorage(addr, slot))
      if (now === was) continue
      ;(s.storageChanges[addr] ??= {})[slot] = { before: was, after: now }
    }
  }
}

function normalize(v: Hex): Hex {
  return `0x${v.slice(2).toLowerCase().replace(/^0+/, '').padStart(64, '0')}` as Hex
}
