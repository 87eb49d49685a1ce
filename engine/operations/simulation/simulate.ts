/**
 * simulate: POST /simulate shape A (interface §3, §4). The calls run in order on ONE
 * per-request state (state overrides first, block overrides in the BlockEnv), each on what the
 * previous one left, in the environment of the resolved block (geth eth_call semantics). The
 * result is stored under its id (§6) and returned; a non-success call is NOT thrown here: the
 * caller (src/) turns it into the 422 with the full result attached.
 *
 * Per call: status, receipt gasUsed, returnData, logs (simulation-wide logIndex, `decoded` where
 * the bundled table knows the event), `error` (geth string, revert reason, the contract that
 * reverted, and for out of gas the lowest limit within the cap that succeeds), `transfers`.
 *
 * @example
 * const result = await simulate(deps, { calls, block: { tag: 'latest' }, validation: false, ... })
 */
import type { StateManagerInterface } from '@ethereumjs/common'
import { toHex, type Address } from 'viem'
import type { BlockHeaderInfo } from '../../chains/types.js'
import { decodeLogs, createTokenInfoReader, nativeSymbol, type RawLog } from '../../decoding/index.js'
import { EngineError, isEngineError } from '../../platform/errors.js'
import { executeCall } from '../../execution/executeTransaction.js'
import { executeExplained } from '../../execution/explainedCall.js'
import type { CallInput, ExecutionContext, ExecutionResult } from '../../execution/types.js'
import { computeAssetChanges, createStateBalanceReader, createTransfersTracer } from '../../execution/observers/index.js'
import { defaultGas, openRun, type RunDeps } from '../../run/index.js'
import type { CallError, CallResult, SimulateParams, SimulatedLog, SimulationResult, Transfer } from '../../types.js'
import type { Tracer } from '../../../tracers/types.js'
import { createCallTracer, type CallFrameJson } from '../../../tracers/callTracer.js'
import { decodeCallTree } from '../../decoding/callTree/index.js'
import { createSourceSteps } from '../../execution/observers/sourceSteps.js'
import type { FrameSourceFacts } from '../../sources/frameFacts.js'
import type { SourceIndex } from '../../sources/types.js'
import { findGasRequired } from './gasSearch.js'
import { createRevertLocator } from './revertLocator.js'
import { revertReason } from './revertReason.js'
import { newSimulationId, storeSimulation } from './simulationStore.js'
import { tokenMetadataSideReads, tokenScope } from './tokenSideReads.js'
import { createRunFactsTracer, type RunFacts } from '../../wallet/runFacts.js'
import { approvalsOf, approvedAccountsOf, warningsOf } from '../../wallet/preview.js'
import { readableAssetChanges, readableTransfers } from '../../wallet/readable.js'
import { verifiedAfterRun, withSourceWarnings } from '../../run/verifiedPass.js'
import type { DecodedCallFrame } from '../../decoding/callTree/types.js'

/** what a simulation runs with (engine/run/deps.ts) */
export type SimulationDeps = Pick<RunDeps, 'chain' | 'cache' | 'gasCap' | 'simulationTtlSeconds' | 'sources'>

const OUT_OF_GAS = /out of gas/i

/** prefix an execution layer's rejection with the call it concerns (interface §3 validation) */
function rejectionOf(e: EngineError, index: number): EngineError {
  return new EngineError(e.code, `calls[${index}]: ${e.message}`, { ...e.details, callIndex: index }, e.suggestion)
}

export async function simulate(deps: SimulationDeps, params: SimulateParams): Promise<SimulationResult> {
  if (params.calls.length === 0) throw new EngineError('VALIDATION_ERROR', 'params.calls must hold at least one call')
  // traceCalls in the contracts' source, where it is known (engine/decoding/callTree/sourceFrames.ts)
  const known = params.traceCalls && deps.sources ? await deps.sources.index() : undefined
  let run = await simulateOnce(deps, params, known && !known.empty ? known : undefined)
  const registry = deps.sources
  if (params.traceCalls && registry?.asksVerified) {
    // the contracts no registered source named, asked of the verified-sources service (engine/run/verifiedPass.ts)
    const trees = run.result.calls.map((c) => ({ callTree: c.callTree }))
    const { rerun, warnings } = await verifiedAfterRun(registry, deps.chain.chainId, trees, run.state)
    if (rerun) run = await simulateOnce(deps, params, rerun)
    for (const call of run.result.calls)
      if (call.callTree) call.callTree = withSourceWarnings({ callTree: call.callTree }, warnings).callTree as DecodedCallFrame
  }
  await storeSimulation(deps.cache, run.result, deps.simulationTtlSeconds)
  return run.result
}

