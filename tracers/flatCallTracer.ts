/**
 * flatCallTracer: a port of go-ethereum `eth/tracers/native/call_flat.go` — the callTracer's
 * frames, flattened in Parity's format (what `trace_*` and geth's `flatCallTracer` print): one
 * entry per frame in depth-first order with `action`, `result` (dropped on an error other than a
 * revert), `subtraces`, `traceAddress`, `type` (`call`, `create`, `suicide`) and the block/tx
 * fields. Config `{convertParityErrors, includePrecompiles, parity}`: by default calls into
 * precompiles are hidden (Parity never printed them; geth's and reth's rules differ slightly, see
 * `visible`); `convertParityErrors` renames geth's
 * error strings to Parity's. A child STATICCALL prints value 0x0 (Parity's frames always have one).
 *
 * The block/tx fields come from the caller (`context`): geth fills them from the traced
 * transaction's receipt; absent, they print as geth prints an empty context (null hashes, 0).
 *
 * @example
 * const t = createFlatCallTracer({}, { blockHash, blockNumber: 7n, transactionHash, transactionPosition: 0 })
 * // ... fed by the execution adapter ...
 * t.result() // [{ action: { callType: 'call', from, gas, input, to, value }, blockHash, ... }]
 */
import type { Address, Hex } from 'viem'
import { createCallTracer, type CallFrameJson } from './callTracer.js'
import { toQuantity } from './evmWords.js'
import type { EnterEvent, ExitEvent, LogEvent, Tracer, TxContext, TxEndEvent } from './types.js'

export interface FlatCallTracerConfig {
  convertParityErrors?: boolean
  includePrecompiles?: boolean
  /**
   * Parity's own shape (reth, Erigon, OpenEthereum), not geth's: the top frame's gas is what
   * execution got (the tx gas limit less intrinsic gas) and its gasUsed what execution used
   * (before refunds), and a frame without result (selfdestruct, an error other than a revert)
   * prints `"result": null`. geth's flatCallTracer prints the tx gas limit and the receipt gas.
   */
  parity?: boolean
}

export interface FlatCallContext {
  blockHash?: Hex
  blockNumber?: bigint
  transactionHash?: Hex
  transactionPosition?: number
}

export interface FlatCallAction {
  address?: Address
  balance?: Hex
  callType?: string
  creationMethod?: string
  from?: Address
  gas?: Hex
  init?: Hex
  input?: Hex
  refundAddress?: Address
  to?: Address
  value?: Hex
}

export interface FlatCallResult {
  address?: Address
  code?: Hex
  gasUsed?: Hex
  output?: Hex
}

/** geth's flatCallFrame, keys in its JSON order */
export interface FlatCallFrame {
  action: FlatCallAction
  blockHash: Hex | null
  blockNumber: number
  error?: string
  result?: FlatCallResult
  subtraces: number
  traceAddress: number[]
  transactionHash: Hex | null
  transactionPosition: number
  type: 'call' | 'create' | 'suicide'
}

/** geth parityErrorMapping */
const PARITY_ERRORS: Record<string, string> = {
  'contract creation code storage out of gas': 'Out of gas',
  'out of gas': 'Out of gas',
  'gas uint64 overflow': 'Out of gas',
  'max code size exceeded': 'Out of gas',
  'invalid jump destination': 'Bad jump destination',
  'execution reverted': 'Reverted',
  'return data out of bounds': 'Out of bounds',
  'stack limit reached 1024 (1023)': 'Out of stack',
  'precompiled failed': 'Built-in failed',
  'invalid input length': 'Built-in failed',
}
/**
 * geth parityErrorMappingStartingWith; plus `out of gas:` — geth v1.17 wraps a failed dynamic gas
 * charge as `out of gas: <why>` (e.g. the EIP-2200 reentrancy sentry), which its own fixture
 * create_oog_parity prints as Parity's `Out of gas`
 */
const PARITY_ERROR_PREFIXES: [string, string][] = [
  ['invalid opcode:', 'Bad instruction'],
  ['stack underflow', 'Stack underflow'],
  ['out of gas:', 'Out of gas'],
]

export function parityError(error: string): string {
  const exact = PARITY_ERRORS[error]
  if (exact) return exact
  for (const [prefix, parity] of PARITY_ERROR_PREFIXES) if (error.startsWith(prefix)) return parity
  return error
}

