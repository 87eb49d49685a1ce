/**
 * The contract between the engine's callers (simulation, access lists, traces, conformance runner)
 * and the code that runs one transaction in a per-request ethereumjs VM.
 * Implementation: `engine/execution/executeTransaction.ts`.
 */
import type { Common } from '@ethereumjs/common'
import type { StateManagerInterface } from '@ethereumjs/common'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { Address, Hex } from 'viem'
import type { Tracer } from '../../tracers/types.js'
import type { ChainRules, RollupFees } from '../chains/rules.js'
import type { BlockOverrides, BlockRef, StateOverrides } from '../vocabulary.js'

/** The block a call runs in (geth eth_call semantics: header of block N, state after block N). */
export interface BlockEnv {
  number: bigint
  timestamp: bigint
  gasLimit: bigint
  coinbase: Address
  /** undefined before London */
  baseFeePerGas?: bigint
  difficulty: bigint
  /** post-merge PREVRANDAO (mixHash) */
  prevRandao: Hex
  /** Cancun on: excess blob gas of the header, from which the blob base fee is derived */
  excessBlobGas?: bigint
  /** explicit blob base fee override (wins over excessBlobGas) */
  blobBaseFee?: bigint
  parentBeaconBlockRoot?: Hex
}

/**
 * What ends the runs of one engine call early (Engine.withStop): the request it serves has a
 * deadline, or has been given up (answered 504, its client gone). Checked before each run and
 * every STOP_EVERY EVM steps (engine/execution/runStop.ts); a stopped run ends with
 * EXECUTION_TIMEOUT.
 */
export interface RunStop {
  /** epoch ms past which the run stops */
  readonly deadline?: number
  /** set once the request is given up: an AbortSignal, or a flag another thread sets */
  readonly signal?: { readonly aborted: boolean }
  /**
   * told when the engine call starts waiting on the upstream (true: its first upstream request
   * is sent) and when it waits on it no longer (false: none of its requests is unanswered), so
   * whoever runs the call can count it apart from the calls that compute
   * (engine/upstream/upstreamBudget.ts). Stops nothing: a stop with only this runs as one without.
   */
  readonly onUpstreamWait?: (waiting: boolean) => void
}

export interface ExecutionContext {
  /** when the run must stop early (its request timed out or was given up) */
  stop?: RunStop
  /** hardfork already set for the block */
  common: Common
  /** per-request state; never shared between concurrent requests */
  state: StateManagerInterface
  block: BlockEnv
  /** BLOCKHASH(n) for the 256 blocks before `block.number` */
  getBlockHash?(n: bigint): Promise<Hex | undefined>
  /** the chain's rules (engine/chains/rules.ts): absent on a plain Ethereum chain */
  rules?: ChainRules
}

/** A call to run with an impersonated sender (no signature). */
export interface CallInput {
  from: Address
  /** null or undefined: contract creation */
  to?: Address | null
  data: Hex
  gas?: bigint
  value?: bigint
  gasPrice?: bigint
  maxFeePerGas?: bigint
  maxPriorityFeePerGas?: bigint
  /** undefined: the sender's current nonce */
  nonce?: bigint
  accessList?: { address: Address; storageKeys: Hex[] }[]
  /** EIP-4844: a blob transaction (type 3) carrying these versioned hashes (blobs themselves never needed) */
  blobVersionedHashes?: Hex[]
  /** EIP-4844: its fee cap per blob gas */
  maxFeePerBlobGas?: bigint
  /**
   * EIP-7702: a set-code transaction (type 4) carrying these signed authorizations; each valid
   * one sets its authority's code to the delegation designator `0xef0100 ‖ address`
   */
  authorizationList?: Authorization[]
}

/** one EIP-7702 authorization tuple, as geth's `types.SetCodeAuthorization` */
export interface Authorization {
  chainId: bigint
  address: Address
  nonce: bigint
  yParity: number
  r: bigint
  s: bigint
}

