/**
 * The OP-stack rules (specs: protocol/deposits, protocol/exec-engine; op-revm handler.rs is the
 * executable reference): selected once per chain by its kind (engine/chains/rules.ts), applied by
 * executeTransaction to every transaction any operation runs.
 *
 * - deposits (type 0x7e): `mint` credited before the call and kept when it fails, no signature,
 *   no fee, no nonce check; a deposit the VM refuses (value beyond the balance, gas below the
 *   intrinsic cost) still bumps the nonce and uses its whole gas limit; Regolith on, gas is
 *   accounted as for any transaction; before it a deposit reports its gas limit (a system
 *   deposit 0);
 * - every other transaction pays the L1 data fee (and from Isthmus the operator fee on its gas
 *   limit) up front, out of the sender's balance, after the tracers' start as op-geth's buyGas;
 *   after the run the operator fee of the unused gas is refunded, the L1 fee goes to the L1 fee
 *   vault, the base fee to the base fee vault (not burnt), the operator fee to its vault; the tip
 *   goes to the block's coinbase as on Ethereum (the sequencer fee vault on a real chain);
 * - a call without a gas price pays nothing (eth_call semantics); a call with one pays the L1 fee
 *   of its unsigned bytes plus a signature's 68 bytes, as the GasPriceOracle's getL1Fee prices an
 *   unsigned transaction (docs/decisions/0068-op-stack-l1-fee-of-a-call.md);
 * - the EVM of the fork (forks.ts), with P256VERIFY at 0x100 for 3450 gas from Fjord (RIP-7212),
 *   the bn254 pairing input limit from Granite and the BLS12-381 MSM and pairing input limits
 *   from Isthmus, lower from Jovian (op-revm precompiles.rs).
 */
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { toQuantity as hexOf } from '../../../platform/quantity.js'
import { EVMError, getActivePrecompiles, type EVMOpts, type ExecResult, type PrecompileFunc, type PrecompileInput } from '@ethereumjs/evm'
import { RLP } from '@ethereumjs/rlp'
import type { TypedTransaction } from '@ethereumjs/tx'
import { Account, Address as EjsAddress, bytesToHex, hexToBytes } from '@ethereumjs/util'
import type { Address } from 'viem'
import { OP_INPUT_LIMIT_ERRORS } from '../../../../tracers/gethErrors.js'
import { EngineError } from '../../../platform/errors.js'
import { createCommonFactory } from '../../../platform/hardfork.js'
import type { ExecutionContext } from '../../../execution/types.js'
import type { ChainRules, FeeRun, FeeSettlement, RollupFees, SpecialRun } from '../../rules.js'
import { decodeOpExtraData, encodeOpExtraData, opNextBaseFee } from './baseFee.js'
import { decodeDeposit, decodeDepositBytes, depositBytes, depositJson, depositOf, DEPOSIT_TX_TYPE, encodeDeposit } from './deposit.js'
import { l1InfoDeposit } from './l1Info.js'
import { ethereumForkOf, isOpFork, opActive, opForkAt, opScheduleOf, OP_FORKS, type OpFork } from './forks.js'
import {
  BASE_FEE_VAULT,
  L1_FEE_VAULT,
  OPERATOR_FEE_VAULT,
  SEQUENCER_FEE_VAULT,
  daFootprint,
  fjordEstimatedSize,
  l1Cost,
  operatorFee,
  readL1BlockInfo,
  type L1BlockInfo,
  type L1Cost,
} from './l1Fee.js'

/** the fork an OP-stack chain of unknown schedule runs when none is configured */
export const DEFAULT_OP_FORK: OpFork = 'isthmus'

export interface OpStackRulesOptions {
  chainId: number
  /** an OP fork name: every block runs it; undefined: the known chain's schedule, else DEFAULT_OP_FORK */
  hardfork?: string
}

export interface OpStackRules extends ChainRules {
  /** the OP fork of a block */
  forkAt(block: { timestamp: bigint }): OpFork
}

const SIGNATURE_BYTES = 68

