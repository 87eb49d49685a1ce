/**
 * simulateV1: eth_simulateV1 (execution-apis; geth internal/ethapi/simulate.go). A chain of
 * simulated blocks on top of the selected block, on ONE state: each block applies its state
 * overrides (moving precompiles where asked), runs its block-start system calls and then its
 * calls in order, and what it leaves is the next block's starting state. Block numbers and times
 * follow sanitizeChain; BLOCKHASH of a simulated block is its hash here.
 *
 * Per call: status, returnData, receipt gasUsed, maxUsedGas, logs (with `traceTransfers` also ETH
 * movements as ERC-20 Transfer logs from 0xeeee…eeee), and for a failure geth's error object
 * (code 3 with the revert data, or -32015 for a VM error). A call that is not a valid transaction
 * refuses the whole request (simulateErrors.ts). Gas: a call without gas gets what is left of the
 * block's; every call is capped by what is left of the RPC gas cap over the whole simulation
 * (geth's gas pool).
 *
 * @example
 * const blocks = await simulateV1(deps, { blockStateCalls: [{ calls: [{ from, to, data: '0x' }] }], block: { tag: 'latest' }, ... })
 */
import { Address as EjsAddress, hexToBytes } from '@ethereumjs/util'
import { toHex, type Address, type Hex } from 'viem'
import type { BlockHeaderInfo } from '../../chains/types.js'
import { executeCall } from '../../execution/executeTransaction.js'
import type { BlockEnv, CallInput, ExecutionContext } from '../../execution/types.js'
import { applyStateOverrides, openRun, type RunDeps } from '../../run/index.js'
import { applyBlockSystemCalls, systemCallReads } from '../../run/systemCalls.js'
import type { AccessList } from '../../state/index.js'
import type { SimulateV1BlockResult, SimulateV1CallResult, SimulateV1Params } from '../../types.js'
import { unpackRevert } from '../../../tracers/gethRevert.js'
import { nextExcessBlobGas } from './blobGas.js'
import { creditBlockReward } from './blockReward.js'
import { createSimLogTracer } from './logTracer.js'
import { precompileTable } from './precompileTable.js'
import { MAX_SIMULATE_BLOCKS, sanitizeChain } from './sanitizeChain.js'
import { callRejection, simulateError } from './simulateErrors.js'
import { sealSimHeader, type SimReceipt } from './simHeader.js'
import { rpcTransaction, simTransaction, type SimTransaction } from './simTransaction.js'

export type SimulateV1Deps = Pick<RunDeps, 'chain' | 'gasCap'>

const ZERO_HASH: Hex = `0x${'0'.repeat(64)}`
/** geth's errCodeVMError: a call that failed for any reason but a revert */
const VM_ERROR_CODE = -32015
/** EIP-1559 parameters of mainnet */
const ELASTICITY = 2n
const BASE_FEE_DENOMINATOR = 8n
const INITIAL_BASE_FEE = 1_000_000_000n

/** what the next simulated block needs of its parent */
interface ParentInfo {
  hash: Hex
  number: bigint
  timestamp: bigint
  gasLimit: bigint
  gasUsed: bigint
  coinbase: Address
  difficulty: bigint
  baseFeePerGas: bigint | undefined
  excessBlobGas: bigint | undefined
  blobGasUsed: bigint | undefined
}

/**
 * As geth's simulator.execute: the blocks sanitized (numbers and times), then each processed on
 * the state the previous one left, each the next one's parent.
 */
export async function simulateV1(deps: SimulateV1Deps, params: SimulateV1Params): Promise<SimulateV1BlockResult[]> {
  if (params.blockStateCalls.length === 0) throw simulateError('invalidParams', 'empty input')
  if (BigInt(params.blockStateCalls.length) > MAX_SIMULATE_BLOCKS) throw simulateError('clientLimitExceeded', 'too many blocks')
  const sim = await openSimulator(deps, params)
  const results: SimulateV1BlockResult[] = []
  let parent = parentOfBase(sim.base)
  for (const block of sanitizeChain(sim.base, params.blockStateCalls)) {
    const processed = await processBlock(sim, block, parent)
    results.push(processed.result)
    parent = processed.parent
  }
  return results
}

/** one simulation's chain, base block and state, shared by its blocks */
interface Simulator {
  readonly params: SimulateV1Params
  readonly chain: SimulateV1Deps['chain']
  readonly base: BlockHeaderInfo
  readonly state: Awaited<ReturnType<typeof openRun>>['state']
  readonly baseCtx: ExecutionContext
  readonly chainId: bigint
  /** the hashes of the blocks simulated so far: BLOCKHASH of a simulated block is its hash here */
  readonly simHashes: Map<bigint, Hex>
  readonly getBlockHash: (n: bigint) => Promise<Hex | undefined>
  /** geth's gas pool: the RPC gas cap bounds the gas of the whole simulation */
  gasPool: bigint
}

