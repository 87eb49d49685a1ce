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
import type { BlockHeaderInfo } from '../types.js'
import { DEVNET_COINBASE } from '../memory/mineBlock.js'
import { EngineError, isEngineError } from '../../platform/errors.js'
import { executeSignedTx } from '../../execution/executeTransaction.js'
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

export async function mineForkBlock(view: ForkView, txs: PoolTx[], opts: MineOptions): Promise<MinedBlock> {
  const chain = forkChainOf(view)
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
  // what the block will read of the base, in one round trip rather than one per account
  await readAheadAccounts(view, [coinbase, ...systemCallReads(header).map((e) => e.address), ...txs.flatMap((t) => touchedAccounts(common, t, chain.rules))])
  const state = await chain.stateAfter(parentNumber)
  const ctx = executionContext(chain, header, state)
  await applyBlockSystemCalls(state, ctx.common, header)

  const included: PoolTx[] = []
  const receipts: StoredReceipt[] = []
  const skipped: MinedBlock['skipped'] = []
  let cumulative = 0n
  const rules = chain.rules
  // what every block of the chain starts with (an OP-stack chain's L1 attributes deposit)
  const starts = rules?.blockStartTxs ? await blockStartTxsOf(rules, ctx.common, state, header) : []
  // an OP-stack block from Jovian: its DA footprint, bounded by the gas limit, in its blobGasUsed
  const meter = rules?.daFootprintMeter?.(
    header,
    starts.map((t) => decodePoolTx(ctx.common, t, rules)),
  )
  let daUsed = 0n
  const deferred: PoolTx[] = []
  const waitingSenders = new Set<string>()
  for (const t of [...starts, ...txs]) {
    if (waitingSenders.has(t.from)) {
      deferred.push(t)
      continue
    }
    const tx = decodePoolTx(ctx.common, t, rules)
    const nonceBefore = rules?.receiptFields ? ((await state.getAccount(tx.getSenderAddress()))?.nonce ?? 0n) : 0n
    const footprint = meter?.(tx, t.impersonated)
    let result: Awaited<ReturnType<typeof executeSignedTx>>
    try {
      if (footprint !== undefined && daUsed + footprint > fields.gasLimit) {
        // one that fits no block at all is refused; one that fits an emptier block waits for it
        if (footprint <= fields.gasLimit && opts.onInvalid === 'skip') {
          waitingSenders.add(t.from)
          deferred.push(t)
          continue
        }
        throw daLimitError(footprint, fields.gasLimit - daUsed)
      }
      result = await executeSignedTx(ctx, tx, { validation: true, blockGasUsed: cumulative })
    } catch (e) {
      if (opts.onInvalid === 'throw' || !isEngineError(e) || starts.includes(t)) throw e
      skipped.push({ tx: t, error: e })
      continue
    }
    cumulative += result.gasUsed
    daUsed += footprint ?? 0n
    const { feeCap, tip } = feeFields(tx)
    const fee = baseFee ?? 0n
    included.push(t)
    receipts.push({
      transactionHash: t.hash,
      from: t.from,
      to: tx.to ? (tx.to.toString().toLowerCase() as Hex) : null,
      status: result.status === 'success' ? 'success' : 'reverted',
      gasUsed: q(result.gasUsed),
      cumulativeGasUsed: q(cumulative),
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
    })
  }
  const ethHeader = createBlockHeader(
    {
      ...fields,
      ...(meter && { blobGasUsed: daUsed }),
      gasUsed: cumulative,
      transactionsTrie: await genTransactionsTrieRoot(included.map((t) => decodePoolTx(common, t, rules))),
    },
    { common: preparedCommon(common), setHardfork: false },
  )
  return {
    block: {
      number: q(number),
      hash: toHex(ethHeader.hash()),
      header: toHex(ethHeader.serialize()),
      txs: included,
      receipts,
      pre: view.pending ? writesToJson(view.pending) : null,
      diff: writesToJson(state.flatten()),
    },
    skipped,
    deferred,
  }
}
