/**
 * Mines one block of a writable fork: the head's state (pending cheats included), the block's
 * start system calls, then each transaction through the engine's one execution path
 * (executeSignedTx with a node's validation: nonce, fees, funds, intrinsic gas, geth's texts) —
 * the same path debug_traceTransaction replays it through, so a trace of a fork-mined
 * transaction is the run that mined it.
 *
 * The result is a StoredBlock (header RLP, transactions, receipts, the cheats it folds in and its
 * own writes) for the store to append atomically; nothing is written here.
 */
import { preparedCommon } from '../../execution/preparedCommon.js'
import { createBlockHeader, genTransactionsTrieRoot, type BlockHeader } from '@ethereumjs/block'
import type { Common, StateManagerInterface } from '@ethereumjs/common'
import type { ChainRules } from '../rules.js'
import { createAddressFromString, createContractAddress, hexToBytes } from '@ethereumjs/util'
import { keccak256, toHex, type Hex } from 'viem'
import { keccak256 as keccakBytes } from '../../platform/keccak.js'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { BlockHeaderInfo, ChainSource } from '../types.js'
import { DEVNET_COINBASE } from '../memory/mineBlock.js'
import { EngineError, isEngineError } from '../../platform/errors.js'
import { executeSignedTx } from '../../execution/executeTransaction.js'
import type { ExecutionContext } from '../../execution/types.js'
import { feeFields } from '../../execution/validateTx.js'
import { executionContext } from '../../run/blockEnvironment.js'
import { applyBlockSystemCalls, systemCallReads } from '../../run/systemCalls.js'
import { PLACEHOLDER_STATE_ROOT } from '../../state/index.js'
import { decodePoolTx, forkChainOf, headNumber, readAheadAccounts, type ForkView } from './forkChain.js'
import { writesToJson } from './forkState.js'
import type { PoolTx, StoredBlock, StoredReceipt } from './types.js'
import { toQuantity as q } from '../../platform/quantity.js'

const utf8 = new TextEncoder()
const ZERO_ROOT = `0x${'00'.repeat(32)}` as Hex

export interface MineOptions {
  timestamp: bigint
  /** anvil_setNextBlockBaseFeePerGas */
  baseFee?: bigint
  /** a transaction that fails validation: throw (a send) or leave it out (a block of the pool) */
  onInvalid: 'throw' | 'skip'
}

export interface MinedBlock {
  block: StoredBlock
  /** the transactions left out (invalid on the head), with why */
  skipped: { tx: PoolTx; error: unknown }[]
  /**
   * Valid transactions that did not fit (the DA footprint an OP-stack block from Jovian has left),
   * with the later ones of their senders: they wait for the next block, as in op-geth's pool.
   */
  deferred: PoolTx[]
}

/**
 * The base fee of the block after `parent`: the chain's rule (an OP-stack chain's from Holocene),
 * else EIP-1559's, 1 gwei after a block before London.
 */
export function nextForkBaseFee(rules: ChainRules | undefined, parent: BlockHeader): bigint {
  if (!parent.common.isActivatedEIP(1559)) return 1_000_000_000n
  return rules?.nextBaseFee?.(parent) ?? parent.calcNextBaseFee()
}

/** EIP-4844's next excess blob gas; a chain whose Common lacks a blob schedule (the devnet's) keeps 0 */
function nextExcessBlobGas(parent: BlockHeader, common: Common): bigint {
  if (!parent.common.isActivatedEIP(4844)) return 0n
  try {
    return parent.calcNextExcessBlobGas(common)
  } catch {
    return 0n
  }
}

/** the chain's block-start transactions as pool entries (sender from the decoded bytes, hash of the bytes) */
async function blockStartTxsOf(rules: ChainRules, common: Common, state: StateManagerInterface, header: BlockHeaderInfo): Promise<PoolTx[]> {
  const raws = await rules.blockStartTxs!(state, header)
  return raws.map((raw) => {
    const decoded = rules.decodeRaw?.(raw, common)
    if (!decoded) throw new Error('a block-start transaction the chain rules cannot decode')
    return { raw: toHex(raw), from: decoded.from, hash: keccak256(raw), impersonated: false }
  })
}

/**
 * A transaction whose DA footprint does not fit in what the block's gas limit leaves of it, refused
 * when it was sent to be mined at once or when it fits no block at all.
 */
function daLimitError(footprint: bigint, left: bigint): EngineError {
  return new EngineError('VALIDATION_ERROR', `transaction DA footprint ${footprint} exceeds the block's remaining DA footprint limit ${left}`, {
    daFootprint: q(footprint),
    daFootprintLeft: q(left),
  })
}