async function openSimulator(deps: SimulateV1Deps, params: SimulateV1Params): Promise<Simulator> {
  const chain = deps.chain
  const {
    header: base,
    state,
    ctx: baseCtx,
  } = await openRun(chain, {
    block: params.block,
    calls: params.blockStateCalls.flatMap((b) => b.calls),
    // each simulated block's start (its system calls, its coinbase) read with the calls' state:
    // on a cold fork, one batch instead of a round trip per contract and slot
    also: (header) => simulatedBlockReads(header, params.blockStateCalls),
  })
  const simHashes = new Map<bigint, Hex>()
  return {
    params,
    chain,
    base,
    state,
    baseCtx,
    chainId: BigInt(chain.chainId),
    simHashes,
    getBlockHash: async (n: bigint) => (n > base.number ? simHashes.get(n) : chain.getBlockHash(n)),
    gasPool: deps.gasCap,
  }
}

function parentOfBase(base: BlockHeaderInfo): ParentInfo {
  return {
    hash: base.hash,
    number: base.number,
    timestamp: base.timestamp,
    gasLimit: base.gasLimit,
    gasUsed: base.gasUsed ?? 0n,
    coinbase: base.coinbase,
    difficulty: base.difficulty,
    baseFeePerGas: base.baseFeePerGas,
    excessBlobGas: base.excessBlobGas,
    blobGasUsed: base.blobGasUsed,
  }
}

type SanitizedBlock = ReturnType<typeof sanitizeChain>[number]

/** what one simulated block's calls add up to, as they run */
interface BlockRun {
  readonly ctx: ExecutionContext
  readonly logs: ReturnType<typeof createSimLogTracer>
  /** the precompiles the block's overrides moved (undefined: none) */
  readonly precompileChange: ReturnType<ReturnType<typeof precompileTable>['change']>
  readonly calls: SimulateV1CallResult[]
  readonly txs: SimTransaction[]
  readonly receipts: SimReceipt[]
  readonly callLogs: ReturnType<ReturnType<typeof createSimLogTracer>['result']>[]
  gasUsed: bigint
}

/** as geth's processBlock: the header made, the block's start applied, its calls run, the block rewarded and sealed */
async function processBlock(sim: Simulator, block: SanitizedBlock, parent: ParentInfo): Promise<{ result: SimulateV1BlockResult; parent: ParentInfo }> {
  const { env, headerLike, ctx } = makeHeader(sim, block, parent)
  const precompileChange = await applyBlockStart(sim, block, ctx, headerLike)
  const run: BlockRun = {
    ctx,
    logs: createSimLogTracer(sim.params.traceTransfers),
    precompileChange,
    calls: [],
    txs: [],
    receipts: [],
    callLogs: [],
    gasUsed: 0n,
  }
  for (const { chainId: given, ...input } of block.calls) {
    if (given !== undefined && given !== sim.chainId)
      throw simulateError('invalidRequest', `chainId does not match node's (have=${given}, want=${sim.chainId})`)
    await processCall(sim, run, input)
  }
  await creditBlockReward(sim.state, ctx.common, env)
  const sealed = await sealBlock(sim, env, parent, run)
  sim.simHashes.set(env.number, sealed.hash)
  attachLogs(run, env, sealed.hash)
  const where = { blockHash: sealed.hash, blockNumber: env.number, blockTimestamp: env.timestamp, baseFee: env.baseFeePerGas }
  const { txs } = run
  sealed.json.transactions = sim.params.returnFullTransactions ? txs.map((t, index) => rpcTransaction(t, { ...where, index })) : txs.map((t) => t.hash)
  const next: ParentInfo = {
    hash: sealed.hash,
    number: env.number,
    timestamp: env.timestamp,
    gasLimit: env.gasLimit,
    gasUsed: sealed.gasUsed,
    coinbase: env.coinbase,
    difficulty: env.difficulty,
    baseFeePerGas: env.baseFeePerGas,
    excessBlobGas: env.excessBlobGas,
    blobGasUsed: sealed.blobGasUsed,
  }
  return { result: { ...sealed.json, calls: run.calls } as SimulateV1BlockResult, parent: next }
}

/**
 * As geth's makeHeaders: the block's environment from its overrides, coinbase, difficulty and gas
 * limit carried over from the parent, base fee and excess blob gas by its fork; and the context
 * its calls run in, by the chain's rules as every other operation (OP-stack: deposits, L1 fees,
 * fee vaults, precompiles).
 */
