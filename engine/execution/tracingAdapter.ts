/**
 * tracingAdapter: THE one translation from ethereumjs EVM events (`step`, `beforeMessage`,
 * `afterMessage`, plus runTx start/end) to geth's tracer hooks (tracers/types.ts), fanned out to
 * N tracers in order (geth's muxTracer). Every ethereumjs/geth difference is fixed here once
 * (geth-reference.md §1 and §4), so each tracer is a plain port of geth's:
 *
 * - depth: ethereumjs message depth is geth's OnEnter depth; struct-log depth is that + 1.
 * - frames ethereumjs never announces: a CALL/CREATE that fails its depth or balance check starts
 *   no message; it is synthesized from the CALL/CREATE step when the next event shows no message
 *   began. SELFDESTRUCT is not a message: its frame comes from the 0xff step.
 * - the top frame: gas = the tx gas limit, gasUsed = the receipt gas (its onExit is held back until
 *   runTx returned the receipt).
 * - step cost: CALL-family cost includes the forwarded gas (geth's callGasTemp), computed from the
 *   stack, never read from ethereumjs internals.
 * - logs: seen at the LOG step, announced once the op succeeded (the next event proves it), with
 *   geth's index (reverted frames give their numbers back). It counts from `logIndexBase`: geth's
 *   state keeps one log counter for the whole block, so a mined transaction replayed after the
 *   earlier ones of its block numbers its logs from the block start (callTracer `index`).
 * - deadline: geth's trace `timeout` stops the EVM; here the step hook checks the clock every
 *   DEADLINE_EVERY steps (and at every message) and aborts with geth's `execution timeout`.
 * - errors: ethereumjs strings → geth's (tracers/gethErrors.ts), with the failing step's facts.
 *
 * Outcomes of a step (did the CALL start a message, did the LOG land) are only known at the next
 * event, so those are "pending" and flushed by whichever event comes next.
 */
import type { Common } from '@ethereumjs/common'
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm'
import { Address as EjsAddress, bytesToHex, generateAddress, generateAddress2 } from '@ethereumjs/util'
import type { Address, Hex } from 'viem'
import { GETH_ERRORS, toGethError, toGethPrecompileError, type FailingStep } from '../../tracers/gethErrors.js'
import type { CallType, EnterEvent, ExitEvent, OpcodeStep, Tracer, TxContext, TxEndEvent } from '../../tracers/types.js'
import { bigTo32, bigToBytes, hexBytes, readMemory, wordToAddress } from '../../tracers/evmWords.js'
import { EngineError } from '../platform/errors.js'
import { setDirectStepHandler, type LightSteps } from './leanStepHook.js'
import { OP, gethOpName, maxStackOf, minStackOf, stackBounds } from '../../tracers/opcodes.js'

const EMPTY = new Uint8Array(0)
const MAX_CALL_DEPTH = 1024
/** steps between two clock reads when a deadline is set (a read is cheap, a step cheaper still) */
const DEADLINE_EVERY = 1024

export interface AdapterOptions {
  /** logs the block's earlier transactions emitted: the first log of this one gets this index */
  logIndexBase?: number
  /** Date.now() past which the run aborts with EngineError EXECUTION_TIMEOUT 'execution timeout' */
  deadline?: number
}

/** geth's trace timeout error (eth/tracers/api.go traceTx: tracer.Stop(errors.New("execution timeout"))) */
export const TRACE_TIMEOUT_MESSAGE = 'execution timeout'
const hex = (b: Uint8Array): Hex => bytesToHex(b) as Hex
const addr = (a: EjsAddress): Address => a.toString().toLowerCase() as Address

/** a frame hands the same (immutable) Address object to every step: convert it to hex once */
const stepAddresses = new WeakMap<EjsAddress, Address>()
function stepAddress(a: EjsAddress): Address {
  let hexAddress = stepAddresses.get(a)
  if (hexAddress === undefined) stepAddresses.set(a, (hexAddress = addr(a)))
  return hexAddress
}

interface StepFacts {
  opcode: number
  stackLen: number
  gasLeft: bigint
  cost: bigint
  pc: number
}

