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
import { findGasRequired } from './gasSearch.js'
import { createRevertLocator } from './revertLocator.js'
import { revertReason } from './revertReason.js'
import { newSimulationId, storeSimulation } from './simulationStore.js'
import { tokenMetadataSideReads, tokenScope } from './tokenSideReads.js'
import { createRunFactsTracer, type RunFacts } from '../../wallet/runFacts.js'
import { approvalsOf, approvedAccountsOf, warningsOf } from '../../wallet/preview.js'
import { readableAssetChanges, readableTransfers } from '../../wallet/readable.js'

/** what a simulation runs with (engine/run/deps.ts) */
export type SimulationDeps = Pick<RunDeps, 'chain' | 'cache' | 'gasCap' | 'simulationTtlSeconds'>

const OUT_OF_GAS = /out of gas/i

/** prefix an execution layer's rejection with the call it concerns (interface §3 validation) */
function rejectionOf(e: EngineError, index: number): EngineError {
  return new EngineError(e.code, `calls[${index}]: ${e.message}`, { ...e.details, callIndex: index }, e.suggestion)
}

export async function simulate(deps: SimulationDeps, params: SimulateParams): Promise<SimulationResult> {
  if (params.calls.length === 0) throw new EngineError('VALIDATION_ERROR', 'params.calls must hold at least one call')
  // metadata for the log summaries is asked ahead with a cold fork's state batch, when it may be shared
  const sideReads = pureState(params)
    ? tokenMetadataSideReads(
        deps.cache,
        deps.chain.chainId,
        params.calls.map((c) => c.from),
      )
    : undefined
  // a wallet preview reads the code of the accounts the calls approve (APPROVAL_TO_EOA): with the state
  const approved = params.traceAssetChanges ? approvedAccountsOf(params.calls) : []
  const also = approved.length > 0 ? () => approved.map((address) => ({ address, storageKeys: [] })) : undefined
  const { header, state, ctx } = await openRun(deps.chain, { ...params, sideReads, ...(also && { also }) })
  const beforeState = params.traceAssetChanges ? await state.shallowCopy() : undefined

  const calls: CallResult[] = []
  const allTransfers: (Transfer & { callIndex: number })[] = []
  const facts: (RunFacts | undefined)[] = []
  const authorities: Address[][] = []
  const successLogs: RawLog[] = []
  let gasUsed = 0n
  let logIndex = 0
  /** what an OP-stack chain charged the calls besides gas */
  const fees = { l1Fee: 0n, l1GasUsed: 0n, operatorFee: 0n, charged: false }
  // traceCalls: each call's callTracer frames (withLog), decoded once every call has run
  const frames: CallFrameJson[] = []
  for (const [index, input] of params.calls.entries()) {
    // eth_simulateV1: with validation the block's gas is shared, so a call without gas gets what is left
    const available = params.validation && gasUsed < ctx.block.gasLimit ? ctx.block.gasLimit - gasUsed : ctx.block.gasLimit
    const call: CallInput = { ...input, gas: defaultGas('simulate', input.gas, { blockGasLimit: available, gasCap: deps.gasCap }) }
    // the state this call starts from, for a failure's observed rerun and the out-of-gas search
    // (cheap: the overlay's net writes)
    const startState = await state.shallowCopy()
    const transfers = params.traceTransfers || params.traceAssetChanges ? createTransfersTracer() : undefined
    const callFrames = params.traceCalls ? createCallTracer({ withLog: true }) : undefined
    const runFacts = params.traceAssetChanges ? createRunFactsTracer() : undefined
    const tracers: Tracer[] = [transfers, callFrames, runFacts].filter((t) => t !== undefined)
    // the frame a failure came from: observed only when the call fails (explainedCall.ts)
    const locator = createRevertLocator()
    let res: ExecutionResult
    try {
      const opts = { tracers, validation: params.validation, ...(params.validation && { blockGasUsed: gasUsed }) }
      res = await executeExplained(ctx, call, opts, [locator], startState)
    } catch (e) {
      if (isEngineError(e) && (e.code === 'VALIDATION_ERROR' || e.code === 'INSUFFICIENT_GAS')) throw rejectionOf(e, index)
      throw e
    }
    gasUsed += res.gasUsed
    const logs: SimulatedLog[] = res.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data, logIndex: toHex(logIndex++) }))
    const result: CallResult = {
      callIndex: index,
      status: res.status,
      returnData: res.returnData,
      gasUsed: toHex(res.gasUsed),
      logs,
    }
    if (res.createdAddress && res.status === 'success') result.contractAddress = res.createdAddress
    if (res.rollupFees) {
      result.l1Fee = toHex(res.rollupFees.l1Fee)
      result.l1GasUsed = toHex(res.rollupFees.l1GasUsed)
      result.operatorFee = toHex(res.rollupFees.operatorFee)
      fees.l1Fee += res.rollupFees.l1Fee
      fees.l1GasUsed += res.rollupFees.l1GasUsed
      fees.operatorFee += res.rollupFees.operatorFee
      fees.charged = true
    }
    if (res.status !== 'success') {
      result.error = await callError(deps, ctx, res, call, startState, locator.result())
    } else {
      successLogs.push(...res.logs)
    }
    if (callFrames) frames[index] = callFrames.result()
    if (params.traceTransfers && transfers) result.transfers = transfers.result()
    if (transfers && res.status === 'success') allTransfers.push(...transfers.result().map((t) => ({ ...t, callIndex: index })))
    facts[index] = res.status === 'success' ? runFacts?.result() : undefined
    authorities[index] = runFacts?.authorities() ?? []
    calls.push(result)
  }

  const readAfter = createStateBalanceReader(ctx, executeCall)
  // code the calls created, destroyed or delegated: the token metadata there is not the block's
  const codeChanged = state.codeWritten().length > 0
  const tokens = createTokenInfoReader(readAfter.call, tokenCacheScope(deps, header, params, codeChanged))
  await decorateLogs(calls, tokens)
  for (const [index, frame] of frames.entries()) calls[index]!.callTree = await decodeCallTree(frame, { ...params.callTree, tokens })

  const result: SimulationResult = {
    simulationId: newSimulationId(),
    status: calls.find((c) => c.status !== 'success')?.status ?? 'success',
    blockNumber: toHex(header.number),
    gasUsed: toHex(gasUsed),
    calls,
  }
  const native = nativeSymbol(deps.chain.chainId)
  if (fees.charged) Object.assign(result, { l1Fee: toHex(fees.l1Fee), l1GasUsed: toHex(fees.l1GasUsed), operatorFee: toHex(fees.operatorFee) })
  if (params.traceAssetChanges && beforeState) {
    // the wallet preview: readable transfers too (without it, transfers stay as geth-style raw entries)
    await Promise.all(calls.map((c) => c.transfers && readableTransfers(c.transfers, tokens, native)))
    const readBefore = createStateBalanceReader({ ...ctx, state: beforeState }, executeCall)
    const senders = [...new Set(params.calls.map((c) => c.from))]
    // the fee vaults too: an OP-stack chain's fees move their balances (asset changes show them)
    const accounts = [...new Set([...senders, ...(fees.charged ? (ctx.rules?.feeRecipients ?? []) : [])])]
    // balances and permissions read side by side: a cold fork sends them in the same batches
    const [assetChanges, approvalChanges] = await Promise.all([
      computeAssetChanges({
        account: params.account,
        transfers: allTransfers,
        logs: successLogs,
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
    const statuses = calls.map((c) => c.status)
    const preview = {
      facts,
      authorities,
      statuses,
      transfers: allTransfers,
      assetChanges,
      account: params.account,
      senders,
      before: beforeState,
      after: state,
      readBefore,
      readAfter,
      tokens,
    }
    result.warnings = await warningsOf(preview, approvalChanges)
  }
  await storeSimulation(deps.cache, result, deps.simulationTtlSeconds)
  return result
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