/** the calls run once, each decoded with `sources` where it is given; the state they left, for the verified-sources pass */
async function simulateOnce(
  deps: SimulationDeps,
  params: SimulateParams,
  sources: SourceIndex | undefined,
): Promise<{ result: SimulationResult; state: RunState }> {
  const { header, state, ctx } = await openSimulation(deps, params)
  const beforeState = params.traceAssetChanges ? await state.shallowCopy() : undefined
  const bundle = newBundle()
  if (sources) bundle.sources = sources
  for (const [index, input] of params.calls.entries()) await runCall(deps, params, ctx, state, bundle, index, input)
  const { calls } = bundle

  const readAfter = createStateBalanceReader(ctx, executeCall)
  // code the calls created, destroyed or delegated: the token metadata there is not the block's
  const codeChanged = state.codeWritten().length > 0
  const tokens = createTokenInfoReader(readAfter.call, tokenCacheScope(deps, header, params, codeChanged))
  await decorateLogs(calls, tokens)
  for (const [index, frame] of bundle.frames.entries()) {
    const facts = bundle.sourceFacts[index]
    calls[index]!.callTree = await decodeCallTree(frame, { ...params.callTree, tokens, ...(facts && { sources: facts }) })
  }

  const result: SimulationResult = {
    simulationId: newSimulationId(),
    status: calls.find((c) => c.status !== 'success')?.status ?? 'success',
    blockNumber: toHex(header.number),
    gasUsed: toHex(bundle.gasUsed),
    calls,
  }
  const { fees } = bundle
  if (fees.charged) Object.assign(result, { l1Fee: toHex(fees.l1Fee), l1GasUsed: toHex(fees.l1GasUsed), operatorFee: toHex(fees.operatorFee) })
  if (params.traceAssetChanges && beforeState)
    await addWalletPreview(deps, params, ctx, bundle, result, { before: beforeState, after: state, readAfter, tokens })
  return { result, state }
}

/**
 * The run's block and state. Metadata for the log summaries is asked ahead with a cold fork's
 * state batch, when it may be shared; a wallet preview reads the code of the accounts the calls
 * approve (APPROVAL_TO_EOA) with the state.
 */
function openSimulation(deps: SimulationDeps, params: SimulateParams) {
  const sideReads = pureState(params)
    ? tokenMetadataSideReads(
        deps.cache,
        deps.chain.chainId,
        params.calls.map((c) => c.from),
      )
    : undefined
  const approved = params.traceAssetChanges ? approvedAccountsOf(params.calls) : []
  const also = approved.length > 0 ? () => approved.map((address) => ({ address, storageKeys: [] })) : undefined
  return openRun(deps.chain, { ...params, sideReads, ...(also && { also }), sources: deps.sources })
}

type RunState = Awaited<ReturnType<typeof openRun>>['state']

/** what the calls of one simulation add up to, as they run */
interface Bundle {
  readonly calls: CallResult[]
  /** the surviving transfers, with the call each came from */
  readonly allTransfers: (Transfer & { callIndex: number })[]
  readonly facts: (RunFacts | undefined)[]
  readonly authorities: Address[][]
  readonly successLogs: RawLog[]
  gasUsed: bigint
  /** simulation-wide: the next log's index */
  logIndex: number
  /** what an OP-stack chain charged the calls besides gas */
  readonly fees: { l1Fee: bigint; l1GasUsed: bigint; operatorFee: bigint; charged: boolean }
  /** traceCalls: each call's callTracer frames (withLog), decoded once every call has run */
  readonly frames: CallFrameJson[]
  /** traceCalls with sources known: the index, and each call's source facts */
  sources?: SourceIndex
  readonly sourceFacts: FrameSourceFacts[][]
}

