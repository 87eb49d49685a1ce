/**
 * vmTraceTracer: Parity's `vmTrace` trace type as reth prints it — a port of revm-inspectors'
 * ParityTraceBuilder::vm_trace over its TracingInspector steps (src/tracing/builder/parity.rs,
 * src/tracing/mod.rs) with the parity config (steps, pushed stack items, memory snapshots, no
 * storage changes). `{code, ops: [{cost, ex: {used, push, mem, store}, pc, sub, op}]}` per call
 * frame, where revm's quirks are the format:
 * - `used` is the gas left BEFORE the op (not after, as OpenEthereum printed);
 * - `cost` is what the op took from the frame: a CALL-family op or a CREATE also counts the gas
 *   handed to the callee (geth's struct log leaves it out of CREATE, so it is added here);
 * - `push` is what the op left on top of the stack (its output count); a CALL/CREATE's result is
 *   pushed only after the callee returns, so its `push` is the word under its arguments;
 * - `mem` is the whole memory before the op, `off` its length; `store` is always null;
 * - `sub` is the callee's trace for each CALL-family/CREATE op, in order; SELFDESTRUCT has none;
 * - `code` is the frame's code address's code before the transaction (`0x` for a creation);
 * - revm's "single STOP optimised away": when the transaction's last recorded op is a STOP and
 *   some frame starts with STOP, the whole trace is `{code, ops: []}`.
 *
 * @example
 * const t = createVmTraceTracer()
 * // ... fed by the execution adapter ...
 * t.result() // { code: '0x6080…', ops: [{ cost: 3, ex: { used: 978428, push: ['0x80'], mem: { off: 0, data: '0x' }, store: null }, pc: 0, sub: null, op: 'PUSH1' }, …] }
 */
import { bytesToHex, toHex, type Address, type Hex } from 'viem'
import { OP, opPushes, revmOpName } from './opcodes.js'
import { TracerError } from './tracerError.js'
import type { EnterEvent, OpcodeStep, StateReader, Tracer, TxContext } from './types.js'

export interface VmTrace {
  code: Hex
  ops: VmInstruction[]
}
export interface VmInstruction {
  cost: number
  ex: { used: number; push: Hex[]; mem: { off: number; data: Hex } | null; store: null }
  pc: number
  sub: VmTrace | null
  op: string
}

interface Step {
  pc: number
  opcode: number
  used: bigint
  cost: bigint
  mem: { off: number; data: Hex }
  push: Hex[] | undefined
  /** the stack before the op, kept until the push is known */
  stack: readonly bigint[] | undefined
  failed: boolean
}

interface Node {
  code: Hex
  steps: Step[]
  children: Node[]
  /** the memory last rendered in this frame, to share its hex between steps that did not change it */
  lastMem?: { bytes: Uint8Array; hex: Hex }
}

const CALL_LIKE = new Set<number>([OP.CALL, OP.CALLCODE, OP.DELEGATECALL, OP.STATICCALL, OP.CREATE, OP.CREATE2])
const CALL_INPUTS: Record<number, number> = { [OP.CALL]: 7, [OP.CALLCODE]: 7, [OP.DELEGATECALL]: 6, [OP.STATICCALL]: 6, [OP.CREATE]: 3, [OP.CREATE2]: 4 }
const STOP = 0x00

/** where an op reads or writes memory: [offset, size] as stack depths from the top */
const MEMORY_RANGES: Record<number, [number, number][]> = {
  0x51: [[0, -32]], // MLOAD
  0x52: [[0, -32]], // MSTORE
  0x53: [[0, -1]], // MSTORE8
  0x20: [[0, 1]], // KECCAK256
  0x37: [[0, 2]], // CALLDATACOPY
  0x39: [[0, 2]], // CODECOPY
  0x3e: [[0, 2]], // RETURNDATACOPY
  0x3c: [[1, 3]], // EXTCODECOPY
  0x5e: [
    [0, 2],
    [1, 2],
  ], // MCOPY
  0xa0: [[0, 1]],
  0xa1: [[0, 1]],
  0xa2: [[0, 1]],
  0xa3: [[0, 1]],
  0xa4: [[0, 1]], // LOG0..4
  0xf3: [[0, 1]], // RETURN
  0xfd: [[0, 1]], // REVERT
}

const memoryCost = (words: bigint): bigint => 3n * words + (words * words) / 512n