/** the frame's last step, written over in place (read only when the frame ends: one object per frame, not per step), and its count */
function noteStep(frame: Frame, opcode: number, stackLen: number, gasLeft: bigint, cost: bigint, pc: number): void {
  const s = frame.lastStep
  if (s === undefined) {
    frame.lastStep = { opcode, stackLen, gasLeft, cost, pc }
    frame.steps++
    return
  }
  s.opcode = opcode
  s.stackLen = stackLen
  s.gasLeft = gasLeft
  s.cost = cost
  s.pc = pc
  frame.steps++
}

interface Frame {
  depth: number
  type: CallType
  value: bigint | undefined
  /** live log count when the frame began: a reverted frame gives its log indexes back */
  logCountAtStart: number
  /** RETURNDATA as the struct logger shows it: the output of the last finished child */
  returnData: Uint8Array
  lastStep?: StepFacts
  /** the steps it ran so far (its struct log's steps at its depth) */
  steps: number
  /** CREATE frames: what RETURN handed back, the code geth reports even when storing it failed */
  returnedCode?: Uint8Array
  /** CREATE frames: the init code (the running code) */
  initCode?: Uint8Array
  /** the last step was a RETURNDATACOPY reading past the return data (ethereumjs: out of gas) */
  returnDataOob?: boolean
  /** a precompile frame: its address as a number and its input, for geth's error strings */
  precompile?: { id: number; input: Uint8Array }
}

/** a CALL/CREATE step whose message has not started yet */
interface PendingCall {
  stepDepth: number
  type: CallType
  from: Address
  to: Address | undefined
  value: bigint | undefined
  gas: bigint
  input: Uint8Array
  /** CREATE (not CREATE2): the address needs the caller nonce at message start */
  isCreate: boolean
}

interface PendingLog {
  depth: number
  address: Address
  topics: Hex[]
  data: Hex
}

interface PendingSelfdestruct {
  depth: number
  from: Address
  to: Address
  value: bigint
}

const CALL_TYPES: Record<number, CallType> = {
  [OP.CALL]: 'CALL',
  [OP.CALLCODE]: 'CALLCODE',
  [OP.DELEGATECALL]: 'DELEGATECALL',
  [OP.STATICCALL]: 'STATICCALL',
  [OP.CREATE]: 'CREATE',
  [OP.CREATE2]: 'CREATE2',
}

/** the steps whose stack or memory the adapter itself reads (calls, creations, logs, …) */
const READS_STEP = new Uint8Array(256)
for (const op of [OP.CALL, OP.CALLCODE, OP.DELEGATECALL, OP.STATICCALL, OP.CREATE, OP.CREATE2, OP.RETURNDATACOPY, OP.RETURN, OP.SELFDESTRUCT, 0xfe])
  READS_STEP[op] = 1
for (let op = OP.LOG0; op <= OP.LOG4; op++) READS_STEP[op] = 1

export class TracingAdapter {
  private readonly frames: Frame[] = []
  private pendingCall: PendingCall | undefined
  private pendingLog: PendingLog | undefined
  private pendingSelfdestruct: PendingSelfdestruct | undefined
  private topExit: ExitEvent | undefined
  private topEntered = false
  private logCount: number
  private readonly deadline: number | undefined
  private stepsToClock = DEADLINE_EVERY
  private readonly wantsOpcode: Tracer[]
  /** the opcode tracers that read every step (the others choose theirs with `wantsStep`) */
  private readonly everyStep: Tracer[]
  private readonly someSteps: Tracer[]
  /** some tracer reads each frame's code and last pc (`readsCode`) */
  private readonly readsCode: boolean
  /** some opcode tracer reads a step's memory (else no view of it is made per step) */
  private readonly readsMemory: boolean
  private readonly tangerineWhistle: boolean
  private readonly eip2200: boolean

  constructor(
    private readonly tracers: readonly Tracer[],
    private readonly common: Common,
    private readonly tx: TxContext,
    opts: AdapterOptions = {},
  ) {
    this.logCount = opts.logIndexBase ?? 0
    this.deadline = opts.deadline
    this.wantsOpcode = tracers.filter((t) => t.onOpcode)
    this.everyStep = this.wantsOpcode.filter((t) => !t.wantsStep)
    this.someSteps = this.wantsOpcode.filter((t) => t.wantsStep)
    this.readsCode = tracers.some((t) => t.readsCode)
    this.readsMemory = this.wantsOpcode.some((t) => t.readsMemory !== false)
    this.tangerineWhistle = common.gteHardfork('tangerineWhistle')
    // EIP-2200's SSTORE sentry: Istanbul on (ethereumjs gates it by fork, not by the EIP number)
    this.eip2200 = common.gteHardfork('istanbul')
  }

