/**
 * executeTransaction: runs one transaction in a fresh, per-request ethereumjs VM over
 * `ctx.state` (its writes stay there, so the calls of a bundle carry state), through `runTx` so
 * intrinsic gas, refunds and the EIP-7623 floor are exact (receipt gas = totalGasSpent), with
 * every tracer fed through the one adapter (tracingAdapter.ts).
 *
 * Semantics (interface §3, geth-reference.md §1.2):
 * - validation=false (default, geth eth_call): no nonce check; a call with no fee fields runs with
 *   base fee 0; no block gas limit check; value + gas × price must still be covered.
 * - validation=true: nonce must match, fees vs base fee, funds, block gas limit.
 * - a call without gas gets the block gas limit; the operations give every call its gas first
 *   (engine/run/callDefaults.ts, where geth's RPC gas cap applies).
 * Invalid transactions throw EngineError VALIDATION_ERROR / INSUFFICIENT_GAS (validateTx.ts).
 *
 * No tracer → no event listener at all: ethereumjs builds a step object per opcode only when
 * someone listens, and that is the slow part.
 *
 * @example
 * const r = await executeCall(ctx, { from, to, data: '0x' }, { tracers: [createCallTracer({})] })
 * r.status // 'success'
 */
import type { Common } from '@ethereumjs/common'
import { getActivePrecompiles, type EVMOpts, type Message } from '@ethereumjs/evm'
import { Capability, getCalldataFloorGas, type TypedTransaction } from '@ethereumjs/tx'
import { Address as EjsAddress, KECCAK256_NULL, bytesToHex, equalsBytes, hexToBytes } from '@ethereumjs/util'
import { createVM, runTx, type RunTxResult } from '@ethereumjs/vm'
import type { Address, Hex } from 'viem'
import { EngineError, isEngineError, toEngineError } from '../platform/errors.js'
import { toGethError } from '../../tracers/gethErrors.js'
import { blockHashSource, buildEvmBlock } from './evmBlock.js'
import './evmTables.js'
import { createImpersonatedTx } from './impersonatedTx.js'
import { preparedCommon } from './preparedCommon.js'
import { checkRunStop, watchRunStop } from './runStop.js'
import { senderAsEoa } from './senderAsEoa.js'
import { TracingAdapter, attachAdapter } from './tracingAdapter.js'
import { buildTxContext } from './txContext.js'
import type { ExecuteCall, ExecuteOptions, ExecuteSignedTx, ExecutionContext, ExecutionLog, ExecutionResult } from './types.js'
import { feeFields, validateTx } from './validateTx.js'

const DELEGATION_PREFIX = new Uint8Array([0xef, 0x01, 0x00])
const lower = (a: EjsAddress): Address => a.toString().toLowerCase() as Address

export const executeCall: ExecuteCall = async (ctx, call, opts = {}) => {
  const common = preparedCommon(ctx.common)
  let sender: EjsAddress
  try {
    sender = new EjsAddress(hexToBytes(call.from))
  } catch {
    throw new EngineError('VALIDATION_ERROR', `invalid from address: ${call.from}`)
  }
  const nonce = call.nonce ?? (await ctx.state.getAccount(sender))?.nonce ?? 0n
  const gasLimit = call.gas ?? ctx.block.gasLimit
  const tx = createImpersonatedTx(common, { call, nonce, gasLimit })
  return run(ctx, common, tx, sender, opts, true)
}

export const executeSignedTx: ExecuteSignedTx = async (ctx, tx, opts = {}) => {
  const common = preparedCommon(ctx.common)
  // intrinsic gas is priced by the tx's own Common: make it the block's fork
  if (tx.common.hardfork() !== common.hardfork()) tx.common.setHardfork(common.hardfork())
  let sender: EjsAddress
  try {
    sender = tx.getSenderAddress()
  } catch (e) {
    throw new EngineError('VALIDATION_ERROR', `invalid transaction signature: ${(e as Error).message.split(' (tx type')[0]}`)
  }
  return run(ctx, common, tx, sender, opts, false)
}

/**
 * One transaction through runTx: priced against the block, validated (unless the chain runs it
 * by its own rules), in a VM over the sender's view of the state, traced when tracers are given,
 * with the chain's own fees charged and settled around it.
 */
