/**
 * The engine's public surface, the only thing `src/` calls. Inputs arrive validated and normalized
 * by the HTTP layer (addresses lowercase, quantities as bigint); outputs are plain JSON-ready data
 * in the canonical form of interface §1 (lowercase hex, minimal quantities). The engine knows
 * nothing of HTTP: failures are thrown as `EngineError` with a code.
 */
import type { Address, Hex } from 'viem'
import type { CallInput, ExecutionStatus, RunStop } from './execution/types.js'
import type { CallTreeConfig, DecodedCallFrame } from './decoding/callTree/types.js'
import type { CacheStore } from './state/store/cacheStore.js'
import type { EngineMetrics } from './engineMetrics.js'

export type { Authorization, CallInput, RunStop } from './execution/types.js'
export type { TraceResult, TracerConfig } from '../tracers/config.js'
export type { CallTreeConfig } from './decoding/callTree/types.js'
export type { DecodedCallFrame, DecodedInternalFrame } from './decoding/callTree/types.js'
/** the store the engine reads and writes through (built by the host: host/cache/) */
export type { CacheStore } from './state/store/cacheStore.js'
/** the engine's counts for the host's metrics */
export type { EngineMetrics } from './engineMetrics.js'
/** what the engine throws, and what `src/` maps to statuses and JSON-RPC codes */
export { EngineError, isEngineError, type EngineErrorCode } from './platform/errors.js'
/** the chain reads the engine answers (the JSON-RPC layer forwards no other method) */
export { READ_METHODS } from './operations/reads/readMethods.js'
/** the key of a spilled-file handle in a result (the host claims the file: host/spill/) */
export { SPILL_KEY, type SpilledJson } from './platform/spill/spillFiles.js'
import type { TraceResult, TracerConfig } from '../tracers/config.js'

// the vocabulary the lower folders share (engine/vocabulary.ts), with the block grammar
export * from './vocabulary.js'
import type { AccountOverride, AssetChange, BlockOverrides, BlockRef, BlockSelector, DecodedEvent, StateOverrides, Transfer } from './vocabulary.js'

export interface SimulateParams {
  calls: CallInput[]
  /** a hash is resolved by the engine (alchemy_simulateAssetChanges takes one) */
  block: BlockRef
  validation: boolean
  account?: Address
  traceAssetChanges: boolean
  traceTransfers: boolean
  stateOverrides?: StateOverrides
  blockOverrides?: BlockOverrides
  /** each call gets its decoded `callTree` (ABIs and labels as in TracerConfig.callTree) */
  traceCalls?: boolean
  callTree?: CallTreeConfig
}

export type { ApprovalChange, ApprovalType, PreviewWarning, WarningSeverity } from './wallet/types.js'
import type { ApprovalChange, PreviewWarning } from './wallet/types.js'

export interface SimulatedLog {
  address: Address
  topics: Hex[]
  data: Hex
  logIndex: Hex
  decoded?: DecodedEvent
}

export interface CallError {
  /** geth error string, e.g. `execution reverted`, `out of gas` */
  message: string
  revertReason?: string
  revertData?: Hex
  contractAddress?: Address
  /** for out of gas: a gas limit within gas_cap that succeeds */
  gasRequired?: Hex
}

export interface CallResult {
  callIndex: number
  status: ExecutionStatus
  returnData: Hex
  gasUsed: Hex
  logs: SimulatedLog[]
  error?: CallError
  transfers?: Transfer[]
  /** address deployed by a successful creation */
  contractAddress?: Address
  /** with SimulateParams.traceCalls: the decoded call tree */
  callTree?: DecodedCallFrame
  /**
   * OP-stack chains, a call with a gas price: the L1 data fee charged (wei), its L1 gas, and the
   * operator fee (Isthmus on); absent on other chains and for calls without a gas price
   */
  l1Fee?: Hex
  l1GasUsed?: Hex
  operatorFee?: Hex
}

