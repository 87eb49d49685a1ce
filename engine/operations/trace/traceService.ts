/**
 * The trace service behind /trace/tx, /trace/call, /trace/call-many and the JSON-RPC debug_trace*
 * methods (interface §8). It works over any ChainSource (embedded devnet or JSON-RPC fork) and
 * needs no debug_* method upstream: a mined transaction is replayed where it ran
 * (engine/run/openReplay.ts), a block's transactions one after another on the block's own state
 * (engine/run/openBlock.ts), a call runs on a block opened by engine/run/openRun.ts — or, with a
 * transaction index, inside a block after its earlier transactions.
 *
 * Call semantics follow geth's debug_traceCall:
 * - block selector default `latest` (`pending` traces on `latest`, see openRun);
 * - gas defaults to the gas cap and is clamped to it (run/callDefaults.ts, `trace`);
 * - state overrides are written before execution, block overrides replace header fields;
 * - no nonce or fee validation (eth_call semantics), the value and gas*price still need funds;
 * - reverts are not errors: they show in the tracer output.
 *
 * Mined transactions number their logs from the block start (geth's block-wide log counter: the
 * callTracer's log `index` of a transaction after others with logs does not start at 0).
 * `timeoutMs` is geth's per-transaction trace timeout: the clock starts when the traced
 * transaction does (replaying the earlier ones is not counted).
 *
 * With `spill`, a struct log past the threshold is written to a temporary file as it runs and the
 * result carries a handle to it (engine/platform/spill/spillFiles.ts). Every call owns the files it wrote
 * until it returns: a call that fails deletes them (a block trace: those of the transaction that
 * failed), so only a finished result ever names one.
 *
 * @example
 * const traces = createTraceService(chain, { gasCap: 50_000_000n, maxStructLogSteps: 100_000 })
 * await traces.traceCall({ call, block: { tag: 'latest' }, tracerConfig: { callTracer: {} } })
 */
import { toHex, type Hex } from 'viem'
import type { RollupFees } from '../../chains/rules.js'
import type { BlockHeaderInfo, ChainSource, MinedTransaction } from '../../chains/types.js'
import { EngineError, isEngineError } from '../../platform/errors.js'
import { executeCall, executeSignedTx } from '../../execution/executeTransaction.js'
import type { CallInput, ExecutionContext } from '../../execution/types.js'
import {
  advance,
  blockStart,
  executionContext,
  openBlock,
  openReplay,
  openRun,
  replayUpTo,
  resolveBlockRef,
  withCallDefaults,
  type ReplayOverrides,
  type RunDeps,
} from '../../run/index.js'
import { applyStateOverrides } from '../../run/stateOverrides.js'
import type {
  BlockOverrides,
  BlockRef,
  BlockTraceEntry,
  CallTraceResult,
  StateOverrides,
  TraceBlockParams,
  TraceCallManyParams,
  TraceCallParams,
  TraceResult,
  TracerConfig,
  TraceRunOptions,
} from '../../types.js'
import type { FlatCallContext } from '../../../tracers/flatCallTracer.js'
import { openSpillSession, type SpillOptions, type SpillSession } from '../../platform/spill/spillFiles.js'
import type { SourceLookup } from './decodedStorage.js'
import { createTraceSet, type TraceSet } from './traceSet.js'
import { verifiedAfterRun, withSourceWarnings, type VerifiedSources } from '../../run/verifiedPass.js'
import type { SourceIndex } from '../../sources/types.js'

export interface TraceServiceOptions extends Pick<RunDeps, 'gasCap' | 'maxStructLogSteps'> {
  /** long struct logs go to temporary files (engine/platform/spill); absent: kept in memory */
  spill?: SpillOptions
  /** the contracts' sources the service knows (the source registry); read only for a `callTree`, a `gasProfile`, `frameSteps` or a prestate diff */
  sources?: { index(): Promise<SourceIndex>; readonly asksVerified?: boolean } & Partial<VerifiedSources>
}

/** optional extras of /trace/tx: applied on top of the state the traced transaction starts from */
export interface TraceTransactionOptions extends ReplayOverrides, TraceRunOptions {}

export interface TraceService {
  traceTransaction(hash: Hex, tracerConfig: TracerConfig, opts?: TraceTransactionOptions): Promise<TraceResult>
  traceCall(params: TraceCallParams): Promise<CallTraceResult>
  traceCallMany(params: TraceCallManyParams): Promise<CallTraceResult[][]>
  traceBlock(params: TraceBlockParams): Promise<BlockTraceEntry[]>
}

interface CallBundle {
  transactions: CallInput[]
  blockOverrides?: BlockOverrides
}