async function run(
  ctx: ExecutionContext,
  common: Common,
  tx: TypedTransaction,
  sender: EjsAddress,
  opts: ExecuteOptions,
  impersonated: boolean,
): Promise<ExecutionResult> {
  // a request given up starts no more runs (the next call of a bundle, the next probe of a search)
  checkRunStop(ctx.stop)
  const validation = opts.validation ?? false
  // a transaction the chain runs by its own rules (an OP deposit): no signature, fee or nonce check
  const special = ctx.rules?.specialRun?.(tx, ctx)
  const price = priceOf(ctx, common, tx, validation, special)
  const { baseFee, noBaseFee, block } = price
  const account = await ctx.state.getAccount(sender)
  if (!special)
    validateTx({
      tx,
      sender,
      senderBalance: account?.balance ?? 0n,
      senderNonce: account?.nonce ?? 0n,
      common,
      baseFee,
      noBaseFee,
      blobGasPrice: block.header.getBlobGasPrice(),
      validation,
      blockGasLimit: ctx.block.gasLimit,
      blockGasUsed: opts.blockGasUsed ?? 0n,
    })
  const view = await senderView(ctx, common, sender, account, impersonated)
  const vm = await vmFor(ctx, common, view?.state ?? ctx.state, opts, tx, sender)
  onTopMessage(vm, special && price.london ? () => ((block.header as { baseFeePerGas?: bigint }).baseFeePerGas = ctx.block.baseFeePerGas ?? 0n) : undefined)
  onTopMessage(vm, view?.release)
  const adapter = opts.tracers?.length ? await startTracing(ctx, common, tx, sender, opts, price, special, view?.state ?? ctx.state, vm) : undefined

  // what the chain charges besides gas (an OP-stack L1 fee), after the tracers' start; a deposit's mint
  const settle = special ? undefined : await ctx.rules?.chargeFees?.({ ctx, tx, sender, impersonated, baseFee: baseFee ?? 0n, paysFees: !noBaseFee })
  if (special) await special.before(ctx.state)

  let result: RunTxResult
  try {
    result = await runTx(vm, {
      tx,
      block,
      skipNonce: !validation || special !== undefined,
      skipBlockGasLimitValidation: !validation,
      skipHardForkValidation: true,
      // no caller reads the tx's bloom or receipt (eth_simulateV1's header makes its own bloom):
      // hashing each log's address and topics was about 2% of a traced swap (patches/@ethereumjs+vm+*)
      skipLogsBloom: true,
      blockGasUsed: opts.blockGasUsed,
    })
  } catch (e) {
    if (!special || isEngineError(e)) throw asEngineError(e)
    return rejectedDeposit(ctx, special, adapter, e)
  }
  await wrapNonce(ctx.state, sender)
  return finish(common, tx, sender, result, special, settle, adapter)
}

/**
 * The fee fields and the block a run sees: geth eth_call runs a zero-fee message with base fee 0
 * (NoBaseFee); a special run pays no fee, so runTx must see base fee 0 (BASEFEE reads the block's
 * once it runs, onTopMessage).
 */
function priceOf(ctx: ExecutionContext, common: Common, tx: TypedTransaction, validation: boolean, special: SpecialRun | undefined) {
  const { feeCap, tip } = feeFields(tx)
  const london = common.isActivatedEIP(1559)
  const noBaseFee = !validation && feeCap === 0n && tip === 0n
  const baseFee = london ? (noBaseFee ? 0n : (ctx.block.baseFeePerGas ?? 0n)) : undefined
  const block = buildEvmBlock(ctx.block, common, { baseFeePerGas: special && london ? 0n : baseFee })
  return { feeCap, tip, london, noBaseFee, baseFee, block }
}

type Price = ReturnType<typeof priceOf>
type Rules = NonNullable<ExecutionContext['rules']>
/** a transaction the chain runs by its own rules (an OP deposit) */
type SpecialRun = NonNullable<ReturnType<NonNullable<Rules['specialRun']>>>
/** the chain's fees besides gas, settled once the gas is known */
type FeeSettlement = NonNullable<Awaited<ReturnType<NonNullable<Rules['chargeFees']>>>>
type Account = Awaited<ReturnType<ExecutionContext['state']['getAccount']>>

/**
 * A called sender with code (not a 7702 delegation) seen as an account without code until its
 * call starts: geth skips EIP-3607 for calls, runTx does not. Undefined when the state is read as it is.
 */
async function senderView(ctx: ExecutionContext, common: Common, sender: EjsAddress, account: Account, impersonated: boolean) {
  if (!impersonated || !account || equalsBytes(account.codeHash, KECCAK256_NULL)) return undefined
  const code = await ctx.state.getCode(sender)
  if (common.isActivatedEIP(7702) && equalsBytes(code.subarray(0, 3), DELEGATION_PREFIX)) return undefined
  return senderAsEoa(ctx.state, sender, account.codeHash)
}