export function createOpStackRules(opts: OpStackRulesOptions): OpStackRules {
  const forkAt = forkScheduleOf(opts)
  return {
    kind: 'op-stack',
    forkAt,
    commonFactory: commonFactoryFor(opts.chainId, forkAt),
    decodeTx: decodeDeposit,
    chargeFees: (run) => chargeFees(forkAt, run),
    specialRun: (tx, ctx) => depositRun(forkAt, tx, ctx),
    precompiles: (common, block) => opPrecompiles(common, forkAt(block)),
    feeRecipients: [L1_FEE_VAULT, BASE_FEE_VAULT, OPERATOR_FEE_VAULT],
    blockCoinbase: SEQUENCER_FEE_VAULT,
    nextBaseFee: (parent) => opNextBaseFee(parent, forkAt(parent)),
    minedExtraData(parent, block) {
      const params = decodeOpExtraData(parent.extraData, forkAt(parent))
      return params && encodeOpExtraData(params, forkAt(block))
    },
    minedExcessBlobGas: 0n,
    daFootprintMeter: (block, starts) => (opActive(forkAt(block), 'jovian') ? daFootprintMeter(starts) : undefined),
    blockStartTxs: async (state, block) => [encodeDeposit(await l1InfoDeposit(state, forkAt(block)))],
    decodeRaw: (bytes, common) => (bytes[0] === DEPOSIT_TX_TYPE ? decodeDepositBytes(bytes, common) : undefined),
    txJsonFields: depositJson,
    encodeTx: depositBytes,
    receiptFields: async ({ ctx, tx, fees, nonceBefore, daFootprint }) =>
      opReceiptFields(forkAt(ctx.block), depositOf(tx) !== undefined, await readL1BlockInfo(ctx.state, forkAt(ctx.block)), fees, nonceBefore, daFootprint),
  }
}

type ForkAt = (block: { timestamp: bigint }) => OpFork

/** the OP fork of a block: the operator's fixed fork, else the known chain's schedule, else DEFAULT_OP_FORK */
function forkScheduleOf(opts: OpStackRulesOptions): ForkAt {
  if (opts.hardfork !== undefined && !isOpFork(opts.hardfork)) {
    throw new EngineError('VALIDATION_ERROR', `unsupported OP-stack hardfork '${opts.hardfork}'; supported: ${OP_FORKS.join(', ')}`)
  }
  const fixed = opts.hardfork as OpFork | undefined
  const schedule = fixed ? undefined : opScheduleOf(opts.chainId)
  return (block) => fixed ?? (schedule ? opForkAt(schedule, block.timestamp) : DEFAULT_OP_FORK)
}

/** a block's Common: one factory per Ethereum fork the OP forks map to, made when first needed */
function commonFactoryFor(chainId: number, forkAt: ForkAt) {
  const factories = new Map<string, ReturnType<typeof createCommonFactory>>()
  return (at: { number: bigint; timestamp: bigint }) => {
    const eth = ethereumForkOf(forkAt(at))
    let f = factories.get(eth)
    if (!f) factories.set(eth, (f = createCommonFactory(chainId, eth)))
    return f(at)
  }
}

async function credit(state: ExecutionContext['state'], to: Address, amount: bigint): Promise<void> {
  // a zero credit leaves an absent vault absent (op-revm's balance_incr of 0 touches nothing real)
  if (amount === 0n) return
  const address = new EjsAddress(hexToBytes(to))
  const account = (await state.getAccount(address)) ?? new Account()
  account.balance += amount
  await state.putAccount(address, account)
}

/**
 * A transaction's L1 fee and the operator fee on its gas limit, charged before it runs; its
 * settlement, once its gas is known, refunds the operator fee on the gas unused and pays the vaults.
 */
async function chargeFees(forkAt: ForkAt, run: FeeRun): Promise<FeeSettlement | undefined> {
  if (!run.paysFees || depositOf(run.tx)) return undefined
  const { ctx, tx, sender } = run
  const fork = forkAt(ctx.block)
  const info = await readL1BlockInfo(ctx.state, fork)
  const cost = run.impersonated ? unsignedL1Cost(info, fork, tx) : l1Cost(info, fork, tx.serialize())
  const operatorOnLimit = operatorFee(info, fork, tx.gasLimit)
  const upfront = cost.l1Fee + operatorOnLimit
  const account = (await ctx.state.getAccount(sender)) ?? new Account()
  if (account.balance < upfront) {
    throw new EngineError(
      'VALIDATION_ERROR',
      `insufficient funds for l1 fee + operator fee: address ${sender.toString()} have ${account.balance} want ${upfront}`,
      { l1Fee: hexOf(cost.l1Fee), operatorFee: hexOf(operatorOnLimit) },
    )
  }
  if (upfront > 0n) {
    account.balance -= upfront
    await ctx.state.putAccount(sender, account)
  }
  return async (receiptGas) => {
    const operatorOnUsed = operatorFee(info, fork, receiptGas)
    await credit(ctx.state, sender.toString() as Address, operatorOnLimit - operatorOnUsed)
    await credit(ctx.state, L1_FEE_VAULT, cost.l1Fee)
    await credit(ctx.state, BASE_FEE_VAULT, run.baseFee * receiptGas)
    await credit(ctx.state, OPERATOR_FEE_VAULT, operatorOnUsed)
    return { l1Fee: cost.l1Fee, l1GasUsed: cost.l1GasUsed, operatorFee: operatorOnUsed }
  }
}