export interface SimulationResult {
  simulationId: string
  status: ExecutionStatus
  blockNumber: Hex
  gasUsed: Hex
  calls: CallResult[]
  assetChanges?: AssetChange[]
  /** with traceAssetChanges */
  approvalChanges?: ApprovalChange[]
  /** with traceAssetChanges */
  warnings?: PreviewWarning[]
  /** OP-stack chains: the calls' L1 data fees, L1 gas and operator fees summed (when any call paid one) */
  l1Fee?: Hex
  l1GasUsed?: Hex
  operatorFee?: Hex
}

export type SignatureKind = 'erc2612' | 'dai-permit' | 'permit2-single' | 'permit2-batch' | 'permit2-transfer' | 'permit2-batch-transfer' | 'unknown'

/** EIP-712 typed data as wallets receive it for eth_signTypedData_v4 */
export interface TypedDataInput {
  types: Record<string, { name: string; type: string }[]>
  primaryType: string
  domain: Record<string, unknown>
  message: Record<string, unknown>
}

export interface SignaturePreviewParams {
  typedData: TypedDataInput
  signer: Address
  signature?: Hex
  block: BlockSelector
}

/** what a signature gives away (engine/operations/signature/previewSignature.ts) */
export interface SignaturePreview {
  kind: SignatureKind
  blockNumber: Hex
  /** the tokens the signature lets the spender move, in the message's order */
  tokens: Address[]
  spender: Address | null
  /** per token, the amount granted */
  amounts: Hex[]
  unlimited: boolean
  /** the signature's own validity (unix seconds) */
  deadline?: Hex
  /** Permit2 allowances: when the allowance lapses (the latest of a batch) */
  expiration?: Hex
  nonce?: Hex
  /** unknown typed data: the domain and message as given */
  domain?: Record<string, unknown>
  message?: Record<string, unknown>
  approvalChanges: ApprovalChange[]
  assetChanges: AssetChange[]
  warnings: PreviewWarning[]
}

/** shape B of /simulate */
export interface StepTraceConfig {
  enableMemory?: boolean
  enableReturnData?: boolean
  enableStorage?: boolean
}
export interface StepTraceParams {
  call: CallInput
  block: BlockSelector
  traceConfig: StepTraceConfig
  stateOverrides?: StateOverrides
  blockOverrides?: BlockOverrides
}
export interface StepTraceResult {
  success: boolean
  gasUsed: Hex
  gasLimit: Hex
  logs: SimulatedLog[]
  returnValue: Hex
  error?: CallError
  trace: {
    steps: unknown[]
    storageChanges: Record<Address, Record<Hex, { before: Hex; after: Hex }>>
    /** the changed slots told by variable, where the contract's storage layout is known */
    decoded?: Record<Address, DecodedStorageChange[]>
    memoryChanges: { step: number; offset: Hex; data: Hex }[]
  }
}

export interface AccessListParams {
  call: CallInput
  /** a hash is resolved by the engine (geth eth_createAccessList takes BlockNumberOrHash) */
  block: BlockRef
  stateOverrides?: StateOverrides
}
export interface AccessListResult {
  accessList: { address: Address; storageKeys: Hex[] }[]
  gasUsed: Hex
  /** present when the call failed; the list is still returned (geth) */
  error?: string
}

/** what every trace may add: geth's per-transaction `timeout` */
export interface TraceRunOptions {
  /** a traced transaction running longer aborts with EXECUTION_TIMEOUT 'execution timeout' (geth) */
  timeoutMs?: number
}
export interface TraceCallParams extends TraceRunOptions {
  call: CallInput
  block: BlockRef
  tracerConfig: TracerConfig
  stateOverrides?: StateOverrides
  blockOverrides?: BlockOverrides
  /**
   * geth's TraceCallConfig.txIndex: run on the state before the block's transaction of this
   * index (the block's earlier transactions replayed), under the block's own header
   */
  txIndex?: number
}
export interface TraceCallManyParams extends TraceRunOptions {
  /**
   * bundles run in order, state carried over; a bundle's `blockOverrides` (Erigon/reth
   * `blockOverride`) apply from that bundle on, on top of the earlier bundles' overrides
   */
  bundles: { transactions: CallInput[]; blockOverrides?: BlockOverrides }[]
  block: BlockRef
  tracerConfig: TracerConfig
  stateOverrides?: StateOverrides
  blockOverrides?: BlockOverrides
  /** Erigon/reth `stateContext.transactionIndex`: as TraceCallParams.txIndex; absent = after the whole block */
  txIndex?: number
}
/** every transaction of a block traced in order on the block's own state (debug_traceBlockBy*) */
export interface TraceBlockParams extends TraceRunOptions {
  block: BlockRef
  tracerConfig: TracerConfig
}
/**
 * The trace of a call: the tracers' outputs (geth's, untouched) and, on an OP-stack chain for a
 * call with a gas price, what it was charged besides gas, as a simulation's call reports it
 * (CallResult). The JSON-RPC tracers never print these fields; the REST routes do.
 */