  // ---- fan-out -------------------------------------------------------------------------------
  private async enter(e: EnterEvent): Promise<void> {
    for (const t of this.tracers) if (t.onEnter) await t.onEnter(e)
  }
  private async exit(e: ExitEvent): Promise<void> {
    for (const t of this.tracers) if (t.onExit) await t.onExit(e)
  }

  async txStart(): Promise<void> {
    for (const t of this.tracers) if (t.onTxStart) await t.onTxStart(this.tx)
  }

  /** geth's error of the top frame (with step details), once the top message ended */
  get topError(): string | undefined {
    return this.topExit?.error
  }

  /** after runTx: the held-back top exit with the receipt gas, then onTxEnd */
  async txEnd(receiptGas: bigint, output: Uint8Array, ejsError: string | undefined): Promise<void> {
    const error = ejsError === undefined ? undefined : (this.topExit?.error ?? toGethError(ejsError))
    if (!this.topEntered) {
      // runTx failed before the top message (e.g. EIP-7702 authorizations out of gas): geth's
      // tracers still see the top call, so show it, failed, with the whole gas used
      const tx = this.tx
      await this.enter({
        depth: 0,
        type: tx.to ? 'CALL' : 'CREATE',
        from: tx.from,
        to: tx.to ?? tx.createdAddress ?? tx.from,
        input: tx.input,
        gas: tx.gasLimit,
        value: tx.value,
      })
      this.topExit = { depth: 0, output: '0x', gasUsed: receiptGas, reverted: error !== undefined, ...(error !== undefined ? { error } : {}) }
    }
    if (this.topExit) await this.exit({ ...this.topExit, gasUsed: receiptGas, executionGasUsed: this.topExit.gasUsed })
    const end: TxEndEvent = { gasUsed: receiptGas, output: hex(output), error, reverted: error !== undefined }
    for (const t of this.tracers) if (t.onTxEnd) await t.onTxEnd(end)
  }

  // ---- ethereumjs events ---------------------------------------------------------------------
  /**
   * One opcode. Synchronous in the common case (nothing left open by the previous step, a defined
   * opcode, no state read, tracers that answer synchronously): a promise per opcode is most of
   * what tracing would otherwise cost.
   */
  onStep(ev: InterpreterStep): void | Promise<void> {
    this.tick()
    const code = ev.opcode.code
    const log = this.pendingLog
    const call = this.pendingCall
    const settles = (log !== undefined && log.depth === ev.depth) || (call !== undefined && call.stepDepth === ev.depth)
    if (settles || code === 0xfe || code === OP.SELFDESTRUCT) return this.onStepAsync(ev)
    return this.stepBody(ev, code, undefined)
  }

  /**
   * With no opcode tracer, the steps the adapter only needs as facts (the last step of a frame,
   * for geth's error texts) come as facts (leanStepHook.ts LightSteps); undefined when some
   * tracer reads every opcode.
   */
  lightSteps(): LightSteps | undefined {
    if (this.everyStep.length > 0) return undefined
    return {
      full: (code, depth, pc) =>
        READS_STEP[code] === 1 ||
        this.pendingLog?.depth === depth ||
        this.pendingCall?.stepDepth === depth ||
        (this.someSteps.length > 0 && this.someStepWanted(pc, depth, this.frames[this.frames.length - 1]?.steps ?? 0)),
      step: (opcode, stackLen, gasLeft, cost, pc) => {
        this.tick()
        const frame = this.frames[this.frames.length - 1]
        if (frame) noteStep(frame, opcode, stackLen, gasLeft, cost, pc)
      },
    }
  }

  private someStepWanted(pc: number, depth: number, index: number): boolean {
    for (const t of this.someSteps) if (t.wantsStep!(pc, depth, index)) return true
    return false
  }