/** a deposit's own way through the run: its mint credited first, its gas as its fork counts it, a rejected one still bumping the nonce */
function depositRun(forkAt: ForkAt, tx: TypedTransaction, ctx: ExecutionContext): SpecialRun | undefined {
  const deposit = depositOf(tx)
  if (!deposit) return undefined
  const fork = forkAt(ctx.block)
  if (deposit.isSystemTx && opActive(fork, 'regolith')) {
    throw new EngineError('VALIDATION_ERROR', 'a system deposit transaction is invalid from Regolith on')
  }
  const from = tx.getSenderAddress()
  return {
    async before(state) {
      await credit(state, from.toString() as Address, deposit.mint)
    },
    receiptGas(evmGas) {
      if (opActive(fork, 'regolith')) return evmGas
      return deposit.isSystemTx ? 0n : tx.gasLimit
    },
    async onRejected(state, reason) {
      const account = (await state.getAccount(from)) ?? new Account()
      account.nonce += 1n
      await state.putAccount(from, account)
      return { gasUsed: opActive(fork, 'regolith') || !deposit.isSystemTx ? tx.gasLimit : 0n, error: `failed deposit: ${reason}` }
    },
  }
}

/** a Jovian block's DA footprint of each transaction, scaled by the scalar its L1 attributes deposit (`starts[0]`) sets */
function daFootprintMeter(starts: TypedTransaction[]) {
  const scalar = jovianDaScalarOf(starts[0]?.data)
  return (tx: TypedTransaction, impersonated: boolean): bigint => {
    if (depositOf(tx)) return 0n
    if (!impersonated) return daFootprint(tx.serialize(), scalar)
    return (fjordEstimatedSize(unsignedBytes(tx), SIGNATURE_BYTES) / 1_000_000n) * scalar
  }
}

/**
 * The fields op-geth adds to a receipt (core/types/receipt.go deriveFields, internal/ethapi
 * marshalReceipt): a deposit's nonce (its sender's nonce before it ran) and, from Canyon, its
 * receipt version 1; every other transaction's L1 fee, the L1 base fee as `l1GasPrice`, the L1
 * gas, before Ecotone the scalar as a decimal `l1FeeScalar`, from Ecotone the two scalars and the
 * blob base fee, from Isthmus the operator fee parameters, from Jovian the block's DA footprint gas
 * scalar and, as `blobGasUsed`, the transaction's DA footprint (specs: jovian/exec-engine
 * "Receipts").
 */
function opReceiptFields(
  fork: OpFork,
  deposit: boolean,
  info: L1BlockInfo,
  fees: RollupFees | undefined,
  nonceBefore: bigint,
  daFootprint: bigint | undefined,
): Record<string, unknown> {
  if (deposit) return { depositNonce: hexOf(nonceBefore), ...(opActive(fork, 'canyon') && { depositReceiptVersion: '0x1' }) }
  const out: Record<string, unknown> = {
    l1GasPrice: hexOf(info.l1BaseFee),
    l1GasUsed: hexOf(fees?.l1GasUsed ?? 0n),
    l1Fee: hexOf(fees?.l1Fee ?? 0n),
  }
  if (!opActive(fork, 'ecotone')) {
    out.l1FeeScalar = String(Number(info.baseFeeScalar) / 1e6)
    return out
  }
  Object.assign(out, { l1BaseFeeScalar: hexOf(info.baseFeeScalar), l1BlobBaseFee: hexOf(info.blobBaseFee), l1BlobBaseFeeScalar: hexOf(info.blobBaseFeeScalar) })
  if (opActive(fork, 'isthmus')) Object.assign(out, { operatorFeeScalar: hexOf(info.operatorFeeScalar), operatorFeeConstant: hexOf(info.operatorFeeConstant) })
  if (opActive(fork, 'jovian')) {
    out.daFootprintGasScalar = hexOf(info.daFootprintGasScalar)
    if (daFootprint !== undefined) out.blobGasUsed = hexOf(daFootprint)
  }
  return out
}