export type CallTraceResult = TraceResult & RollupFeeFields

/** what an OP-stack chain charged a call besides gas (hex wei; l1GasUsed in L1 gas) */
export interface RollupFeeFields {
  l1Fee?: Hex
  l1GasUsed?: Hex
  operatorFee?: Hex
}

/** geth's txTraceResult: one per transaction of the block, in order */
export type BlockTraceEntry = { txHash: Hex; result: TraceResult } | { txHash: Hex; error: string }

/** eth_simulateV1 (execution-apis): a block of calls with its own overrides */
export interface SimulateV1Block {
  /** number/time must increase from block to block; a skipped number is filled with empty blocks */
  blockOverrides?: BlockOverrides
  /** applied before the block's calls; `movePrecompileToAddress` moves a precompile */
  stateOverrides?: Record<Address, AccountOverride & { movePrecompileToAddress?: Address }>
  /** `from` defaults to the zero address (the handler fills it); `chainId`, when given, must be the chain's */
  calls: (CallInput & { chainId?: bigint })[]
}

export interface SimulateV1Params {
  blockStateCalls: SimulateV1Block[]
  /** the block the simulated chain starts after */
  block: BlockSelector
  traceTransfers: boolean
  validation: boolean
  returnFullTransactions: boolean
}

/** one simulated call, as eth_simulateV1 prints it */
export interface SimulateV1CallResult {
  returnData: Hex
  logs: SimulateV1Log[]
  gasUsed: Hex
  maxUsedGas: Hex
  status: '0x1' | '0x0'
  error?: { message: string; code: number; data?: Hex }
}

export interface SimulateV1Log {
  address: Address
  topics: Hex[]
  data: Hex
  blockNumber: Hex
  transactionHash: Hex
  transactionIndex: Hex
  blockHash: Hex
  blockTimestamp: Hex
  logIndex: Hex
  removed: false
}

/** a simulated block: geth's RPC block fields plus `calls` */
export type SimulateV1BlockResult = Record<string, unknown> & { calls: SimulateV1CallResult[] }
export type { CallOutcome, CallParams, GasEstimate } from './execution/types.js'
import type { CallOutcome, CallParams, GasEstimate } from './execution/types.js'

export interface EngineHealth {
  network: string
  chainId: number
  /** the rules the chain's transactions run by (docs/chains.md) */
  kind?: 'ethereum' | 'op-stack' | 'arbitrum'
  /** the chain source (upstream RPC or devnet) answers */
  upstreamOk: boolean
  /** the cache store answers */
  cacheOk: boolean
  /** the chain is not served at all (its upstream did not answer at start, or came back as another chain): why */
  unavailable?: string
}

/**
 * Where an operation runs: the chain (one of a deployment's named chains; absent: its default
 * chain), the writable fork on it (absent: the chain itself) and what stops the run (the
 * request's deadline and its client's signal; absent: nothing). Every operation takes it first,
 * as reth's `debug_traceCall` takes the block it runs at: the host routes by it (thread, process,
 * chain) and the engine opens the fork's state by it.
 */
export interface RunAt {
  readonly chain?: string
  readonly fork?: string
  readonly stop?: RunStop
}
/** the address of a call on one writable fork */
export type ForkAt = RunAt & { readonly fork: string }

/** the chain's own state, with nothing to stop its runs: a caller with no request behind it */
export const ON_CHAIN: RunAt = Object.freeze({})