  private async onStepAsync(ev: InterpreterStep): Promise<void> {
    await this.flushPending(ev.depth)
    const frame = this.frames[this.frames.length - 1]
    // ethereumjs reports every undefined or not-yet-active byte as INVALID (0xfe); geth names the
    // real byte ('opcode 0xc not defined', or e.g. PUSH0 before Shanghai). Halting ops: rare.
    const code = ev.opcode.code === 0xfe ? await this.actualOpcode(ev, frame) : ev.opcode.code
    const selfdestructBalance = code === OP.SELFDESTRUCT ? ((await ev.stateManager.getAccount(ev.address))?.balance ?? 0n) : undefined
    await this.stepBody(ev, code, selfdestructBalance)
  }

  /** the step once what it depends on is known; a promise only if an opcode tracer returns one */
  private stepBody(ev: InterpreterStep, code: number, selfdestructBalance: bigint | undefined): void | Promise<void> {
    const frame = this.frames[this.frames.length - 1]
    const stack = ev.stack
    // the lean hook hands the whole live store (zeros past the words in use: reads agree)
    const memory = ev.memory
    const cost = ev.opcode.dynamicFee ?? BigInt(ev.opcode.fee)
    if (frame) noteStep(frame, code, stack.length, ev.gasLeft, cost, ev.pc)
    const self = stepAddress(ev.address)

    let forwarded = 0n
    // only the steps the adapter reads need `top` (a closure per step is garbage at every opcode)
    const reads = READS_STEP[code] === 1 && stack.length >= minStackOf(code)
    const top = reads ? (i: number): bigint => stack[stack.length - 1 - i] ?? 0n : undefined
    const callType = CALL_TYPES[code]
    if (!top) {
      // nothing to note
    } else if (callType) {
      forwarded = this.noteCall(ev, callType, self, top, cost, frame)
    } else if (code >= OP.LOG0 && code <= OP.LOG4) {
      const topics: Hex[] = []
      for (let i = 0; i < code - OP.LOG0; i++)
        topics.push(
          `0x${top(2 + i)
            .toString(16)
            .padStart(64, '0')}` as Hex,
        )
      this.pendingLog = { depth: ev.depth, address: self, topics, data: hex(readMemory(memory, top(0), top(1))) }
    } else if (code === OP.RETURNDATACOPY && frame) {
      frame.returnDataOob = top(1) + top(2) > BigInt(frame.returnData.length)
    } else if (code === OP.RETURN && frame && (frame.type === 'CREATE' || frame.type === 'CREATE2')) {
      frame.returnedCode = readMemory(memory, top(0), top(1))
    } else if (code === OP.SELFDESTRUCT) {
      this.pendingSelfdestruct = { depth: ev.depth, from: self, to: wordToAddress(top(0)), value: selfdestructBalance ?? 0n }
    }

    if (this.wantsOpcode.length === 0) return
    // noted above: this step is the frame's last one counted
    const index = frame ? frame.steps - 1 : 0
    if (this.everyStep.length === 0 && !this.someStepWanted(ev.pc, ev.depth + 1, index)) return
    const step: OpcodeStep = {
      pc: ev.pc,
      index,
      op: gethOpName(code),
      opcode: code,
      gas: ev.gasLeft,
      cost: cost + forwarded,
      depth: ev.depth + 1,
      stack,
      memory: this.readsMemory ? memory.subarray(0, Number(ev.memoryWordCount) * 32) : EMPTY,
      returnData: frame?.returnData ?? EMPTY,
      refund: ev.gasRefund,
      address: self,
    }
    const error = this.predictStepError(code, stack.length, ev.gasLeft, cost)
    if (error) step.error = error
    // in order: once one tracer answers with a promise, the next ones wait for it
    let chain: Promise<void> | undefined
    for (const t of this.wantsOpcode) {
      if (t.wantsStep && !t.wantsStep(step.pc, step.depth, index)) continue
      if (chain) chain = chain.then(() => t.onOpcode!(step))
      else {
        const answer = t.onOpcode!(step)
        if (answer) chain = answer
      }
    }
    return chain
  }

  private async actualOpcode(ev: InterpreterStep, frame: Frame | undefined): Promise<number> {
    const running = frame?.initCode ?? (await ev.stateManager.getCode(ev.codeAddress))
    return running[ev.pc] ?? 0xfe
  }