/**
 * The L1 fee of an unsigned transaction as the GasPriceOracle's getL1Fee prices it: its bytes
 * plus a signature's 68 (counted as non-zero bytes before Fjord, as compressed bytes from Fjord).
 */
function unsignedL1Cost(info: L1BlockInfo, fork: OpFork, tx: TypedTransaction): L1Cost {
  const unsigned = unsignedBytes(tx)
  if (!opActive(fork, 'fjord')) {
    // the same formula over the bytes with 68 non-zero bytes appended
    return l1Cost(info, fork, concat(unsigned, new Uint8Array(SIGNATURE_BYTES).fill(0xff)))
  }
  const estimate = fjordEstimatedSize(unsigned, SIGNATURE_BYTES)
  const scaled = info.l1BaseFee * 16n * info.baseFeeScalar + info.blobBaseFee * info.blobBaseFeeScalar
  return { l1Fee: (estimate * scaled) / 1_000_000_000_000n, l1GasUsed: (estimate * 16n) / 1_000_000n }
}

function unsignedBytes(tx: TypedTransaction): Uint8Array {
  const message = tx.getMessageToSign()
  return Array.isArray(message) ? RLP.encode(message) : message
}

/**
 * The DA footprint gas scalar an L1 attributes deposit's calldata carries: the last two bytes of
 * `setL1BlockValuesJovian`'s 178 (op-geth core/types/rollup_cost.go ExtractDAFootprintGasScalar);
 * 0 for an older layout (the Jovian activation block's Isthmus one, whose footprint is 0).
 */
function jovianDaScalarOf(data: Uint8Array | undefined): bigint {
  if (!data || data.length < JOVIAN_L1_ATTRIBUTES_LEN || bytesToHex(data.subarray(0, 4)) !== JOVIAN_L1_ATTRIBUTES_SELECTOR) return 0n
  return BigInt((data[JOVIAN_L1_ATTRIBUTES_LEN - 2]! << 8) | data[JOVIAN_L1_ATTRIBUTES_LEN - 1]!)
}
const JOVIAN_L1_ATTRIBUTES_LEN = 178
const JOVIAN_L1_ATTRIBUTES_SELECTOR = '0x3db6be2b'

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}

const P256_ADDRESS = '0000000000000000000000000000000000000100'
/** RIP-7212's price (EIP-7951, Ethereum's Osaka, charges 6900) */
const RIP7212_GAS = 3450n

/** ethereumjs' own P256 verification (EIP-7951), taken from an Osaka table once */
let p256Verify: PrecompileFunc | undefined
function osakaP256(): PrecompileFunc {
  if (!p256Verify) p256Verify = getActivePrecompiles(new Common({ chain: Mainnet, hardfork: Hardfork.Osaka })).get(P256_ADDRESS)!
  return p256Verify
}

const outOfGas = (gasLimit: bigint): ExecResult => ({
  returnValue: new Uint8Array(0),
  executionGasUsed: gasLimit,
  exceptionError: new EVMError(EVMError.errorMessages.OUT_OF_GAS),
})

/**
 * An OP fork's input size limit on a precompile of variable input: from `since` on (Granite for
 * the bn254 pairing, Isthmus for the BLS12-381 MSMs and pairing), with Jovian's lower limit from
 * Jovian on. The numbers are op-revm's (crates/op-revm/src/precompiles.rs, `bn254_pair` and
 * `bls12_381` modules, in bluealloy/revm until op-revm moved to the optimism monorepo), the same
 * as op-geth's (params/protocol_params.go, core/vm/contracts.go `…Granite`, `…Isthmus`, `…Jovian`)
 * and the specs' (isthmus/exec-engine "BLS Precompiles", jovian/exec-engine "Precompile Input
 * Size Restrictions").
 */
interface InputLimit {
  address: string
  since: OpFork
  limit: number
  jovianLimit: number
  /** op-geth's error once the gas is paid */
  error: string
  /** the precompile's price of an input of `length` bytes (over the limit, so past every discount step) */
  requiredGas(length: number): bigint
}