/** a fresh VM over `state`, with the chain's precompiles and the call's moved ones, stopping where the request says */
async function vmFor(ctx: ExecutionContext, common: Common, state: ExecutionContext['state'], opts: ExecuteOptions, tx: TypedTransaction, sender: EjsAddress) {
  const chainPrecompiles = ctx.rules?.precompiles?.(common, ctx.block) ?? []
  const changed = opts.precompiles ? customPrecompiles(common, opts.precompiles) : []
  const vm = await createVM({
    common,
    stateManager: state,
    blockchain: blockHashSource(ctx.getBlockHash),
    ...(chainPrecompiles.length + changed.length > 0 && { evmOpts: { customPrecompiles: [...chainPrecompiles, ...changed] } }),
  })
  if (ctx.stop) watchRunStop(vm.evm, ctx.stop)
  if (opts.precompiles) coldMovedPrecompiles(vm.evm.journal, opts.precompiles, tx, sender, ctx.block.coinbase)
  return vm
}

type Vm = Awaited<ReturnType<typeof createVM>>

/** `fn` runs as the transaction's top call starts (nothing when there is none) */
function onTopMessage(vm: Vm, fn: (() => unknown) | undefined): void {
  if (!fn) return
  const events = vm.evm.events as unknown as { on(name: string, fn: (data: never, resolve: (v?: unknown) => void) => void): unknown }
  events.on('beforeMessage', (m: Message, resolve) => {
    if (m.depth === 0) fn()
    resolve()
  })
}

/** the tracers fed through one adapter, started on the transaction before anything is charged */
async function startTracing(
  ctx: ExecutionContext,
  common: Common,
  tx: TypedTransaction,
  sender: EjsAddress,
  opts: ExecuteOptions,
  { feeCap, tip, baseFee, noBaseFee }: Price,
  special: SpecialRun | undefined,
  state: ExecutionContext['state'],
  vm: Vm,
): Promise<TracingAdapter> {
  const price = tx.supports(Capability.EIP1559FeeMarket) ? min(feeCap, (baseFee ?? 0n) + tip) : feeCap
  const adapter = new TracingAdapter(
    opts.tracers!,
    common,
    buildTxContext(ctx, common, tx, sender, price, special || noBaseFee ? undefined : ctx.rules?.feeRecipients),
    {
      logIndexBase: opts.logIndexBase,
      deadline: opts.deadline,
    },
  )
  adapter.bindState(state)
  await adapter.txStart()
  attachAdapter(vm.evm, adapter)
  return adapter
}

/**
 * The VM refused a deposit (value beyond its balance, gas below the intrinsic cost): it still
 * lands, the mint kept, the nonce bumped, its gas used.
 */
async function rejectedDeposit(ctx: ExecutionContext, special: SpecialRun, adapter: TracingAdapter | undefined, e: unknown): Promise<ExecutionResult> {
  const refused = await special.onRejected(ctx.state, asEngineError(e).message)
  if (adapter) await adapter.txEnd(refused.gasUsed, new Uint8Array(), 'revert')
  return { status: 'failed', gasUsed: refused.gasUsed, returnData: '0x', logs: [], error: refused.error, peakGasUsed: refused.gasUsed }
}

/** the run's result: its receipt gas as the chain counts it, the chain's fees settled, the tracers ended, its peak gas */
async function finish(
  common: Common,
  tx: TypedTransaction,
  sender: EjsAddress,
  result: RunTxResult,
  special: SpecialRun | undefined,
  settle: FeeSettlement | undefined,
  adapter: TracingAdapter | undefined,
): Promise<ExecutionResult> {
  const exec = result.execResult
  const ejsError = exec.exceptionError?.error
  if (special) result.totalGasSpent = special.receiptGas(result.totalGasSpent, ejsError !== undefined)
  const rollupFees = settle ? await settle(result.totalGasSpent) : undefined
  if (adapter) await adapter.txEnd(result.totalGasSpent, exec.returnValue, ejsError)
  const out = toExecutionResult(result, ejsError, adapter?.topError)
  if (rollupFees) out.rollupFees = rollupFees
  const beforeRefund = exec.executionGasUsed + tx.getIntrinsicGas()
  const floor = common.isActivatedEIP(7623) ? getCalldataFloorGas(tx, sender) : 0n
  out.peakGasUsed = max(max(beforeRefund, floor), out.gasUsed)
  return out
}