export interface Engine {
  simulate(at: RunAt, params: SimulateParams): Promise<SimulationResult>
  /** what an EIP-712 signature would let its spender do, simulated from the signer's side */
  previewSignature(at: RunAt, params: SignaturePreviewParams): Promise<SignaturePreview>
  simulateSteps(at: RunAt, params: StepTraceParams): Promise<StepTraceResult>
  getSimulation(at: RunAt, id: string): Promise<SimulationResult | undefined>
  accessList(at: RunAt, params: AccessListParams): Promise<AccessListResult>
  /** `overrides` (optional, added by the HTTP layer): applied on top of the state the traced tx starts from */
  traceTransaction(
    at: RunAt,
    hash: Hex,
    tracerConfig: TracerConfig,
    overrides?: { stateOverrides?: StateOverrides; blockOverrides?: BlockOverrides } & TraceRunOptions,
  ): Promise<TraceResult>
  traceCall(at: RunAt, params: TraceCallParams): Promise<CallTraceResult>
  traceCallMany(at: RunAt, params: TraceCallManyParams): Promise<CallTraceResult[][]>
  /**
   * eth_simulateV1. A rejected request throws EngineError whose `details.simulateError` names the
   * spec's error (see engine/operations/simulateV1/simulateErrors.ts) so the JSON-RPC layer can give its code.
   */
  simulateV1(at: RunAt, params: SimulateV1Params): Promise<SimulateV1BlockResult[]>
  /** every transaction of a mined block, each with its own tracers; a failing one answers `{txHash, error}` */
  traceBlock(at: RunAt, params: TraceBlockParams): Promise<BlockTraceEntry[]>
  /** eth_call */
  call(at: RunAt, params: CallParams): Promise<CallOutcome>
  /** eth_estimateGas (geth's search) */
  estimateGas(at: RunAt, params: CallParams): Promise<GasEstimate>
  /**
   * A read-only JSON-RPC method of the chain (engine/operations/reads/readMethods.ts lists them): answered
   * by the devnet for its own chain, or by the upstream node with immutable answers cached.
   * Anything else is refused (NOT_FOUND with `details.unsupportedMethod`).
   */
  readChain(at: RunAt, method: string, params: unknown[]): Promise<unknown>
  /** a writable fork of the chain at a block (docs/forks.md) */
  createFork(at: RunAt, params: CreateForkParams): Promise<ForkInfo>
  /** FORK_NOT_FOUND when unknown, deleted or expired; a use moves its expiry forward */
  getFork(at: RunAt, forkId: string): Promise<ForkInfo>
  listForks(at: RunAt): Promise<ForkInfo[]>
  /** a build-info's contracts known from now on by every engine on the cache store (engine/sources/registry.ts) */
  registerSources(at: RunAt, buildInfo: unknown): Promise<RegisteredContract[]>
  /** the contracts registered on the cache store */
  listSources(at: RunAt): Promise<RegisteredContract[]>
  deleteFork(at: RunAt, forkId: string): Promise<void>
  /** a development node's operation on the fork `at` names (sending, mining, time, snapshots, cheats, …: ForkDevRequest) */
  forkRpc(at: ForkAt, request: ForkDevRequest): Promise<unknown>
  health(at: RunAt): Promise<EngineHealth>
  /** what the engine counted since it started, for the host's metrics (engine/engineMetrics.ts) */
  metrics(): Promise<EngineMetrics>
  close(): Promise<void>
}

/**
 * The engine's operations by name, written once next to their signatures: the messages of a
 * pool's worker threads name these (host/protocol.ts); `close` is each holder's own. The compiler
 * ties the list to Engine both ways: a name here that Engine lacks, or a method of Engine missing
 * here, is a type error.
 */
export const ENGINE_OPERATIONS = [
  'simulate',
  'previewSignature',
  'simulateSteps',
  'getSimulation',
  'accessList',
  'traceTransaction',
  'traceCall',
  'traceCallMany',
  'simulateV1',
  'traceBlock',
  'call',
  'estimateGas',
  'readChain',
  'createFork',
  'getFork',
  'listForks',
  'deleteFork',
  'registerSources',
  'listSources',
  'forkRpc',
  'health',
  'metrics',
] as const satisfies readonly Exclude<keyof Engine, 'close'>[]
export type EngineOperation = (typeof ENGINE_OPERATIONS)[number]
// compiles only while every method of Engine but close is listed above
true satisfies [Exclude<keyof Engine, EngineOperation | 'close'>] extends [never] ? true : { unlisted: Exclude<keyof Engine, EngineOperation | 'close'> }