function makeHeader(sim: Simulator, block: SanitizedBlock, parent: ParentInfo) {
  const o = block.blockOverrides
  const env: BlockEnv = {
    number: o.number,
    timestamp: o.time,
    gasLimit: o.gasLimit ?? parent.gasLimit,
    coinbase: (o.coinbase ?? parent.coinbase).toLowerCase() as Address,
    difficulty: parent.difficulty,
    prevRandao: o.prevRandao ?? ZERO_HASH,
    parentBeaconBlockRoot: ZERO_HASH,
  }
  const headerLike: BlockHeaderInfo = { ...env, hash: ZERO_HASH, parentHash: parent.hash }
  const common = sim.chain.commonAt(headerLike)
  if (common.isActivatedEIP(1559)) env.baseFeePerGas = o.baseFee ?? (sim.params.validation ? nextBaseFee(parent) : 0n)
  if (common.isActivatedEIP(4844)) {
    // geth: zero when the parent is before Cancun (the base block, or a simulated block before the fork)
    // a chain without blobs keeps it at its own (OP-stack: 0, as op-geth)
    env.excessBlobGas = sim.chain.rules?.minedExcessBlobGas ?? (parent.excessBlobGas !== undefined ? nextExcessBlobGas(common, parent) : 0n)
    if (o.blobBaseFee !== undefined) env.blobBaseFee = o.blobBaseFee
  } else delete env.parentBeaconBlockRoot
  const ctx: ExecutionContext = {
    common,
    state: sim.state,
    block: env,
    getBlockHash: sim.getBlockHash,
    ...(sim.baseCtx.stop && { stop: sim.baseCtx.stop }),
    ...(sim.chain.rules && { rules: sim.chain.rules }),
  }
  return { env, headerLike, ctx }
}

/** the block's state overrides (precompiles moved where asked) and its block-start system calls; the precompiles it moved */
async function applyBlockStart(sim: Simulator, block: SanitizedBlock, ctx: ExecutionContext, headerLike: BlockHeaderInfo) {
  const precompiles = precompileTable(sim.baseCtx.common)
  precompiles.apply(block.stateOverrides)
  if (block.stateOverrides) {
    const plain = Object.fromEntries(Object.entries(block.stateOverrides).map(([a, { movePrecompileToAddress: _m, ...rest }]) => [a, rest]))
    await applyStateOverrides(sim.state, plain)
  }
  await applyBlockSystemCalls(sim.state, ctx.common, { ...headerLike, ...ctx.block })
  return precompiles.change()
}

/** as geth's processCall: the call's defaults, its run, its receipt and its result */
async function processCall(sim: Simulator, run: BlockRun, input: CallInput): Promise<void> {
  const { ctx, logs } = run
  const london = ctx.common.isActivatedEIP(1559)
  const call = await callDefaults(ctx, input, { gasUsed: run.gasUsed, gasPool: sim.gasPool, london })
  const tx = simTransaction(call, { chainId: sim.chainId, london })
  logs.startTx()
  let res: Awaited<ReturnType<typeof executeCall>>
  try {
    res = await executeCall(ctx, call, {
      tracers: [logs],
      validation: sim.params.validation,
      blockGasUsed: run.gasUsed,
      ...(run.precompileChange && { precompiles: run.precompileChange }),
    })
  } catch (e) {
    throw callRejection(e, call.gas) ?? e
  }
  run.gasUsed += res.gasUsed
  sim.gasPool = sim.gasPool > res.gasUsed ? sim.gasPool - res.gasUsed : 0n
  run.txs.push(tx)
  // geth's pre-Byzantium receipt: the intermediate root, where the chain can compute one
  const receiptRoot = sim.chain.stateRoot && !ctx.common.gteHardfork('byzantium') ? await sim.chain.stateRoot(sim.base.number, sim.state) : undefined
  run.receipts.push({
    status: res.status === 'success' ? 1 : 0,
    cumulativeGasUsed: run.gasUsed,
    logs: res.logs,
    txType: tx.type,
    ...(receiptRoot && { stateRoot: receiptRoot }),
  })
  run.callLogs.push(logs.result())
  run.calls.push(callResultOf(res))
}

/** a call's result as geth answers it: a failure's error object (code 3 with the revert data, or a VM error) */
function callResultOf(res: Awaited<ReturnType<typeof executeCall>>): SimulateV1CallResult {
  const result: SimulateV1CallResult = {
    // geth's ExecutionResult.Return(): nothing for a failed call (the revert bytes go to error.data)
    returnData: res.status === 'success' ? res.returnData : '0x',
    logs: [],
    gasUsed: toHex(res.gasUsed),
    maxUsedGas: toHex(res.peakGasUsed),
    status: res.status === 'success' ? '0x1' : '0x0',
  }
  if (res.status === 'reverted') {
    const reason = unpackRevert(res.returnData)
    result.error = { message: reason !== undefined ? `execution reverted: ${reason}` : 'execution reverted', code: 3, data: res.returnData }
  } else if (res.status === 'failed') {
    result.error = { message: res.error ?? 'execution failed', code: VM_ERROR_CODE }
  }
  return result
}