  /** records a CALL/CREATE step; returns geth's callGasTemp (the forwarded gas, no stipend) */
  private noteCall(ev: InterpreterStep, type: CallType, self: Address, top: (i: number) => bigint, cost: bigint, frame: Frame | undefined): bigint {
    const available = ev.gasLeft - cost
    if (type === 'CREATE' || type === 'CREATE2') {
      const value = top(0)
      const input = readMemory(ev.memory, top(1), top(2))
      // all but one 64th of what is left after the op's own cost (EIP-150)
      const gas = available < 0n ? 0n : this.tangerineWhistle ? available - available / 64n : available
      let to: Address | undefined
      if (type === 'CREATE2') to = addr(new EjsAddress(generateAddress2(ev.address.bytes, bigTo32(top(3)), input)))
      this.pendingCall = { stepDepth: ev.depth, type, from: self, to, value, gas, input, isCreate: type === 'CREATE' }
      return 0n
    }
    const requested = top(0)
    const to = wordToAddress(top(1))
    const hasValue = type === 'CALL' || type === 'CALLCODE'
    const value = hasValue ? top(2) : type === 'DELEGATECALL' ? frame?.value : undefined
    const argBase = hasValue ? 3 : 2
    const input = readMemory(ev.memory, top(argBase), top(argBase + 1))
    let callGas = requested
    if (this.tangerineWhistle && available >= 0n) {
      const cap = available - available / 64n
      if (callGas > cap) callGas = cap
    }
    if (available < 0n) callGas = 0n
    const stipend = hasValue && (value ?? 0n) > 0n ? 2300n : 0n
    this.pendingCall = { stepDepth: ev.depth, type, from: self, to, value, gas: callGas + stipend, input, isCreate: false }
    return callGas
  }

  /** geth checks stack bounds and gas before its OnOpcode, so those faults show on the step */
  private predictStepError(code: number, stackLen: number, gasLeft: bigint, cost: bigint): string | undefined {
    const minStack = minStackOf(code)
    if (stackLen < minStack) return `stack underflow (${stackLen} <=> ${minStack})`
    const maxStack = maxStackOf(code)
    if (stackLen > maxStack) return `stack limit reached ${stackLen} (${maxStack})`
    if (code === OP.SSTORE && this.eip2200 && gasLeft <= 2300n) return 'out of gas: not enough gas for reentrancy sentry'
    if (cost > gasLeft) return GETH_ERRORS.outOfGas
    return undefined
  }

  /**
   * Resolves what the previous step left open, now that an event at `depth` proves how it went:
   * back in the same frame means the LOG landed, and a CALL/CREATE without a message failed its
   * depth or balance check (geth still shows that frame).
   */
  private async flushPending(depth: number): Promise<void> {
    const log = this.pendingLog
    if (log && log.depth === depth) {
      this.pendingLog = undefined
      await this.emitLog(log)
    }
    const call = this.pendingCall
    if (call && call.stepDepth === depth) {
      this.pendingCall = undefined
      let to = call.to
      // no message: the creator's nonce was not bumped, so the address uses the current nonce
      if (to === undefined) to = await this.createAddress(call.from, 1n)
      const error = depth + 1 > MAX_CALL_DEPTH ? GETH_ERRORS.depth : GETH_ERRORS.insufficientBalance
      await this.enter({ depth: depth + 1, type: call.type, from: call.from, to, input: hex(call.input), gas: call.gas, value: call.value })
      await this.exit({ depth: depth + 1, output: '0x', gasUsed: 0n, error, reverted: true })
      const frame = this.frames[this.frames.length - 1]
      if (frame) frame.returnData = EMPTY
    }
  }

  private async emitLog(log: PendingLog): Promise<void> {
    const index = this.logCount++
    for (const t of this.tracers) {
      if (t.onLog) await t.onLog({ address: log.address, topics: log.topics, data: log.data, depth: log.depth, index })
    }
  }

  /** CreateAddress(caller, nonce - 1 + extra): by message start the nonce is already bumped */
  private async createAddress(from: Address, extra: bigint): Promise<Address> {
    const acc = await this.stateAccount(from)
    const nonce = (acc?.nonce ?? 0n) - 1n + extra
    return addr(new EjsAddress(generateAddress(new EjsAddress(hexBytes(from)).bytes, bigToBytes(nonce < 0n ? 0n : nonce))))
  }