/**
 * The prices: EIP-1108's bn254 pairing; EIP-2537's MSMs (pairs × per-pair price × discount / 1000,
 * the discount table's last entry from 128 pairs on, and every input over an OP limit has more
 * pairs) and pairing.
 */
const BN254_PAIRING_GAS = { base: 45_000n, perPair: 34_000n }
const G1_MSM_GAS = { perPair: 12_000n, discount: 519n }
const G2_MSM_GAS = { perPair: 22_500n, discount: 524n }
const BLS_PAIRING_GAS = { base: 37_700n, perPair: 32_600n }
const pairs = (length: number, size: number): bigint => BigInt(Math.floor(length / size))

const INPUT_LIMITS: InputLimit[] = [
  {
    address: '0000000000000000000000000000000000000008',
    since: 'granite',
    limit: 112_687,
    jovianLimit: 81_984,
    error: OP_INPUT_LIMIT_ERRORS.bn254Pairing,
    requiredGas: (n) => BN254_PAIRING_GAS.base + pairs(n, 192) * BN254_PAIRING_GAS.perPair,
  },
  {
    address: '000000000000000000000000000000000000000c',
    since: 'isthmus',
    limit: 513_760,
    jovianLimit: 288_960,
    error: OP_INPUT_LIMIT_ERRORS.g1Msm,
    requiredGas: (n) => (pairs(n, 160) * G1_MSM_GAS.perPair * G1_MSM_GAS.discount) / 1000n,
  },
  {
    address: '000000000000000000000000000000000000000e',
    since: 'isthmus',
    limit: 488_448,
    jovianLimit: 278_784,
    error: OP_INPUT_LIMIT_ERRORS.g2Msm,
    requiredGas: (n) => (pairs(n, 288) * G2_MSM_GAS.perPair * G2_MSM_GAS.discount) / 1000n,
  },
  {
    address: '000000000000000000000000000000000000000f',
    since: 'isthmus',
    limit: 235_008,
    jovianLimit: 156_672,
    error: OP_INPUT_LIMIT_ERRORS.blsPairing,
    requiredGas: (n) => BLS_PAIRING_GAS.base + pairs(n, 384) * BLS_PAIRING_GAS.perPair,
  },
]

/**
 * The precompile of `common`'s table at `limit.address`, refusing an input over the fork's limit
 * before reading it. Past the limit the call fails and uses all the gas it was given, as in
 * op-revm (a halt) and op-geth (an error after the gas is charged); the error is op-geth's text,
 * or "out of gas" when the gas does not even cover the precompile's price.
 */
function limitedPrecompile(common: Common, fork: OpFork, limit: InputLimit): { address: EjsAddress; function: PrecompileFunc } | undefined {
  const inner = getActivePrecompiles(common).get(limit.address)
  if (!inner) return undefined
  const max = opActive(fork, 'jovian') ? limit.jovianLimit : limit.limit
  return {
    address: new EjsAddress(hexToBytes(`0x${limit.address}`)),
    function: async (input: PrecompileInput): Promise<ExecResult> => {
      if (input.data.length <= max) return inner(input)
      if (input.gasLimit < limit.requiredGas(input.data.length)) return outOfGas(input.gasLimit)
      return {
        returnValue: new Uint8Array(0),
        executionGasUsed: input.gasLimit,
        exceptionError: new EVMError(limit.error as ConstructorParameters<typeof EVMError>[0]),
      }
    },
  }
}

function opPrecompiles(common: Common, fork: OpFork): NonNullable<EVMOpts['customPrecompiles']> | undefined {
  if (!opActive(fork, 'fjord')) return undefined
  const out: NonNullable<EVMOpts['customPrecompiles']> = []
  const verify = osakaP256()
  out.push({
    address: new EjsAddress(hexToBytes(`0x${P256_ADDRESS}`)),
    function: async (input: PrecompileInput): Promise<ExecResult> => {
      if (input.gasLimit < RIP7212_GAS) return outOfGas(input.gasLimit)
      const r = await verify({ ...input, gasLimit: 1n << 62n })
      return { ...r, executionGasUsed: RIP7212_GAS }
    },
  })
  for (const limit of INPUT_LIMITS) {
    if (!opActive(fork, limit.since)) continue
    const wrapped = limitedPrecompile(common, fork, limit)
    if (wrapped) out.push(wrapped)
  }
  return out
}
