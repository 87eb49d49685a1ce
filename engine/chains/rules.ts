/**
 * ChainRules: what a chain's kind changes in how the engine runs its transactions, in one place
 * (design: "its kind decides the rules the engine applies"). Every operation runs transactions
 * through engine/execution/executeTransaction.ts, and that is the only code that asks the rules:
 * no operation special-cases a chain.
 *
 * - `ethereum`: no rules (the default): Ethereum's own fee model and transaction types.
 * - `op-stack`: deposit transactions, the L1 data and operator fees, fee vaults, the OP forks'
 *   EVM changes (engine/chains/rollups/opStack/).
 * - `arbitrum`: not emulated; its own transaction types and ArbOS precompiles answer NOT_EMULATED
 *   (engine/chains/rollups/arbitrum.ts).
 *
 * @example
 * const rules = chainRulesFor({ chainId: 10 }) // OP Mainnet: op-stack by its id
 */
import type { BlockHeader } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { EVMOpts } from '@ethereumjs/evm'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { Address as EjsAddress } from '@ethereumjs/util'
import type { Address, Hex } from 'viem'
import type { ExecutionContext } from '../execution/types.js'
import { arbitrumRules, isArbitrumChain } from './rollups/arbitrum.js'
import { KNOWN_OP_CHAINS } from './rollups/opStack/forks.js'
import { createOpStackRules } from './rollups/opStack/opStackRules.js'

export const CHAIN_KINDS = ['ethereum', 'op-stack', 'arbitrum'] as const
export type ChainKind = (typeof CHAIN_KINDS)[number]

/** what a rollup charges a transaction besides its gas (reported per call and in total) */
export interface RollupFees {
  l1Fee: bigint
  l1GasUsed: bigint
  operatorFee: bigint
}

/** one transaction about to run: what a fee rule needs to know */
export interface FeeRun {
  ctx: ExecutionContext
  tx: TypedTransaction
  sender: EjsAddress
  /** an impersonated call (no signature): priced from its unsigned bytes */
  impersonated: boolean
  /** the base fee the EVM runs with (0 for a zero-fee call) */
  baseFee: bigint
  /** false: a call without a gas price, which pays no fee at all (eth_call semantics) */
  paysFees: boolean
}

/** settles a charged transaction once it ran: credits the vaults, refunds the unused part */
export type FeeSettlement = (receiptGas: bigint) => Promise<RollupFees>

/** a mined transaction of a type only this chain kind has, decoded for a replay */
export interface DecodedTx {
  tx: TypedTransaction
  from: Address
}

/**
 * How a transaction of the chain's own kind runs (an OP deposit): no signature, no fee and no
 * nonce check; the EVM still reads the block's base fee.
 */
export interface SpecialRun {
  /** after the tracers' start, before the run (a deposit's mint, kept whatever the run does) */
  before(state: ExecutionContext['state']): Promise<void>
  /** the receipt gas the chain reports, given the EVM's (deposits before Regolith differ) */
  receiptGas(evmGas: bigint, failed: boolean): bigint
  /** the VM refused the transaction: what the chain does instead (nonce bumped, all gas used) */
  onRejected(state: ExecutionContext['state'], reason: string): Promise<{ gasUsed: bigint; error: string }>
}

