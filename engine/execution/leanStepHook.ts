/**
 * A cheaper `step` event for traced runs. ethereumjs builds every step event with a copy of the
 * frame's memory and hands it through an async event emitter (a promise chain per opcode): most
 * of the cost of any traced execution, simulations included (every simulation is traced, for its
 * transfers and its revert origin).
 *
 * `installLeanStepHook` replaces the `_runStepHook` of ethereumjs' Interpreter (not exported by the
 * package: its module is reached by file URL next to the package entry, the very module the EVM
 * imports). For an EVM that carries a direct step handler (`setDirectStepHandler`), the replacement
 * builds the same event fields ethereumjs does, except that `memory` is the frame's live memory
 * store itself, not a copy of its first `memoryWordCount` words: it may run longer (zeros past
 * the words in use), the adapter cuts the view it needs, and every consumer here copies what it
 * keeps before the step ends. It calls the handler directly:
 * no emitter, and no promise when the handler answers synchronously. Any other EVM, an EOF frame or
 * the DEBUG mode keep ethereumjs' own hook. Omitted fields (nobody here reads them): `eofSection`,
 * `immediate`, `error` (REVERT data), `eofFunctionDepth`.
 *
 * `test/engine/execution/leanStepHook.test.ts` fails if an ethereumjs upgrade moves the Interpreter or
 * changes the fields this relies on; the conformance corpus guards the traces themselves.
 *
 * @example
 * setDirectStepHandler(vm.evm, (ev) => adapter.onStep(ev))
 */
import type { InterpreterStep } from '@ethereumjs/evm'
import { interpreterPrototype } from './interpreterModule.js'

export type DirectStepHandler = (ev: InterpreterStep) => void | Promise<void>

/**
 * For a run whose tracers read no opcode (a simulation's transfers, revert origin, code
 * changes): most steps matter to the adapter only as facts of the last step of a frame (for
 * geth's error texts). Those steps skip the event object and the stack copy; `full` says which
 * steps still come whole (calls, logs, anything that settles what a previous step left open).
 */
export interface LightSteps {
  full(opcode: number, depth: number, pc: number): boolean
  step(opcode: number, stackLen: number, gasLeft: bigint, cost: bigint, pc: number): void
}

const DIRECT_STEP = Symbol('directStepHandler')
const LIGHT_STEPS = Symbol('lightSteps')

/** the parts of ethereumjs' Interpreter the hook reads (private API, pinned by the lockfile) */
interface InterpreterInternals {
  _evm: { DEBUG: boolean; [DIRECT_STEP]?: DirectStepHandler; [LIGHT_STEPS]?: LightSteps }
  _env: { eof?: unknown; depth: number; address: unknown; contract: unknown; codeAddress: unknown }
  _runState: {
    opCode: number
    programCounter: number
    gasRefund: bigint
    stack: { getStack(): bigint[]; _len: number }
    memory: { _store: Uint8Array }
    stateManager: unknown
  }
  lookupOpInfo(op: number): { opcodeInfo: { fullName: string; fee: number; isAsync: boolean; code: number } }
  _runStepHook(dynamicFee: bigint, gasLeft: bigint, memorySize: bigint): Promise<void>
}

/** whether ethereumjs' Interpreter was found and patched (asserted by a test) */
export let leanStepHookInstalled = false

async function installLeanStepHook(): Promise<void> {
  const proto = (await interpreterPrototype()) as InterpreterInternals | undefined
  if (!proto || typeof proto._runStepHook !== 'function' || typeof proto.lookupOpInfo !== 'function') return
  const stock = proto._runStepHook
  // not async: a step that answers synchronously (every light step, most traced ones) then costs
  // no promise of its own, and the patched Interpreter.runStep (patches/@ethereumjs+evm+*.patch)
  // does not await an answer of undefined at all
  proto._runStepHook = function (this: InterpreterInternals, dynamicFee: bigint, gasLeft: bigint, memorySize: bigint): Promise<void> {
    const direct = this._evm[DIRECT_STEP]
    if (direct === undefined || this._env.eof !== undefined || this._evm.DEBUG) return stock.call(this, dynamicFee, gasLeft, memorySize)
    const rs = this._runState
    const info = this.lookupOpInfo(rs.opCode).opcodeInfo
    const light = this._evm[LIGHT_STEPS]
    if (light !== undefined && !light.full(info.code, this._env.depth, rs.programCounter)) {
      light.step(info.code, rs.stack._len, gasLeft, dynamicFee ?? BigInt(info.fee), rs.programCounter)
      return undefined as unknown as Promise<void>
    }
    const ev = {
      pc: rs.programCounter,
      gasLeft,
      gasRefund: rs.gasRefund,
      opcode: { name: info.fullName, fee: info.fee, dynamicFee, isAsync: info.isAsync, code: info.code },
      stack: rs.stack.getStack(),
      depth: this._env.depth,
      address: this._env.address,
      account: this._env.contract,
      memory: rs.memory._store,
      memoryWordCount: memorySize,
      codeAddress: this._env.codeAddress,
      stateManager: rs.stateManager,
    } as unknown as InterpreterStep
    return direct(ev) as Promise<void>
  }
  leanStepHookInstalled = true
}

await installLeanStepHook()

/**
 * Routes this EVM's steps to `handler`. The handler must also be registered as a `step` listener
 * (ethereumjs only runs the hook when the event has listeners); with the lean hook installed the
 * listener is never called, without it the listener is the (slower) path that still works.
 */
export function setDirectStepHandler(evm: object, handler: DirectStepHandler, light?: LightSteps): void {
  ;(evm as { [DIRECT_STEP]?: DirectStepHandler })[DIRECT_STEP] = handler
  if (light) (evm as { [LIGHT_STEPS]?: LightSteps })[LIGHT_STEPS] = light
}