  private stateManager: { getAccount(a: EjsAddress): Promise<{ nonce: bigint } | undefined>; getCode?(a: EjsAddress): Promise<Uint8Array> } | undefined
  /** the EVM's state manager, for nonce reads at message start (and frames' code, with `readsCode`) */
  bindState(sm: { getAccount(a: EjsAddress): Promise<{ nonce: bigint } | undefined>; getCode?(a: EjsAddress): Promise<Uint8Array> }): void {
    this.stateManager = sm
  }
  private async stateAccount(a: Address): Promise<{ nonce: bigint } | undefined> {
    return this.stateManager?.getAccount(new EjsAddress(hexBytes(a)))
  }

  /** every step, full or light: the clock is read once per DEADLINE_EVERY steps */
  private tick(): void {
    if (this.deadline !== undefined && --this.stepsToClock <= 0) {
      this.stepsToClock = DEADLINE_EVERY
      this.checkDeadline()
    }
  }

  private checkDeadline(): void {
    if (this.deadline !== undefined && Date.now() > this.deadline) throw new EngineError('EXECUTION_TIMEOUT', TRACE_TIMEOUT_MESSAGE)
  }

  async onBeforeMessage(msg: Message): Promise<void> {
    this.checkDeadline()
    const depth = msg.depth
    let type: CallType
    let from = addr(msg.caller)
    let to: Address
    let gas = msg.gasLimit
    let input: Uint8Array = msg.data
    let value: bigint | undefined = msg.value
    const pending = this.pendingCall
    if (depth === 0) {
      this.topEntered = true
      type = msg.to ? 'CALL' : 'CREATE'
      to = msg.to ? addr(msg.to) : await this.createAddress(from, 0n)
      gas = this.tx.gasLimit
    } else if (pending && pending.stepDepth === depth - 1) {
      this.pendingCall = undefined
      type = pending.type
      from = pending.from
      input = pending.input
      value = pending.value
      to = pending.to ?? (msg.to ? addr(msg.to) : await this.createAddress(from, 0n))
    } else {
      // not announced by a step (should not happen): derive what we can from the message
      type = msg.to ? (msg.delegatecall ? 'DELEGATECALL' : msg.isStatic ? 'STATICCALL' : 'CALL') : msg.salt ? 'CREATE2' : 'CREATE'
      to = msg.to ? addr(msg.to) : msg.salt ? addr(new EjsAddress(generateAddress2(msg.caller.bytes, msg.salt, msg.data))) : await this.createAddress(from, 0n)
    }
    const frame: Frame = { depth, type, value, logCountAtStart: this.logCount, returnData: EMPTY, steps: 0 }
    if (type === 'CREATE' || type === 'CREATE2') frame.initCode = input
    // `to` is the code's address (for CALLCODE/DELEGATECALL the target, not msg.to)
    if (type !== 'CREATE' && type !== 'CREATE2' && this.tx.isPrecompile(to)) frame.precompile = { id: Number(BigInt(to)), input }
    this.frames.push(frame)
    const enter: EnterEvent = {
      depth,
      type,
      from,
      to,
      input: hex(input),
      gas,
      value: type === 'STATICCALL' ? undefined : value,
      ...(depth === 0 && { executionGas: msg.gasLimit }),
    }
    if (this.readsCode) enter.code = await this.frameCode(msg, frame, input)
    await this.enter(enter)
  }

  /** the code a frame runs: a creation's init code, a call's code at its code address */
  private async frameCode(msg: Message, frame: Frame, input: Uint8Array): Promise<Uint8Array> {
    if (frame.initCode) return input
    if (frame.precompile) return EMPTY
    if (msg.code instanceof Uint8Array) return msg.code
    const at = msg.codeAddress ?? msg.to
    return at && this.stateManager?.getCode ? await this.stateManager.getCode(at) : EMPTY
  }