export interface ChainRules {
  readonly kind: ChainKind
  /** the Common for a block: the chain's own fork schedule (undefined: the Ethereum factory's) */
  commonFactory?: (at: { number: bigint; timestamp: bigint }) => Common
  /**
   * A transaction type of this chain (the upstream's JSON), decoded; undefined when the type is
   * not one of this chain's own (the Ethereum decoder takes it).
   */
  decodeTx?(json: Record<string, unknown>, common: Common): Promise<DecodedTx | undefined>
  /**
   * Charges what the chain adds to a transaction's cost before it runs (after the tracers' start,
   * as op-geth's buyGas after OnTxStart); the settlement runs after it. Undefined: nothing to charge.
   */
  chargeFees?(run: FeeRun): Promise<FeeSettlement | undefined>
  /** a transaction this chain runs by rules of its own (an OP deposit); undefined: an ordinary one */
  specialRun?(tx: TypedTransaction, ctx: ExecutionContext): SpecialRun | undefined
  /** the EVM's precompile changes at a block (an OP fork's P256VERIFY, input limits) */
  precompiles?(common: Common, block: ExecutionContext['block']): NonNullable<EVMOpts['customPrecompiles']> | undefined
  /** addresses whose balances a fee moves (asset changes read them) */
  feeRecipients?: Address[]
  /**
   * The transactions a block this service mines (a writable fork's) starts with, given its
   * parent's state (an OP-stack chain's L1 attributes deposit), as EIP-2718 bytes.
   */
  blockStartTxs?(state: ExecutionContext['state'], block: { number: bigint; timestamp: bigint }): Promise<Uint8Array[]>
  /** the coinbase of a block this service mines (an OP-stack chain's sequencer fee vault) */
  blockCoinbase?: Address
  /**
   * The base fee of the block after `parent` when the chain's rules set it (an OP-stack chain from
   * Holocene: the EIP-1559 parameters of the parent's extra data, Jovian's DA footprint and minimum
   * base fee); undefined: Ethereum's EIP-1559 update.
   */
  nextBaseFee?(parent: BlockHeader): bigint | undefined
  /** the extra data of a block this service mines after `parent` (OP-stack: the parent's EIP-1559 parameters carried on) */
  minedExtraData?(parent: BlockHeader, block: { number: bigint; timestamp: bigint }): Uint8Array | undefined
  /** the excess blob gas of every block this service mines, whatever its parent's (OP-stack: 0, no blobs) */
  minedExcessBlobGas?: bigint
  /**
   * The DA footprint meter of a block this service mines (OP-stack from Jovian), given the block's
   * start transactions (its L1 attributes deposit carries the scalar): each transaction's
   * footprint (an impersonated one's priced as its L1 fee is). The block's header carries their
   * sum as `blobGasUsed`, which its gas limit bounds. Undefined: the block has no such limit.
   */
  daFootprintMeter?(
    block: { number: bigint; timestamp: bigint },
    starts: TypedTransaction[],
  ): ((tx: TypedTransaction, impersonated: boolean) => bigint) | undefined
  /** EIP-2718 bytes of a type only this chain has (a deposit), decoded; undefined: not one */
  decodeRaw?(bytes: Uint8Array, common: Common): DecodedTx | undefined
  /** the EIP-2718 bytes of such a transaction (a deposit's); undefined: an Ethereum transaction */
  encodeTx?(tx: TypedTransaction): Uint8Array | undefined
  /** what this chain's node adds to the JSON object of such a transaction (a deposit's own fields) */
  txJsonFields?(tx: TypedTransaction): Record<string, unknown> | undefined
  /**
   * What this chain's node adds to a mined transaction's receipt (op-geth: the L1 fee fields, a
   * deposit's nonce and receipt version), from the state after it ran and what it was charged
   * (with its DA footprint where the block meters one).
   */
  receiptFields?(run: {
    ctx: ExecutionContext
    tx: TypedTransaction
    fees?: RollupFees
    nonceBefore: bigint
    daFootprint?: bigint
  }): Promise<Record<string, unknown>>
}

export interface ChainRulesOptions {
  chainId: number
  /** configured kind; undefined: by the chain id (known OP-stack and Arbitrum ids), else ethereum */
  kind?: ChainKind
  /** configured fork (an OP fork name on an OP-stack chain) */
  hardfork?: string
}

/** undefined for a plain Ethereum chain */
export function chainRulesFor(opts: ChainRulesOptions): ChainRules | undefined {
  const kind = opts.kind ?? (KNOWN_OP_CHAINS[opts.chainId] ? 'op-stack' : isArbitrumChain(opts.chainId) ? 'arbitrum' : 'ethereum')
  if (kind === 'op-stack') return createOpStackRules({ chainId: opts.chainId, hardfork: opts.hardfork })
  if (kind === 'arbitrum') return arbitrumRules
  return undefined
}

export const kindOf = (rules: ChainRules | undefined): ChainKind => rules?.kind ?? 'ethereum'

export type { Hex }