/**
 * A call from a sender at nonce 2^64 - 1 (only reachable with a state override and no nonce
 * checks) bumps it past a uint64: geth's nonce wraps to 0, ethereumjs' bigint to 2^64.
 */
async function wrapNonce(state: ExecutionContext['state'], sender: EjsAddress): Promise<void> {
  const account = await state.getAccount(sender)
  if (account && account.nonce > MAX_NONCE) {
    account.nonce = 0n
    await state.putAccount(sender, account)
  }
}

const MAX_NONCE = 2n ** 64n - 1n

/**
 * geth warms the fork's precompile addresses (vm.ActivePrecompiles(rules)), not a moved
 * precompile's new address; runTx warms every key of the EVM's table. So the new addresses are
 * kept out of the always-warm set, unless the tx warms them anyway (recipient, sender, coinbase).
 */
function coldMovedPrecompiles(
  journal: { addAlwaysWarmAddress(address: string, addToAccessList?: boolean): void },
  change: NonNullable<ExecuteOptions['precompiles']>,
  tx: TypedTransaction,
  sender: EjsAddress,
  coinbase: Address,
): void {
  const keep = new Set([tx.to?.toString(), sender.toString(), coinbase].filter(Boolean).map((a) => a!.toLowerCase().replace(/^0x/, '')))
  const cold = new Set(change.moved.map((m) => m.to.slice(2)).filter((a) => !keep.has(a)))
  if (cold.size === 0) return
  const warm = journal.addAlwaysWarmAddress.bind(journal)
  journal.addAlwaysWarmAddress = (address, addToAccessList) => {
    if (!addToAccessList && cold.has(address.toLowerCase().replace(/^0x/, ''))) return
    warm(address, addToAccessList)
  }
}

/** ethereumjs's custom precompiles for a changed table: an entry without a function deletes one */
function customPrecompiles(common: Common, change: NonNullable<ExecuteOptions['precompiles']>): NonNullable<EVMOpts['customPrecompiles']> {
  const active = getActivePrecompiles(common)
  const out: NonNullable<EVMOpts['customPrecompiles']> = []
  const moved = new Set(change.moved.map((m) => m.to))
  for (const a of change.removed) if (!moved.has(a)) out.push({ address: new EjsAddress(hexToBytes(a)) })
  for (const m of change.moved) {
    const fn = active.get(m.from.slice(2))
    out.push(fn ? { address: new EjsAddress(hexToBytes(m.to)), function: fn } : { address: new EjsAddress(hexToBytes(m.to)) })
  }
  return out
}

/** `tracedError`: the adapter's geth string, which knows the failing step (stack sizes, opcode) */
function toExecutionResult(result: RunTxResult, ejsError: string | undefined, tracedError: string | undefined): ExecutionResult {
  const exec = result.execResult
  const logs: ExecutionLog[] = (exec.logs ?? []).map(([address, topics, data]) => ({
    address: bytesToHex(address).toLowerCase() as Address,
    topics: topics.map((t) => bytesToHex(t) as Hex),
    data: bytesToHex(data) as Hex,
  }))
  const out: ExecutionResult = {
    status: ejsError === undefined ? 'success' : ejsError === 'revert' ? 'reverted' : 'failed',
    gasUsed: result.totalGasSpent,
    returnData: bytesToHex(exec.returnValue) as Hex,
    logs,
    peakGasUsed: result.totalGasSpent,
    gasRefund: result.gasRefund,
  }
  if (ejsError !== undefined) out.error = tracedError ?? toGethError(ejsError)
  if (ejsError === undefined && result.createdAddress) out.createdAddress = lower(result.createdAddress)
  return out
}

/** what runTx itself rejects (after our checks) is still the caller's transaction's fault */
function asEngineError(e: unknown): EngineError {
  if (isEngineError(e)) return toEngineError(e)
  const msg = e instanceof Error ? e.message : String(e)
  const clean = msg.split(' (tx type')[0]!.split(' -> ')[0]!
  if (/INTRINSIC_GAS|gas limit/i.test(clean)) return new EngineError('INSUFFICIENT_GAS', clean)
  if (/nonce|funds|fee|EIP-3607|EOA|hardfork|EIP \d+ is not activated|blob/i.test(clean)) return new EngineError('VALIDATION_ERROR', clean)
  return new EngineError('INTERNAL_ERROR', `execution failed: ${clean}`)
}

const min = (a: bigint, b: bigint): bigint => (a < b ? a : b)
const max = (a: bigint, b: bigint): bigint => (a > b ? a : b)