/** a transaction's sender and target: the account it calls, or the one it creates */
function touchedAccounts(common: Common, t: PoolTx, rules: ChainRules | undefined): Hex[] {
  const tx = decodePoolTx(common, t, rules)
  const to = tx.to ?? createContractAddress(createAddressFromString(t.from), tx.nonce)
  return [t.from, to.toString() as Hex]
}

/**
 * The next block on the fork's head: its header fields, the state it starts from (system calls
 * applied), each transaction mined in turn (the chain's block-start ones first), then the header
 * sealed over what was included.
 */
export async function mineForkBlock(view: ForkView, txs: PoolTx[], opts: MineOptions): Promise<MinedBlock> {
  const chain = forkChainOf(view)
  const next = nextBlock(view, chain, opts)
  const { header, common } = next
  // what the block will read of the base, in one round trip rather than one per account
  await readAheadAccounts(view, [
    header.coinbase,
    ...systemCallReads(header).map((e) => e.address),
    ...txs.flatMap((t) => touchedAccounts(common, t, chain.rules)),
  ])
  const state = await chain.stateAfter(next.parentNumber)
  const ctx = executionContext(chain, header, state)
  await applyBlockSystemCalls(state, ctx.common, header)
  const rules = chain.rules
  // what every block of the chain starts with (an OP-stack chain's L1 attributes deposit)
  const starts = rules?.blockStartTxs ? await blockStartTxsOf(rules, ctx.common, state, header) : []
  const mining: Mining = {
    ctx,
    rules,
    baseFee: next.baseFee,
    gasLimit: next.fields.gasLimit,
    onInvalid: opts.onInvalid,
    starts,
    // an OP-stack block from Jovian: its DA footprint, bounded by the gas limit, in its blobGasUsed
    meter: rules?.daFootprintMeter?.(
      header,
      starts.map((t) => decodePoolTx(ctx.common, t, rules)),
    ),
    included: [],
    receipts: [],
    skipped: [],
    deferred: [],
    waitingSenders: new Set(),
    cumulative: 0n,
    daUsed: 0n,
  }
  for (const t of [...starts, ...txs]) await mineTransaction(mining, t)
  return sealBlock(view, next, mining, state.flatten())
}

/** the block after the fork's head: its number, rules' fields and header, before any transaction */
function nextBlock(view: ForkView, chain: ChainSource, opts: MineOptions) {
  const parentNumber = headNumber(view)
  const parent = view.blocks.length ? view.blocks[view.blocks.length - 1]! : undefined
  const parentEth = parent?.ethHeader ?? view.base.ethHeader
  const number = parentNumber + 1n
  // the fork point's header is rebuilt from its fields: its hash is the upstream's, not a recomputed one
  const parentHash = parent?.header.hash ?? view.base.header.hash
  const probe: BlockHeaderInfo = { ...view.base.header, number, timestamp: opts.timestamp }
  const common = chain.commonAt(probe)
  const london = common.isActivatedEIP(1559)
  const cancun = common.isActivatedEIP(4844)
  const baseFee = london ? (opts.baseFee ?? nextForkBaseFee(chain.rules, parentEth)) : undefined
  // an OP-stack chain's EIP-1559 parameters (Holocene on) carried on from the parent
  const extraData = chain.rules?.minedExtraData?.(parentEth, probe)
  // an OP-stack chain has no blob gas market: its excess blob gas stays 0 (op-geth CalcExcessBlobGas)
  const excessBlobGas = cancun ? (chain.rules?.minedExcessBlobGas ?? nextExcessBlobGas(parentEth, common)) : undefined
  // an OP-stack chain's blocks pay their tips to the sequencer fee vault
  const coinbase = chain.rules?.blockCoinbase ?? DEVNET_COINBASE
  const fields = {
    number,
    parentHash: hexToBytes(parentHash),
    timestamp: opts.timestamp,
    gasLimit: parentEth.gasLimit,
    coinbase: createAddressFromString(coinbase),
    difficulty: 0n,
    mixHash: keccakBytes(utf8.encode(`fork-prevrandao-${view.record.id}-${number}`)),
    stateRoot: PLACEHOLDER_STATE_ROOT,
    ...(baseFee !== undefined && { baseFeePerGas: baseFee }),
    ...(extraData && { extraData }),
    ...(excessBlobGas !== undefined && { excessBlobGas, blobGasUsed: 0n, parentBeaconBlockRoot: hexToBytes(ZERO_ROOT) }),
  }
  const header: BlockHeaderInfo = {
    number,
    timestamp: opts.timestamp,
    gasLimit: parentEth.gasLimit,
    coinbase,
    baseFeePerGas: baseFee,
    difficulty: 0n,
    prevRandao: toHex(fields.mixHash),
    excessBlobGas,
    parentBeaconBlockRoot: excessBlobGas !== undefined ? ZERO_ROOT : undefined,
    hash: ZERO_ROOT,
    parentHash,
  }
  return { parentNumber, number, common, baseFee, fields, header }
}