  async onAfterMessage(result: EVMResult): Promise<void> {
    const frame = this.frames.pop()
    if (!frame) return
    const ejsError = result.execResult.exceptionError?.error
    // what the frame's last step left open: with an error, that step is what failed
    const log = this.pendingLog
    if (log && log.depth === frame.depth) {
      this.pendingLog = undefined
      if (ejsError === undefined) await this.emitLog(log)
    }
    if (this.pendingCall?.stepDepth === frame.depth) this.pendingCall = undefined
    const sd = this.pendingSelfdestruct
    if (sd && sd.depth === frame.depth) {
      this.pendingSelfdestruct = undefined
      if (ejsError === undefined) {
        await this.enter({ depth: frame.depth + 1, type: 'SELFDESTRUCT', from: sd.from, to: sd.to, input: '0x', gas: 0n, value: sd.value })
        await this.exit({ depth: frame.depth + 1, output: '0x', gasUsed: 0n, reverted: false })
      }
    }

    let error: string | undefined
    let reverted = false
    let output = result.execResult.returnValue ?? EMPTY
    if (ejsError !== undefined) {
      error = frame.precompile ? toGethPrecompileError(frame.precompile.id, frame.precompile.input, ejsError) : toGethError(ejsError, this.failingStep(frame))
      const isCreate = frame.type === 'CREATE' || frame.type === 'CREATE2'
      const s = frame.lastStep
      // code deposit failed after a successful RETURN: ethereumjs says 'out of gas', geth
      // ErrCodeStoreOutOfGas (the RETURN itself could pay, so the deposit is what failed)
      if (isCreate && error === GETH_ERRORS.outOfGas && s && s.opcode === OP.RETURN && s.cost <= s.gasLeft) {
        error = 'contract creation code storage out of gas'
      }
      // ethereumjs traps an out-of-bounds RETURNDATACOPY as out of gas; geth's ErrReturnDataOutOfBounds
      if (error === GETH_ERRORS.outOfGas && s?.opcode === OP.RETURNDATACOPY && frame.returnDataOob) error = 'return data out of bounds'
      // pre-Homestead a code-store OOG keeps the frame's state (geth captureEnd) and geth's
      // ret is the code that could not be stored
      if (ejsError === 'code store out of gas') {
        reverted = this.common.gteHardfork('homestead')
        if (!reverted && frame.returnedCode) output = frame.returnedCode
      } else {
        reverted = true
      }
    }
    if (reverted) this.logCount = frame.logCountAtStart
    const parent = this.frames[this.frames.length - 1]
    if (parent)
      parent.returnData = ejsError === undefined || ejsError === 'revert' ? (frame.type.startsWith('CREATE') && ejsError === undefined ? EMPTY : output) : EMPTY
    const exit: ExitEvent = { depth: frame.depth, output: hex(output), gasUsed: result.execResult.executionGasUsed, reverted }
    if (error !== undefined) exit.error = error
    if (this.readsCode && frame.lastStep) {
      exit.pc = frame.lastStep.pc
      exit.steps = frame.steps
    }
    if (frame.depth === 0) this.topExit = exit
    else await this.exit(exit)
  }

  private failingStep(frame: Frame): FailingStep | undefined {
    const s = frame.lastStep
    if (!s) return undefined
    const { minStack, maxStack } = stackBounds(s.opcode)
    return {
      opcode: s.opcode,
      opName: gethOpName(s.opcode),
      stackLen: s.stackLen,
      minStack,
      maxStack,
      sstoreSentry: s.opcode === OP.SSTORE && this.eip2200 && s.gasLeft <= 2300n,
    }
  }
}

/**
 * Attaches the adapter to an EVM. ethereumjs awaits a listener that takes two arguments;
 * resolving with the handler's promise makes a tracer's failure (e.g. the struct logger's step
 * limit) abort the run instead of being lost. Steps take the direct path of leanStepHook.ts; the
 * `step` listener stays registered (ethereumjs runs the hook only for an event with listeners) and
 * is the path taken should the lean hook not be installed.
 */
export function attachAdapter(evm: { events?: unknown }, adapter: TracingAdapter): void {
  const events = evm.events as { on(name: string, fn: (data: never, resolve: (v?: unknown) => void) => void): unknown }
  const step = (data: InterpreterStep) => adapter.onStep(data)
  setDirectStepHandler(evm, step, adapter.lightSteps())
  events.on('step', (data: InterpreterStep, resolve) => {
    try {
      resolve(step(data))
    } catch (e) {
      resolve(Promise.reject(e))
    }
  })
  events.on('beforeMessage', (data: Message, resolve) => resolve(adapter.onBeforeMessage(data)))
  events.on('afterMessage', (data: EVMResult, resolve) => resolve(adapter.onAfterMessage(data)))
}
