/**
 * geth-style tracer hooks (go-ethereum `core/tracing/hooks.go`, as used by
 * `eth/tracers/native/*.go`). Every tracer in this folder is a small state machine over these
 * hooks plus a `result()`. The ONE adapter in `engine/execution/` turns ethereumjs events into
 * these calls, fixing every ethereumjs/geth difference once (geth-reference.md §4), so a tracer
 * here is a faithful port of geth's and never sees ethereumjs.
 *
 * Conventions: addresses are lowercase 0x-hex; depth is geth's (0 = the top call for
 * onEnter/onExit; the struct logger's own `depth` field is 1-based and computed by it);
 * `error` strings are geth's (`execution reverted`, `out of gas`, ...).
 * Tracers never fetch state from upstream: they read the executing state through `TxContext.state`,
 * which is the per-request state the EVM itself runs on.
 */
import type { Address, Hex } from 'viem'

export type CallType = 'CALL' | 'STATICCALL' | 'DELEGATECALL' | 'CALLCODE' | 'CREATE' | 'CREATE2' | 'SELFDESTRUCT'

/** Read-only view of the state the EVM is executing on, at the moment of the call. */
export interface StateReader {
  getBalance(address: Address): Promise<bigint>
  getNonce(address: Address): Promise<bigint>
  getCode(address: Address): Promise<Hex>
  /** 32-byte slot in, 32-byte value out (left-padded), both 0x-hex. */
  getStorage(address: Address, slot: Hex): Promise<Hex>
  /** true when the account does not exist or is EIP-161 empty. */
  isEmpty(address: Address): Promise<boolean>
}

export interface TxContext {
  from: Address
  /** null for a contract creation */
  to: Address | null
  /** address a creation deploys to (CreateAddress(from, nonce)); null for calls */
  createdAddress: Address | null
  input: Hex
  value: bigint
  /** the transaction's gas limit, intrinsic gas included */
  gasLimit: bigint
  gasPrice: bigint
  nonce: bigint
  coinbase: Address
  blockNumber: bigint
  /** the ethereumjs hardfork name active for this tx, e.g. 'cancun' */
  hardfork: string
  /** true from the named fork on; lets tracers apply fork-dependent rules */
  isActive(fork: 'homestead' | 'tangerineWhistle' | 'spuriousDragon' | 'byzantium' | 'berlin' | 'london' | 'shanghai' | 'cancun' | 'prague' | 'osaka'): boolean
  /** precompiles active at this fork */
  isPrecompile(address: Address): boolean
  /** EIP-7702 authorities of this tx (empty when none) */
  authorities: Address[]
  /**
   * accounts the chain's fee rules credit after the run besides the coinbase (an OP-stack chain's
   * fee vaults; empty on Ethereum): the prestate tracer looks them up at the start, as the coinbase
   */
  feeRecipients?: Address[]
  state: StateReader
}

export interface EnterEvent {
  depth: number
  type: CallType
  from: Address
  to: Address
  input: Hex
  gas: bigint
  /** undefined for STATICCALL (geth passes nil); parent value for DELEGATECALL */
  value: bigint | undefined
  /**
   * top frame only: the gas execution starts with (tx gas limit less intrinsic gas). `gas` is the
   * tx gas limit there, as geth's callTracer prints it; Parity's traces print this one.
   */
  executionGas?: bigint
  /**
   * the code the frame runs (a creation's init code), only when some tracer of the run `readsCode`
   * (a read per frame, else never made)
   */
  code?: Uint8Array
}

export interface ExitEvent {
  depth: number
  output: Hex
  gasUsed: bigint
  /** geth error string, undefined on success */
  error?: string
  /** true when the frame's state changes were rolled back (revert or exceptional halt) */
  reverted: boolean
  /** top frame only: the gas execution used, before refunds (`gasUsed` is the receipt gas there) */
  executionGasUsed?: bigint
  /** pc of the last instruction the frame ran (where a failed frame stopped); with `readsCode` only */
  pc?: number
  /** how many steps the frame ran, its children's not counted; with `readsCode` only, absent when it ran none */
  steps?: number
}

export interface OpcodeStep {
  pc: number
  /** the step's index among its frame's own steps (0: the frame's first) */
  index: number
  /** opcode name as geth prints it, e.g. 'PUSH1', 'SSTORE', 'opcode 0xfe not defined' */
  op: string
  opcode: number
  /** gas left before the op */
  gas: bigint
  /** geth's gasCost: for CALL-family it includes the gas forwarded to the callee (no stipend) */
  cost: bigint
  /** geth depth of the executing frame, 1-based as in struct logs */
  depth: number
  /** bottom → top */
  stack: readonly bigint[]
  memory: Uint8Array
  returnData: Uint8Array
  refund: bigint
  /** the storage owner (scope.Address()): the caller under DELEGATECALL */
  address: Address
  /** geth error string when this step failed */
  error?: string
}

export interface LogEvent {
  address: Address
  topics: Hex[]
  data: Hex
  /** geth depth of the emitting frame (0 = top call) */
  depth: number
  /** log index within the transaction, counting only logs of frames that did not revert is the tracer's job */
  index: number
}

export interface TxEndEvent {
  /** receipt gas: intrinsic included, refunds applied, EIP-7623 floor applied */
  gasUsed: bigint
  output: Hex
  error?: string
  reverted: boolean
}

/** Every hook is optional and may be async (the adapter awaits it). */
export interface Tracer<R = unknown> {
  /**
   * false: onOpcode never reads `step.memory`. When no opcode tracer of a run reads it, steps
   * carry an empty array instead of a view of the frame's memory (one object fewer per opcode).
   * Absent: it may read it.
   */
  readonly readsMemory?: boolean
  /** true: onEnter carries the frame's code and onExit the pc of its last instruction and its step count */
  readonly readsCode?: boolean
  /**
   * Present: onOpcode is called only for the steps this answers true for, asked before each
   * step of the running frame (a table lookup, no step object; possibly more than once for one
   * step, so it counts nothing); `index` is the step's index among its frame's own steps. The run
   * keeps the adapter's light path when no other tracer reads every opcode. Absent: onOpcode sees
   * every step.
   */
  wantsStep?(pc: number, depth: number, index: number): boolean
  onTxStart?(ctx: TxContext): void | Promise<void>
  onEnter?(e: EnterEvent): void | Promise<void>
  onExit?(e: ExitEvent): void | Promise<void>
  onOpcode?(step: OpcodeStep): void | Promise<void>
  onLog?(log: LogEvent): void | Promise<void>
  onTxEnd?(e: TxEndEvent): void | Promise<void>
  /** built once, after onTxEnd */
  result(): R
}