/** later overrides win field by field (a bundle's blockOverride applies on top of the earlier ones) */
function mergeOverrides(a: BlockOverrides | undefined, b: BlockOverrides | undefined): BlockOverrides | undefined {
  if (!a) return b
  if (!b) return a
  return { ...a, ...b }
}

/**
 * BLOCKHASH under a number override, as geth's traceCall answers it: hashes come from the chain
 * below the traced block's header (GetHashFn walks back from it), so a block at or past the header
 * reads as zero even when the chain has it — except the header itself when the override is the
 * next number (geth #32183 re-parents the header so that `blockhash(number - 1)` is real).
 */
function withTraceBlockHashes(ctx: ExecutionContext, header: BlockHeaderInfo, overrides: BlockOverrides | undefined): ExecutionContext {
  const number = overrides?.number
  const known = ctx.getBlockHash
  if (number === undefined || !known) return ctx
  return {
    ...ctx,
    getBlockHash: (n) => (n < header.number || (n === header.number && number === header.number + 1n) ? known(n) : Promise.resolve(undefined)),
  }
}

/**
 * A call's trace with what an OP-stack chain charged it besides gas, beside the tracers' outputs
 * (never inside them: those stay geth's), as a simulation's call reports it.
 */
function withRollupFees(result: TraceResult, fees: RollupFees | undefined): CallTraceResult {
  if (!fees) return result
  return { ...result, l1Fee: toHex(fees.l1Fee), l1GasUsed: toHex(fees.l1GasUsed), operatorFee: toHex(fees.operatorFee) }
}

const deadlineOf = (opts: TraceRunOptions): number | undefined => (opts.timeoutMs !== undefined && opts.timeoutMs > 0 ? Date.now() + opts.timeoutMs : undefined)

export function createTraceService(chain: ChainSource, opts: TraceServiceOptions): TraceService {
  const t: Tracing = { chain, opts, tracerOpts: { maxStructLogSteps: opts.maxStructLogSteps } }
  return {
    traceTransaction: (hash, tracerConfig, extra = {}) => traceTransaction(t, hash, tracerConfig, extra),
    async traceCall(params) {
      const [[result]] = await traceCalls(t, { ...params, bundles: [{ transactions: [params.call] }] })
      return result
    },
    traceCallMany: (params) => traceCalls(t, params),
    traceBlock: (params) => traceBlock(t, params),
  }
}

/** what every trace of one engine runs with: the chain and the tracers' bounds */
interface Tracing {
  readonly chain: ChainSource
  readonly opts: TraceServiceOptions
  readonly tracerOpts: { maxStructLogSteps: TraceServiceOptions['maxStructLogSteps'] }
}

/**
 * The state and header a run of calls starts from: after block `ref`, or, with `txIndex`,
 * inside it before that transaction (geth `StateAtTransaction`, Erigon/reth `stateContext`).
 */
async function openCalls(
  chain: ChainSource,
  ref: BlockRef | undefined,
  txIndex: number | undefined,
  calls: CallInput[],
  stateOverrides: StateOverrides | undefined,
  sources: TraceServiceOptions['sources'],
) {
  if (txIndex === undefined) {
    const selector = ref && 'hash' in ref ? { number: (await resolveBlockRef(chain, ref)).number } : ref
    return openRun(chain, { block: selector, calls, stateOverrides, sources })
  }
  const header = await resolveBlockRef(chain, ref ?? { tag: 'latest' })
  const block = await openBlock(chain, header, { prefetchUpTo: txIndex })
  if (!Number.isSafeInteger(txIndex) || txIndex < 0 || txIndex > block.transactions.length) {
    // geth eth/state_accessor.go stateAtTransaction
    throw new EngineError('VALIDATION_ERROR', `transaction index ${txIndex} out of range for block 0x${header.hash.slice(2)}`, {
      transactionIndex: txIndex,
      transactions: block.transactions.length,
    })
  }
  await chain.prefetch?.(header.number - 1n, calls)
  await replayUpTo(block, txIndex)
  await applyStateOverrides(block.state, stateOverrides, { registry: sources, chainId: chain.chainId })
  return { header, state: block.state, ctx: block.ctx }
}

/**
 * The tracer sets of a run of transactions, one per transaction: the first is built at once,
 * before any state is read, so a bad tracer option fails first — createTracers runs once per
 * traced transaction, never once more to validate. `next` hands out a set with the block and
 * transaction fields its flat tracer prints (read when its result is built).
 */
function tracerSets(t: Tracing, config: TracerConfig, spills: SpillSession, sources: SourceIndex | undefined): { next(flat: FlatCallContext): TraceSet } {
  const build = () => {
    const flatContext: FlatCallContext = {}
    return {
      set: createTraceSet(config, { ...t.tracerOpts, structLogSpill: spills.structLogSpill, flatContext, sources, lookup: layoutLookup(t) }),
      flatContext,
    }
  }
  let first: ReturnType<typeof build> | undefined = build()
  return {
    next(flat) {
      const built = first ?? build()
      first = undefined
      Object.assign(built.flatContext, flat)
      return built.set
    },
  }
}