/** the block's header over its transactions and receipts, with the state root where the chain computes one */
async function sealBlock(sim: Simulator, env: BlockEnv, parent: ParentInfo, run: BlockRun) {
  const stateRoot = sim.chain.stateRoot ? await sim.chain.stateRoot(sim.base.number, sim.state) : undefined
  return sealSimHeader(
    run.ctx.common,
    {
      parentHash: parent.hash,
      number: env.number,
      timestamp: env.timestamp,
      gasLimit: env.gasLimit,
      coinbase: env.coinbase,
      difficulty: env.difficulty,
      prevRandao: env.prevRandao,
      baseFeePerGas: env.baseFeePerGas,
      excessBlobGas: env.excessBlobGas,
      stateRoot,
    },
    run.txs,
    run.receipts,
  )
}

/** each call's logs, placed in the sealed block */
function attachLogs(run: BlockRun, env: BlockEnv, blockHash: Hex): void {
  run.calls.forEach((c, i) => {
    c.logs = run.callLogs[i]!.map((l) => ({
      address: l.address,
      topics: l.topics,
      data: l.data,
      blockNumber: toHex(env.number),
      transactionHash: run.txs[i]!.hash,
      transactionIndex: toHex(i),
      blockHash,
      blockTimestamp: toHex(env.timestamp),
      logIndex: toHex(l.index),
      removed: false,
    }))
  })
}

/**
 * geth's sanitizeCall + CallDefaults for a simulated call: nonce from the state, gas what is left
 * of the block's (refused when it would overrun the block), capped by the gas pool, and zero fee
 * fields in the form of the transaction it becomes.
 */
async function callDefaults(
  ctx: ExecutionContext,
  input: CallInput,
  at: { gasUsed: bigint; gasPool: bigint; london: boolean },
): Promise<CallInput & { gas: bigint; nonce: bigint }> {
  const nonce = input.nonce ?? (await ctx.state.getAccount(new EjsAddress(hexToBytes(input.from))))?.nonce ?? 0n
  let gas = input.gas ?? ctx.block.gasLimit - at.gasUsed
  if (at.gasUsed + gas > ctx.block.gasLimit) {
    throw simulateError('blockGasLimitReached', `block gas limit reached: ${at.gasUsed} >= ${ctx.block.gasLimit}`)
  }
  if (gas > at.gasPool) gas = at.gasPool
  if (input.gasPrice !== undefined && (input.maxFeePerGas !== undefined || input.maxPriorityFeePerGas !== undefined)) {
    throw simulateError('invalidParams', 'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified')
  }
  const call: CallInput & { gas: bigint; nonce: bigint } = { ...input, gas, nonce }
  if (!at.london) call.gasPrice ??= 0n
  else if (input.gasPrice === undefined) {
    call.maxFeePerGas ??= 0n
    call.maxPriorityFeePerGas ??= 0n
  }
  return call
}

/** geth eip1559.CalcBaseFee */
function nextBaseFee(parent: ParentInfo): bigint {
  if (parent.baseFeePerGas === undefined) return INITIAL_BASE_FEE
  const target = parent.gasLimit / ELASTICITY
  if (target === 0n || parent.gasUsed === target) return parent.baseFeePerGas
  if (parent.gasUsed > target) {
    const delta = (parent.baseFeePerGas * (parent.gasUsed - target)) / target / BASE_FEE_DENOMINATOR
    return parent.baseFeePerGas + (delta > 1n ? delta : 1n)
  }
  const delta = (parent.baseFeePerGas * (target - parent.gasUsed)) / target / BASE_FEE_DENOMINATOR
  return parent.baseFeePerGas - delta > 0n ? parent.baseFeePerGas - delta : 0n
}

/**
 * What the starts of the simulated blocks read: the system contracts' slots of each block
 * (systemCallReads of its number and time, the parent beacon root geth gives it) and the
 * coinbases set by overrides. An over-approximation is harmless (a read more in the same batch);
 * an input sanitizeChain refuses reads nothing here and is refused by the run itself.
 */
function simulatedBlockReads(base: BlockHeaderInfo, blockStateCalls: SimulateV1Params['blockStateCalls']): AccessList {
  let blocks: ReturnType<typeof sanitizeChain>
  try {
    blocks = sanitizeChain(base, blockStateCalls)
  } catch {
    return []
  }
  return blocks.flatMap((b) => [
    ...systemCallReads({ ...base, number: b.blockOverrides.number, timestamp: b.blockOverrides.time, parentBeaconBlockRoot: ZERO_HASH }),
    ...(b.blockOverrides.coinbase ? [{ address: b.blockOverrides.coinbase.toLowerCase() as Address, storageKeys: [] }] : []),
  ])
}