/** an operation's arguments after its address */
export type OperationArgs<K extends EngineOperation> = Engine[K] extends (at: never, ...args: infer A) => unknown ? A : []

export type { CreateForkParams, ForkDevRequest, ForkInfo, SendCall } from './chains/forks/types.js'
import type { CreateForkParams, ForkDevRequest, ForkInfo, ForkLimits, ForkStore } from './chains/forks/types.js'
import type { RegisteredContract } from './sources/types.js'
import type { DecodedChange as DecodedStorageChange } from './sources/storageLayout/decodeChanges.js'
export type { RegisteredContract } from './sources/types.js'

export interface EngineOptions {
  /** empty/undefined: the embedded devnet */
  rpcUrl?: string
  /**
   * the embedded devnet (no rpcUrl) booted from a chain's own geth genesis and blocks instead of
   * the demo history (engine/chains/devnet/importedDevnet.ts); `hardfork` does not apply, the genesis
   * config's fork schedule does
   */
  devnetImport?: import('./chains/devnet/importedDevnet.js').ImportedDevnetOptions
  /** ethereumjs hardfork name (an OP fork name on an OP-stack chain); undefined: devnet newest fully supported, fork follows upstream */
  hardfork?: string
  /** the chain's kind (engine/chains/rules.ts); undefined: by its chain id, else ethereum */
  chainKind?: 'ethereum' | 'op-stack' | 'arbitrum'
  /** the chain id the upstream must answer: a mismatch fails the start (VALIDATION_ERROR) */
  expectChainId?: number
  /**
   * the chain id the upstream already answered (a pool's replacement worker): the engine starts
   * without asking it again, so it starts while the upstream is silent or down
   */
  knownChainId?: number
  cache: CacheStore
  /** default and maximum gas of a call (geth RPC gas cap) */
  gasCap: bigint
  /** upstream request timeout, ms (per HTTP attempt) */
  rpcTimeoutMs: number
  /**
   * all upstream waiting of one engine call, retries and sequential phases included, ms
   * (default 1.5 × rpcTimeoutMs; see engine/upstream/upstreamBudget.ts)
   */
  upstreamBudgetMs?: number
  /** fork: how long the newest head seen stands for `latest`, ms (0: resolve on every request; default 1000) */
  headMaxAgeMs?: number
  maxStructLogSteps: number
  simulationTtlSeconds: number
  /** bound of the fork-state hot layer, bytes (part of cache.max_memory_mb: host/cache/memoryBudget.ts) */
  forkCacheBytes?: number
  /**
   * Long struct logs are written to temporary files as they run and come back as handles
   * (`{"$spilledJson": path}` in place of the `structLogs` array) that the front door streams
   * (engine/platform/spill/spillFiles.ts). Absent: struct logs are kept in memory (refused past 256 MiB).
   * `owner`: this engine's directory under the spill root (default: a fresh one; a pool gives
   * each worker its own); `thresholdBytes`: logs smaller stay in memory (default 64 KiB);
   * `maxBytes`: the largest file (limits.max_struct_log_mb).
   */
  spill?: { owner?: string; thresholdBytes?: number; maxBytes: number }
  /** where writable forks live (default: in this process only) */
  forkStore?: ForkStore
  /** why this engine holds no forks (one of several HTTP processes on memory://): every fork call is FORKS_UNAVAILABLE with it */
  forksUnavailable?: string
  forkLimits?: Partial<ForkLimits>
  /**
   * contracts' sources (interface §13): `maxBytes` bounds what is registered on the cache store
   * (sources.max_mb); `sourcifyUrl` a Sourcify-compatible service for verified sources by
   * address (empty: none). Absent: 64 MiB, no service.
   */
  sources?: { maxBytes: number; sourcifyUrl?: string }
  logger?: { info(o: object, msg?: string): void; warn(o: object, msg?: string): void; error(o: object, msg?: string): void }
}