/** with a verified-sources service: the known sources grown by a prestate diff's accounts' (a failed lookup leaves them as they were) */
function layoutLookup(t: Tracing): SourceLookup | undefined {
  const registry = t.opts.sources
  const resolve = registry?.asksVerified ? registry.resolve?.bind(registry) : undefined
  if (!registry || !resolve) return undefined
  return async (frames) => (await resolve(t.chain.chainId, frames).catch(() => undefined))?.index ?? (await registry.index())
}

/** the known sources, asked for only when the trace decodes a call tree, a gas profile, frame steps or a prestate diff */
async function sourcesFor(t: Tracing, config: TracerConfig): Promise<SourceIndex | undefined> {
  const wanted = config.callTree || config.gasProfile || config.frameSteps || config.prestateTracer?.diffMode
  return wanted && t.opts.sources ? await t.opts.sources.index() : undefined
}

/** with no verified-sources service (or no call tree), nothing after a run could name more: no code read, no lookup */
function verifiedFor(t: Tracing, config: TracerConfig): VerifiedSources['resolve'] | undefined {
  return (config.callTree || config.gasProfile || config.frameSteps) && t.opts.sources?.asksVerified ? t.opts.sources.resolve?.bind(t.opts.sources) : undefined
}

/** a mined transaction replayed where it ran, traced */
async function traceTransaction(t: Tracing, hash: Hex, tracerConfig: TracerConfig, extra: TraceTransactionOptions): Promise<TraceResult> {
  const spills = openSpillSession(t.opts.spill)
  try {
    const run = (sources: SourceIndex | undefined) => traceReplayed(t, hash, extra, tracerSets(t, tracerConfig, spills, sources))
    const first = await run(await sourcesFor(t, tracerConfig))
    const resolve = verifiedFor(t, tracerConfig)
    if (!resolve) return first.result
    const { rerun, warnings } = await verifiedAfterRun({ resolve }, t.chain.chainId, [first.result], first.ctx.state)
    if (!rerun) return withSourceWarnings(first.result, warnings)
    // the first run's spilled struct log is replaced by the second's
    spills.discard()
    return withSourceWarnings((await run(rerun)).result, warnings)
  } catch (e) {
    spills.discard()
    throw e
  }
}

/** one replay of a mined transaction with one tracer set; the state it left, for the verified-sources pass */
async function traceReplayed(t: Tracing, hash: Hex, extra: TraceTransactionOptions, sets: ReturnType<typeof tracerSets>) {
  const replay = await openReplay(t.chain, hash, { ...extra, sources: t.opts.sources })
  const set = sets.next({
    blockHash: replay.header.hash,
    blockNumber: replay.header.number,
    transactionHash: replay.tx.hash,
    transactionPosition: replay.tx.index,
  })
  await executeSignedTx(replay.ctx, replay.tx.tx, {
    tracers: set.tracers,
    validation: !extra.stateOverrides && !extra.blockOverrides,
    blockGasUsed: replay.blockGasUsed,
    logIndexBase: replay.logIndexBase,
    deadline: deadlineOf(extra),
  })
  return { result: await set.result(replay.ctx, executeCall), ctx: replay.ctx }
}

interface CallsParams {
  block: BlockRef | undefined
  txIndex?: number
  bundles: CallBundle[]
  tracerConfig: TracerConfig
  stateOverrides?: StateOverrides
  blockOverrides?: BlockOverrides
  timeoutMs?: number
}

/** bundles of calls on one state, traced; run once more when verified sources named more of their contracts */
async function traceCalls(t: Tracing, params: CallsParams): Promise<CallTraceResult[][]> {
  const spills = openSpillSession(t.opts.spill)
  try {
    const first = await runCalls(t, params, spills, await sourcesFor(t, params.tracerConfig))
    const resolve = verifiedFor(t, params.tracerConfig)
    if (!resolve) return first.out
    const { rerun, warnings } = await verifiedAfterRun({ resolve }, t.chain.chainId, first.out.flat(), first.state)
    // the first run's spilled struct logs are replaced by the second's
    if (rerun) spills.discard()
    const out = rerun ? (await runCalls(t, params, spills, rerun)).out : first.out
    return out.map((results) => results.map((r) => withSourceWarnings(r, warnings)))
  } catch (e) {
    spills.discard()
    throw e
  }
}