function newBundle(): Bundle {
  return {
    calls: [],
    allTransfers: [],
    facts: [],
    authorities: [],
    successLogs: [],
    gasUsed: 0n,
    logIndex: 0,
    fees: { l1Fee: 0n, l1GasUsed: 0n, operatorFee: 0n, charged: false },
    frames: [],
    sourceFacts: [],
  }
}

/** one call on what the previous ones left, its tracers as the params ask, its result added to the bundle */
async function runCall(
  deps: SimulationDeps,
  params: SimulateParams,
  ctx: ExecutionContext,
  state: RunState,
  bundle: Bundle,
  index: number,
  input: SimulateParams['calls'][number],
): Promise<void> {
  // eth_simulateV1: with validation the block's gas is shared, so a call without gas gets what is left
  const available = params.validation && bundle.gasUsed < ctx.block.gasLimit ? ctx.block.gasLimit - bundle.gasUsed : ctx.block.gasLimit
  const call: CallInput = { ...input, gas: defaultGas('simulate', input.gas, { blockGasLimit: available, gasCap: deps.gasCap }) }
  // the state this call starts from, for a failure's observed rerun and the out-of-gas search
  // (cheap: the overlay's net writes)
  const startState = await state.shallowCopy()
  const transfers = params.traceTransfers || params.traceAssetChanges ? createTransfersTracer() : undefined
  const callFrames = params.traceCalls ? createCallTracer({ withLog: true }) : undefined
  const sourceSteps = callFrames && bundle.sources ? createSourceSteps({ index: bundle.sources, internal: params.callTree?.internal === true }) : undefined
  const runFacts = params.traceAssetChanges ? createRunFactsTracer() : undefined
  const tracers: Tracer[] = [transfers, callFrames, runFacts, sourceSteps].filter((t) => t !== undefined)
  // the frame a failure came from: observed only when the call fails (explainedCall.ts)
  const locator = createRevertLocator()
  let res: ExecutionResult
  try {
    const opts = { tracers, validation: params.validation, ...(params.validation && { blockGasUsed: bundle.gasUsed }) }
    res = await executeExplained(ctx, call, opts, [locator], startState)
  } catch (e) {
    if (isEngineError(e) && (e.code === 'VALIDATION_ERROR' || e.code === 'INSUFFICIENT_GAS')) throw rejectionOf(e, index)
    throw e
  }
  bundle.gasUsed += res.gasUsed
  const result = callResultOf(bundle, index, res)
  if (res.status !== 'success') {
    result.error = await callError(deps, ctx, res, call, startState, locator.result())
  } else {
    bundle.successLogs.push(...res.logs)
  }
  if (callFrames) bundle.frames[index] = callFrames.result()
  if (sourceSteps) bundle.sourceFacts[index] = sourceSteps.result()
  if (params.traceTransfers && transfers) result.transfers = transfers.result()
  if (transfers && res.status === 'success') bundle.allTransfers.push(...transfers.result().map((t) => ({ ...t, callIndex: index })))
  bundle.facts[index] = res.status === 'success' ? runFacts?.result() : undefined
  bundle.authorities[index] = runFacts?.authorities() ?? []
  bundle.calls.push(result)
}

/** a call's result as the response shows it; the chain's fees besides gas added to the bundle's */
function callResultOf(bundle: Bundle, index: number, res: ExecutionResult): CallResult {
  const logs: SimulatedLog[] = res.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data, logIndex: toHex(bundle.logIndex++) }))
  const result: CallResult = {
    callIndex: index,
    status: res.status,
    returnData: res.returnData,
    gasUsed: toHex(res.gasUsed),
    logs,
  }
  if (res.createdAddress && res.status === 'success') result.contractAddress = res.createdAddress
  if (res.rollupFees) {
    const { fees } = bundle
    result.l1Fee = toHex(res.rollupFees.l1Fee)
    result.l1GasUsed = toHex(res.rollupFees.l1GasUsed)
    result.operatorFee = toHex(res.rollupFees.operatorFee)
    fees.l1Fee += res.rollupFees.l1Fee
    fees.l1GasUsed += res.rollupFees.l1GasUsed
    fees.operatorFee += res.rollupFees.operatorFee
    fees.charged = true
  }
  return result
}