/** the memory expansion part of an op's cost (0 when it does not grow memory) */
function memoryExpansion(step: OpcodeStep): bigint {
  const ranges = MEMORY_RANGES[step.opcode]
  if (!ranges) return 0n
  const top = (i: number): bigint => step.stack[step.stack.length - 1 - i] ?? 0n
  let end = 0n
  for (const [offset, size] of ranges) {
    const n = size < 0 ? BigInt(-size) : top(size)
    if (n > 0n && top(offset) + n > end) end = top(offset) + n
  }
  const now = BigInt(Math.ceil(step.memory.length / 32))
  const words = (end + 31n) / 32n
  return words > now ? memoryCost(words) - memoryCost(now) : 0n
}

/**
 * What an op that ran out of gas took in revm: all the gas left (revm spends it all on an
 * out-of-gas halt), except when memory expansion is the part that did not fit — revm halts with
 * MemoryOOG then, having charged only the parts before it — or EIP-2200's sentry, which fails
 * before SSTORE charges anything. (A CALL or CREATE out of gas on its memory shows all the gas.)
 */
function revmChargedBeforeOutOfGas(step: OpcodeStep): bigint {
  if (step.error === 'out of gas: not enough gas for reentrancy sentry') return 0n
  const memory = memoryExpansion(step)
  if (memory > 0n && step.cost - memory <= step.gas) return step.cost - memory
  return step.gas
}

/** revm's static gas of the two ops that pop and then can still fail with a result slot left */
const POPS_THEN_FAILS: Record<number, bigint> = { 0x20: 30n, 0x0a: 10n } // KECCAK256, EXP

/**
 * The stack revm leaves when an op fails: untouched when its static gas did not fit (or the stack
 * check failed); KECCAK256 and EXP pop their first operand and keep the second as the result
 * slot before their dynamic gas can fail. The other ops with a result that can fail past their
 * static gas (SLOAD, BALANCE, MLOAD, …) take one operand and leave it in place.
 */
function stackAtFailure(opcode: number, gas: bigint, stack: readonly bigint[]): readonly bigint[] {
  const fixed = POPS_THEN_FAILS[opcode]
  return fixed !== undefined && gas >= fixed && stack.length >= 2 ? stack.slice(0, -1) : stack
}

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i])
const words = (items: readonly bigint[]): Hex[] => items.map((w) => toHex(w))

export interface VmTraceOptions {
  /** refuse past this many ops (the operator's struct-log step cap); undefined or 0: unlimited */
  maxSteps?: number
  /** refuse once the printed trace would pass this many bytes (default 256 MiB) */
  maxBytes?: number
}

/** an op's printed fields besides its memory and pushes, in JSON bytes */
const OP_BYTES = 120

/**
 * The trace is built in memory and prints the whole memory at every op (as reth does), so its
 * size is bounded like the struct logger's kept logs: past `maxSteps` ops or `maxBytes` of
 * estimated JSON the tracer refuses with PAYLOAD_TOO_LARGE instead of growing without end.
 */