/** bundles of calls on one state, each bundle with its block overrides on top of the earlier ones; the state they left */
async function runCalls(t: Tracing, params: CallsParams, spills: SpillSession, sources: SourceIndex | undefined) {
  const sets = tracerSets(t, params.tracerConfig, spills, sources)
  const calls = params.bundles.flatMap((b) => b.transactions)
  const { header, state } = await openCalls(t.chain, params.block, params.txIndex, calls, params.stateOverrides, t.opts.sources)
  const out: CallTraceResult[][] = []
  let overrides = params.blockOverrides
  for (const bundle of params.bundles) {
    overrides = mergeOverrides(overrides, bundle.blockOverrides)
    const ctx: ExecutionContext = withTraceBlockHashes(executionContext(t.chain, header, state, overrides), header, overrides)
    const limits = { blockGasLimit: ctx.block.gasLimit, gasCap: t.opts.gasCap }
    const results: CallTraceResult[] = []
    for (const call of bundle.transactions) {
      // the state carries over to the next one; geth's debug_traceCall context for the flat
      // tracer: the block number (no block hash, the tx is not mined)
      const set = sets.next({ blockNumber: ctx.block.number })
      const run = await executeCall(ctx, withCallDefaults('trace', call, limits), { tracers: set.tracers, validation: false, deadline: deadlineOf(params) })
      results.push(withRollupFees(await set.result(ctx, executeCall), run.rollupFees))
    }
    out.push(results)
  }
  return { out, state }
}

/** every transaction of a block, traced; run once more when verified sources named more of its contracts */
async function traceBlock(t: Tracing, params: TraceBlockParams): Promise<BlockTraceEntry[]> {
  const spills = openSpillSession(t.opts.spill)
  try {
    const first = await runBlock(t, params, spills, await sourcesFor(t, params.tracerConfig))
    const resolve = verifiedFor(t, params.tracerConfig)
    if (!resolve) return first.entries
    const results = first.entries.flatMap((e) => ('result' in e ? [e.result] : []))
    const { rerun, warnings } = await verifiedAfterRun({ resolve }, t.chain.chainId, results, first.state)
    // the first run's spilled struct logs are replaced by the second's
    if (rerun) spills.discard()
    const entries = rerun ? (await runBlock(t, params, spills, rerun)).entries : first.entries
    return entries.map((e) => ('result' in e ? { ...e, result: withSourceWarnings(e.result, warnings) } : e))
  } catch (e) {
    spills.discard()
    throw e
  }
}

/** every transaction of a block, traced in turn; one that answers an error is entered as such and the block goes on; the state the block left */
async function runBlock(t: Tracing, params: TraceBlockParams, spills: SpillSession, sources: SourceIndex | undefined) {
  const sets = tracerSets(t, params.tracerConfig, spills, sources)
  const header = await resolveBlockRef(t.chain, params.block)
  let block = await openBlock(t.chain, header)
  const txs = block.transactions
  const entries: BlockTraceEntry[] = []
  let progress = blockStart()
  for (let i = 0; i < txs.length; i++) {
    const mined = txs[i]!
    const set = sets.next({ blockHash: header.hash, blockNumber: header.number, transactionHash: mined.hash, transactionPosition: i })
    const run = { validation: true, blockGasUsed: progress.blockGasUsed, logIndexBase: progress.logCount }
    const filesBefore = spills.count()
    try {
      const result = await executeSignedTx(block.ctx, mined.tx, { ...run, tracers: set.tracers, deadline: deadlineOf(params) })
      entries.push({ txHash: mined.hash, result: await set.result(block.ctx, executeCall) })
      progress = advance(progress, result)
    } catch (e) {
      if (!isEngineError(e)) throw e
      // this transaction answers an error: whatever its struct log wrote goes
      spills.discard(filesBefore)
      entries.push({ txHash: mined.hash, error: e.message })
      ;({ block, progress } = await rebuildAfter(t.chain, header, txs, i))
    }
  }
  return { entries, state: block.ctx.state }
}

/**
 * A run stopped mid-way (timeout, an oversized struct log) leaves its frames' writes behind: the
 * EVM rolls back only what it finished. The transaction still happened, so the block's state is
 * rebuilt with transaction `i` applied untraced; if it does not replay at all (our rules differ
 * from the chain's), the next ones run without it.
 */
async function rebuildAfter(chain: ChainSource, header: BlockHeaderInfo, txs: MinedTransaction[], i: number) {
  let block = await openBlock(chain, header, { transactions: txs, prefetchUpTo: 0 })
  try {
    return { block, progress: await replayUpTo(block, i + 1) }
  } catch {
    block = await openBlock(chain, header, { transactions: txs, prefetchUpTo: 0 })
    return { block, progress: { ...(await replayUpTo(block, i)), applied: i + 1 } }
  }
}