export function createFlatCallTracer(config: FlatCallTracerConfig = {}, context: FlatCallContext = {}): Tracer<FlatCallFrame[]> {
  const inner = createCallTracer({})
  let isPrecompile: (a: Address) => boolean = () => false
  let rootGas: bigint | undefined
  let rootGasUsed: bigint | undefined

  return {
    onTxStart(ctx: TxContext) {
      isPrecompile = (a) => ctx.isPrecompile(a)
      return inner.onTxStart?.(ctx)
    },
    onEnter(e: EnterEvent) {
      if (e.depth === 0) rootGas = e.executionGas
      return inner.onEnter?.(e)
    },
    onExit(e: ExitEvent) {
      if (e.depth === 0) rootGasUsed = e.executionGasUsed
      return inner.onExit?.(e)
    },
    onLog: (l: LogEvent) => inner.onLog?.(l),
    onTxEnd: (e: TxEndEvent) => inner.onTxEnd?.(e),
    result() {
      const out: FlatCallFrame[] = []
      const root = inner.result()
      if (config.parity && rootGas !== undefined) {
        root.gas = toQuantity(rootGas)
        if (rootGasUsed !== undefined) root.gasUsed = toQuantity(rootGasUsed)
      }
      flatten(root, [], true, out)
      if (config.parity) for (const f of out) if (f.result === undefined) (f as { result: unknown }).result = null
      return out
    },
  }

  /**
   * The frames a parent prints; a hidden precompile call is no subtrace either and takes no
   * place in its siblings' traceAddress. geth (call_flat.go OnExit) hides a CALL/STATICCALL into
   * a precompile; reth (revm-inspectors TracingInspector::is_precompile_call, whose hidden nodes
   * are never attached to their parent) hides a call of any kind into a precompile of the block's
   * fork that moves no value — a DELEGATECALL counts its frame's value, as reth does.
   */
  function visible(children: CallFrameJson[] | undefined): CallFrameJson[] {
    const calls = children ?? []
    if (config.includePrecompiles) return calls
    const hidden = config.parity
      ? (c: CallFrameJson) => c.type !== 'CREATE' && c.type !== 'CREATE2' && c.type !== 'SELFDESTRUCT' && (c.value === undefined || BigInt(c.value) === 0n)
      : (c: CallFrameJson) => c.type === 'CALL' || c.type === 'STATICCALL'
    return calls.filter((c) => !(c.to !== undefined && isPrecompile(c.to) && hidden(c)))
  }

  function flatten(f: CallFrameJson, traceAddress: number[], top: boolean, out: FlatCallFrame[]): void {
    const children = visible(f.calls)
    // geth: a child frame without value (STATICCALL) gets 0
    const value = f.value ?? (top ? undefined : '0x0')
    let frame: FlatCallFrame
    const base = {
      blockHash: context.blockHash ?? null,
      blockNumber: Number(context.blockNumber ?? 0n),
    }
    if (f.type === 'CREATE' || f.type === 'CREATE2') {
      const action: FlatCallAction = { creationMethod: f.type.toLowerCase(), from: f.from, gas: f.gas, init: f.input }
      if (value !== undefined) action.value = value
      const result: FlatCallResult = {}
      if (f.to !== undefined) result.address = f.to
      result.code = f.output ?? '0x'
      result.gasUsed = f.gasUsed
      frame = {
        action: sortAction(action),
        ...base,
        result,
        subtraces: children.length,
        traceAddress,
        transactionHash: null,
        transactionPosition: 0,
        type: 'create',
      }
    } else if (f.type === 'SELFDESTRUCT') {
      const action: FlatCallAction = { address: f.from }
      if (value !== undefined) action.balance = value
      if (f.to !== undefined) action.refundAddress = f.to
      frame = { action, ...base, subtraces: children.length, traceAddress, transactionHash: null, transactionPosition: 0, type: 'suicide' }
    } else {
      const action: FlatCallAction = { callType: f.type.toLowerCase(), from: f.from, gas: f.gas, input: f.input }
      if (f.to !== undefined) action.to = f.to
      if (value !== undefined) action.value = value
      frame = {
        action,
        ...base,
        result: { gasUsed: f.gasUsed, output: f.output ?? '0x' },
        subtraces: children.length,
        traceAddress,
        transactionHash: null,
        transactionPosition: 0,
        type: 'call',
      }
    }
    frame.transactionHash = context.transactionHash ?? null
    frame.transactionPosition = context.transactionPosition ?? 0
    if (f.error) {
      frame.error = config.convertParityErrors ? parityError(f.error) : f.error
      // a revert keeps its output (the reason); any other error drops the result
      if (f.error !== 'execution reverted') delete frame.result
    }
    out.push(order(frame))
    children.forEach((c, i) => flatten(c, [...traceAddress, i], false, out))
  }
}

/** geth's JSON key order for an action */
function sortAction(a: FlatCallAction): FlatCallAction {
  const keys: (keyof FlatCallAction)[] = ['address', 'balance', 'callType', 'creationMethod', 'from', 'gas', 'init', 'input', 'refundAddress', 'to', 'value']
  const out: FlatCallAction = {}
  for (const k of keys) if (a[k] !== undefined) out[k] = a[k] as never
  return out
}

function order(f: FlatCallFrame): FlatCallFrame {
  const out = {
    action: sortAction(f.action),
    blockHash: f.blockHash,
    blockNumber: f.blockNumber,
    ...(f.error !== undefined && { error: f.error }),
    ...(f.result !== undefined && { result: f.result }),
    subtraces: f.subtraces,
    traceAddress: f.traceAddress,
    transactionHash: f.transactionHash,
    transactionPosition: f.transactionPosition,
    type: f.type,
  }
  return out as FlatCallFrame
}