export function createVmTraceTracer(opts: VmTraceOptions = {}): Tracer<VmTrace> {
  const maxSteps = opts.maxSteps && opts.maxSteps > 0 ? opts.maxSteps : Infinity
  const maxBytes = opts.maxBytes ?? 256 * 2 ** 20
  let steps = 0
  let bytes = 0
  const nodes: Node[] = [] // in the order the frames began (revm's arena)
  const open: Node[] = []
  const created = new Set<Address>()
  let state: StateReader | undefined
  let tangerineWhistle = true
  let skipExit = 0
  let out: VmTrace = { code: '0x', ops: [] }

  /** the code revm-inspectors reads for a frame: the account's before the transaction */
  function codeBefore(addr: Address): Promise<Hex> {
    if (created.has(addr) || !state) return Promise.resolve('0x')
    return state.getCode(addr).then((c) => (c ?? '0x').toLowerCase() as Hex)
  }

  /** a step's push, once the stack after it is known (`after` undefined: the frame ended with it) */
  function settle(step: Step, after: readonly bigint[] | undefined): void {
    if (step.push || !step.stack) return
    const n = opPushes(step.opcode)
    // an op that ended the frame either pushes nothing or failed: then revm's stack is as it left it
    const stack = after ?? (step.failed ? stackAtFailure(step.opcode, step.used, step.stack) : [])
    step.push = n === 0 ? [] : words(stack.slice(Math.max(0, stack.length - n)))
    step.stack = undefined
  }

  function memoryOf(node: Node, memory: Uint8Array): { off: number; data: Hex } {
    if (!node.lastMem || !sameBytes(node.lastMem.bytes, memory)) node.lastMem = { bytes: Uint8Array.from(memory), hex: bytesToHex(memory) }
    return { off: memory.length, data: node.lastMem.hex }
  }

  function build(node: Node, lastIsStop: boolean): VmTrace | 'stop' {
    const ops: VmInstruction[] = []
    let child = 0
    for (const s of node.steps) {
      let sub: VmTrace | null = null
      if (CALL_LIKE.has(s.opcode) && child < node.children.length) {
        const t = build(node.children[child++]!, lastIsStop)
        if (t === 'stop') return t
        sub = t
      }
      if (s.opcode === STOP && ops.length === 0 && lastIsStop) return 'stop'
      ops.push({ cost: Number(s.cost), ex: { used: Number(s.used), push: s.push ?? [], mem: s.mem, store: null }, pc: s.pc, sub, op: revmOpName(s.opcode) })
    }
    return { code: node.code, ops }
  }

  return {
    onTxStart(c: TxContext) {
      state = c.state
      tangerineWhistle = c.isActive('tangerineWhistle')
    },
    async onEnter(e: EnterEvent) {
      // revm records a selfdestruct on its frame, not as a frame of its own
      if (e.type === 'SELFDESTRUCT') {
        skipExit++
        return
      }
      const isCreate = e.type === 'CREATE' || e.type === 'CREATE2'
      if (isCreate) created.add(e.to)
      const node: Node = { code: await codeBefore(e.to), steps: [], children: [] }
      open[open.length - 1]?.children.push(node)
      open.push(node)
      nodes.push(node)
    },
    onExit() {
      if (skipExit > 0) {
        skipExit--
        return
      }
      const node = open.pop()
      const last = node?.steps[node.steps.length - 1]
      if (last) settle(last, undefined)
    },
    onOpcode(step: OpcodeStep) {
      const node = open[open.length - 1]
      if (!node) return
      const prev = node.steps[node.steps.length - 1]
      if (prev) settle(prev, step.stack)
      let cost = step.cost
      if (step.error?.startsWith('out of gas')) {
        cost = revmChargedBeforeOutOfGas(step)
      } else if ((step.opcode === OP.CREATE || step.opcode === OP.CREATE2) && !step.error) {
        // geth's cost leaves out the gas a CREATE hands on; revm's counts it (EIP-150: all but a 64th)
        const left = step.gas - step.cost
        cost += tangerineWhistle ? left - left / 64n : left
      }
      const s: Step = {
        pc: step.pc,
        opcode: step.opcode,
        used: step.gas,
        cost,
        mem: memoryOf(node, step.memory),
        push: undefined,
        stack: step.stack.slice(),
        failed: step.error !== undefined,
      }
      if (++steps > maxSteps) throw new TracerError('PAYLOAD_TOO_LARGE', `vmTrace exceeds the limit of ${maxSteps} steps`, { maxStructLogSteps: maxSteps })
      bytes += OP_BYTES + s.mem.data.length
      if (bytes > maxBytes) {
        throw new TracerError(
          'PAYLOAD_TOO_LARGE',
          `vmTrace exceeds ${Math.round(maxBytes / 2 ** 20)} MiB of output (the whole memory is printed at every op)`,
          { maxTraceBytes: maxBytes },
        )
      }
      if (CALL_LIKE.has(step.opcode)) {
        // the callee's result lands on the stack when it returns: at revm's step end the stack
        // holds what was under the arguments
        const under = step.stack.slice(0, Math.max(0, step.stack.length - CALL_INPUTS[step.opcode]!))
        s.push = step.error && step.stack.length < CALL_INPUTS[step.opcode]! ? words(step.stack.slice(-1)) : words(under.slice(-1))
        s.stack = undefined
      }
      node.steps.push(s)
    },
    onTxEnd() {
      for (const node of open.splice(0).reverse()) {
        const last = node.steps[node.steps.length - 1]
        if (last) settle(last, undefined)
      }
      const top = nodes[0]
      if (!top) return
      const lastNode = nodes[nodes.length - 1]!
      const lastIsStop = lastNode.steps[lastNode.steps.length - 1]?.opcode === STOP
      const t = build(top, lastIsStop)
      out = t === 'stop' ? { code: top.code, ops: [] } : t
    },
    result(): VmTrace {
      return out
    },
  }
}