type NextBlock = ReturnType<typeof nextBlock>

/** a block being mined: its run's context and what its transactions have added so far */
interface Mining {
  readonly ctx: ExecutionContext
  readonly rules: ChainRules | undefined
  readonly baseFee: bigint | undefined
  readonly gasLimit: bigint
  readonly onInvalid: MineOptions['onInvalid']
  /** the chain's block-start transactions: never skipped */
  readonly starts: PoolTx[]
  readonly meter: ((tx: TypedTransaction, impersonated: boolean) => bigint) | undefined
  readonly included: PoolTx[]
  readonly receipts: StoredReceipt[]
  readonly skipped: MinedBlock['skipped']
  readonly deferred: PoolTx[]
  /** senders one of whose transactions waits for the next block: their later ones wait too */
  readonly waitingSenders: Set<string>
  cumulative: bigint
  daUsed: bigint
}

/**
 * One transaction through the engine's execution path with a node's validation: included with
 * its receipt, skipped when invalid (a block of the pool), or deferred when its DA footprint does
 * not fit what the block leaves.
 */
async function mineTransaction(m: Mining, t: PoolTx): Promise<void> {
  if (m.waitingSenders.has(t.from)) {
    m.deferred.push(t)
    return
  }
  const { ctx, rules } = m
  const tx = decodePoolTx(ctx.common, t, rules)
  const nonceBefore = rules?.receiptFields ? ((await ctx.state.getAccount(tx.getSenderAddress()))?.nonce ?? 0n) : 0n
  const footprint = m.meter?.(tx, t.impersonated)
  let result: Awaited<ReturnType<typeof executeSignedTx>>
  try {
    if (footprint !== undefined && m.daUsed + footprint > m.gasLimit) {
      // one that fits no block at all is refused; one that fits an emptier block waits for it
      if (footprint <= m.gasLimit && m.onInvalid === 'skip') {
        m.waitingSenders.add(t.from)
        m.deferred.push(t)
        return
      }
      throw daLimitError(footprint, m.gasLimit - m.daUsed)
    }
    result = await executeSignedTx(ctx, tx, { validation: true, blockGasUsed: m.cumulative })
  } catch (e) {
    if (m.onInvalid === 'throw' || !isEngineError(e) || m.starts.includes(t)) throw e
    m.skipped.push({ tx: t, error: e })
    return
  }
  m.cumulative += result.gasUsed
  m.daUsed += footprint ?? 0n
  m.included.push(t)
  m.receipts.push(await receiptOf(m, t, tx, result, nonceBefore, footprint))
}

async function receiptOf(
  m: Mining,
  t: PoolTx,
  tx: TypedTransaction,
  result: Awaited<ReturnType<typeof executeSignedTx>>,
  nonceBefore: bigint,
  footprint: bigint | undefined,
): Promise<StoredReceipt> {
  const { baseFee, rules, ctx } = m
  const { feeCap, tip } = feeFields(tx)
  const fee = baseFee ?? 0n
  return {
    transactionHash: t.hash,
    from: t.from,
    to: tx.to ? (tx.to.toString().toLowerCase() as Hex) : null,
    status: result.status === 'success' ? 'success' : 'reverted',
    gasUsed: q(result.gasUsed),
    cumulativeGasUsed: q(m.cumulative),
    effectiveGasPrice: q(baseFee === undefined ? feeCap : feeCap < fee + tip ? feeCap : fee + tip),
    contractAddress: result.createdAddress ?? null,
    logs: result.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data })),
    ...(rules?.receiptFields && {
      chainFields: await rules.receiptFields({
        ctx,
        tx,
        nonceBefore,
        ...(result.rollupFees && { fees: result.rollupFees }),
        ...(footprint !== undefined && { daFootprint: footprint }),
      }),
    }),
  }
}

/** the header sealed over the transactions included, and the block as the store appends it */
async function sealBlock(view: ForkView, next: NextBlock, m: Mining, diff: Parameters<typeof writesToJson>[0]): Promise<MinedBlock> {
  const { common, fields, number } = next
  const ethHeader = createBlockHeader(
    {
      ...fields,
      ...(m.meter && { blobGasUsed: m.daUsed }),
      gasUsed: m.cumulative,
      transactionsTrie: await genTransactionsTrieRoot(m.included.map((t) => decodePoolTx(common, t, m.rules))),
    },
    { common: preparedCommon(common), setHardfork: false },
  )
  return {
    block: {
      number: q(number),
      hash: toHex(ethHeader.hash()),
      header: toHex(ethHeader.serialize()),
      txs: m.included,
      receipts: m.receipts,
      pre: view.pending ? writesToJson(view.pending) : null,
      diff: writesToJson(diff),
    },
    skipped: m.skipped,
    deferred: m.deferred,
  }
}