export interface ExecuteOptions {
  tracers?: Tracer[]
  /**
   * false (default): geth eth_call semantics — no nonce or base-fee checks, gas price may be 0,
   * but value + gas*price must still be covered by the sender's balance.
   * true: as a real transaction (nonce, fees vs base fee, funds).
   */
  validation?: boolean
  /** gas already used in the block before this tx (for block gas limit checks) */
  blockGasUsed?: bigint
  /**
   * eth_simulateV1's precompile table changes (geth `StateOverride.Apply` with precompiles):
   * `removed` addresses stop being precompiles (an override wrote them), `moved` puts the
   * precompile of `from` at `to`. Addresses lowercase.
   */
  precompiles?: { removed: Address[]; moved: { from: Address; to: Address }[] }
  /**
   * logs the earlier transactions of the block emitted: a mined transaction's tracers number its
   * logs from there (geth's block-wide log counter). Default 0 (a call, or the block's first tx).
   */
  logIndexBase?: number
  /** Date.now() after which a traced run aborts with EngineError EXECUTION_TIMEOUT (geth's trace `timeout`) */
  deadline?: number
}

export type ExecutionStatus = 'success' | 'reverted' | 'failed'

export interface ExecutionLog {
  address: Address
  topics: Hex[]
  data: Hex
}

export interface ExecutionResult {
  status: ExecutionStatus
  /** receipt gas: intrinsic included, refunds applied */
  gasUsed: bigint
  returnData: Hex
  /** logs of the transaction (none from reverted frames), in order */
  logs: ExecutionLog[]
  /** geth error string when status != success (`execution reverted`, `out of gas`, ...) */
  error?: string
  /** the deployed address of a successful creation */
  createdAddress?: Address
  /**
   * geth's MaxUsedGas: the most gas the transaction held at once — used before refunds, at least
   * the EIP-7623 floor (what a caller must give for it to succeed when refunds help)
   */
  peakGasUsed: bigint
  /** gas refunded at the end (geth's RefundedGas; eth_estimateGas's optimistic probe reads it) */
  gasRefund?: bigint
  /** what a rollup charged besides gas (an OP-stack chain's L1 data and operator fees) */
  rollupFees?: RollupFees
}

/**
 * Runs one transaction on `ctx.state` (its writes stay in that state, so calls of a bundle carry
 * state) with every tracer fed through the one adapter.
 * Throws EngineError('VALIDATION_ERROR' | 'INSUFFICIENT_GAS', ...) when the tx is invalid before
 * execution (intrinsic gas, funds, nonce/fee rules under validation).
 */
export type ExecuteCall = (ctx: ExecutionContext, call: CallInput, opts?: ExecuteOptions) => Promise<ExecutionResult>
/** Same, for an already signed transaction (replays in /trace/tx, conformance fixtures). */
export type ExecuteSignedTx = (ctx: ExecutionContext, tx: TypedTransaction, opts?: ExecuteOptions) => Promise<ExecutionResult>

/** eth_call / eth_estimateGas: one call at a block, overrides as geth's 3rd and 4th params */
export interface CallParams {
  call: CallInput
  /** a hash is resolved by the engine (geth eth_call takes BlockNumberOrHash) */
  block: BlockRef
  stateOverrides?: StateOverrides
  blockOverrides?: BlockOverrides
}
/** what geth's DoCall hands its RPC layer */
export interface CallOutcome {
  status: ExecutionStatus
  returnData: Hex
  gasUsed: Hex
  /** geth's error string when not success: `execution reverted`, `out of gas`, `invalid opcode: INVALID`… */
  error?: string
  /** geth abi.UnpackRevert of the revert bytes (Error(string), or a Panic's text) */
  revertReason?: string
}
/** eth_estimateGas: the gas, or why no gas within the allowance makes the call succeed */
export type GasEstimate = { gas: Hex } | { error: string; revertData?: Hex; revertReason?: string }