/**
 * The wallet preview: readable transfers (without it, transfers stay as geth-style raw entries),
 * the senders' asset changes, the approvals the calls grant, and the warnings.
 */
async function addWalletPreview(
  deps: SimulationDeps,
  params: SimulateParams,
  ctx: ExecutionContext,
  bundle: Bundle,
  result: SimulationResult,
  run: { before: RunState; after: RunState; readAfter: ReturnType<typeof createStateBalanceReader>; tokens: ReturnType<typeof createTokenInfoReader> },
): Promise<void> {
  const { calls, fees, facts, allTransfers } = bundle
  const { readAfter, tokens } = run
  const native = nativeSymbol(deps.chain.chainId)
  await Promise.all(calls.map((c) => c.transfers && readableTransfers(c.transfers, tokens, native)))
  const readBefore = createStateBalanceReader({ ...ctx, state: run.before }, executeCall)
  const senders = [...new Set(params.calls.map((c) => c.from))]
  // the fee vaults too: an OP-stack chain's fees move their balances (asset changes show them)
  const accounts = [...new Set([...senders, ...(fees.charged ? (ctx.rules?.feeRecipients ?? []) : [])])]
  // balances and permissions read side by side: a cold fork sends them in the same batches
  const [assetChanges, approvalChanges] = await Promise.all([
    computeAssetChanges({
      account: params.account,
      transfers: allTransfers,
      logs: bundle.successLogs,
      accounts,
      readBefore,
      readAfter,
      tokens,
      nativeSymbol: native,
    }),
    approvalsOf({ facts, account: params.account, readBefore, readAfter, tokens }),
  ])
  await readableAssetChanges(assetChanges, tokens)
  result.assetChanges = assetChanges
  result.approvalChanges = approvalChanges
  const preview = {
    facts,
    authorities: bundle.authorities,
    statuses: calls.map((c) => c.status),
    transfers: allTransfers,
    assetChanges,
    account: params.account,
    senders,
    before: run.before,
    after: run.after,
    readBefore,
    readAfter,
    tokens,
  }
  result.warnings = await warningsOf(preview, approvalChanges)
}

/**
 * The token-metadata cache may be shared only between reads of the block's own code: not with
 * state overrides, and not when a call created, destroyed or delegated code at any depth (a token
 * a factory deploys here may hold other code, or none, in the next simulation on this block).
 */
function tokenCacheScope(deps: SimulationDeps, header: BlockHeaderInfo, params: SimulateParams, codeChanged: boolean) {
  return pureState(params) && !codeChanged ? { store: deps.cache, scope: tokenScope(deps.chain.chainId, header.number) } : undefined
}

const pureState = (params: SimulateParams) => !params.stateOverrides || Object.keys(params.stateOverrides).length === 0

async function decorateLogs(calls: CallResult[], tokens: ReturnType<typeof createTokenInfoReader>): Promise<void> {
  const logs = calls.flatMap((c) => c.logs)
  if (!logs.length) return
  const decoded = await decodeLogs(logs, tokens)
  logs.forEach((log, i) => {
    const d = decoded[i]
    if (d) log.decoded = d
  })
}

async function callError(
  deps: SimulationDeps,
  ctx: ExecutionContext,
  res: ExecutionResult,
  call: CallInput,
  startState: StateManagerInterface,
  origin: Address | undefined,
): Promise<CallError> {
  const error: CallError = { message: res.error ?? (res.status === 'reverted' ? 'execution reverted' : 'execution failed') }
  if (res.status === 'reverted' && res.returnData !== '0x') {
    error.revertData = res.returnData
    const reason = revertReason(res.returnData)
    if (reason !== undefined) error.revertReason = reason
  }
  const contract = origin ?? call.to ?? undefined
  if (contract) error.contractAddress = contract
  if (OUT_OF_GAS.test(error.message)) {
    const required = await findGasRequired(
      async (gas) => {
        const probe: ExecutionContext = { ...ctx, state: await startState.shallowCopy() }
        const res = await executeCall(probe, { ...call, gas })
        return { ok: res.status === 'success', gasUsed: res.gasUsed }
      },
      call.gas ?? 0n,
      deps.gasCap,
    )
    if (required !== undefined) error.gasRequired = toHex(required)
  }
  return error
}
