/**
 * mineRuledBlock: a devnet block of a chain with rules of its own (an OP-stack devnet), mined
 * through the engine's one execution path (executeSignedTx, a node's validation) as a writable
 * fork mines its blocks, so the chain's rules apply exactly as every replay and trace of the block
 * applies them: the block starts with the chain's block-start transactions (the L1 attributes
 * deposit), each transaction pays what the chain charges besides gas (the L1 and operator fees to
 * their vaults, the base fee to the base fee vault), the tips go to the chain's coinbase (the
 * sequencer fee vault), and each receipt carries what the chain's node adds to it.
 *
 * @example
 * const block = await mineRuledBlock({ common, parent, txs, timestamp, rules, getBlockHash })
 */
import { createBlockHeader, genTransactionsTrieRoot } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { TypedTransaction } from '@ethereumjs/tx'
import { createAddressFromString, hexToBytes } from '@ethereumjs/util'
import { keccak256, toHex, type Address, type Hex } from 'viem'
import type { ChainRules } from '../rules.js'
import type { MinedTransaction } from '../types.js'
import { executeSignedTx } from '../../execution/executeTransaction.js'
import type { BlockEnv, ExecutionContext } from '../../execution/types.js'
import { feeFields } from '../../execution/validateTx.js'
import { OverlayStateManager, PLACEHOLDER_STATE_ROOT } from '../../state/index.js'
import { DEVNET_COINBASE, DEVNET_GAS_LIMIT, headerInfo, prevRandaoOf, type DevnetBlock, type DevnetReceipt } from './mineBlock.js'

export interface RuledBlockInput {
  common: Common
  parent: DevnetBlock
  txs: { tx: TypedTransaction; from: Address }[]
  timestamp: bigint
  rules: ChainRules
  getBlockHash(n: bigint): Promise<Hex | undefined>
}

export async function mineRuledBlock({ common, parent, txs, timestamp, rules, getBlockHash }: RuledBlockInput): Promise<DevnetBlock> {
  const number = parent.header.number + 1n
  const state = new OverlayStateManager(parent.state)
  const coinbase = rules.blockCoinbase ?? DEVNET_COINBASE
  const baseFee = parent.ethHeader.calcNextBaseFee()
  const prevRandao = prevRandaoOf(number)
  const env: BlockEnv = { number, timestamp, gasLimit: DEVNET_GAS_LIMIT, coinbase, baseFeePerGas: baseFee, difficulty: 0n, prevRandao }
  const ctx: ExecutionContext = { common, state, block: env, getBlockHash, rules }

  const starts = rules.blockStartTxs ? await rules.blockStartTxs(state, env) : []
  const all = [...starts.map((raw) => ({ ...rules.decodeRaw!(raw, common)!, hash: keccak256(raw) })), ...txs.map((t) => ({ ...t, hash: toHex(t.tx.hash()) }))]
  const receipts: DevnetReceipt[] = []
  const transactions: MinedTransaction[] = []
  let cumulative = 0n
  for (const [index, { tx, from, hash }] of all.entries()) {
    const nonceBefore = (await state.getAccount(tx.getSenderAddress()))?.nonce ?? 0n
    const res = await executeSignedTx(ctx, tx, { validation: true, blockGasUsed: cumulative })
    cumulative += res.gasUsed
    const { feeCap, tip } = feeFields(tx)
    receipts.push({
      transactionHash: hash,
      transactionIndex: index,
      blockNumber: number,
      from,
      to: tx.to ? (tx.to.toString().toLowerCase() as Address) : null,
      status: res.status === 'success' ? 'success' : 'reverted',
      gasUsed: res.gasUsed,
      cumulativeGasUsed: cumulative,
      effectiveGasPrice: feeCap < baseFee + tip ? feeCap : baseFee + tip,
      contractAddress: res.createdAddress ?? null,
      logs: res.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data })),
      ...(rules.receiptFields && { chainFields: await rules.receiptFields({ ctx, tx, nonceBefore, ...(res.rollupFees && { fees: res.rollupFees }) }) }),
    })
    transactions.push({ tx, from, hash, blockNumber: number, index })
  }
  const ethHeader = createBlockHeader(
    {
      number,
      parentHash: parent.ethHeader.hash(),
      timestamp,
      gasLimit: DEVNET_GAS_LIMIT,
      coinbase: createAddressFromString(coinbase),
      baseFeePerGas: baseFee,
      difficulty: 0n,
      mixHash: hexToBytes(prevRandao),
      stateRoot: PLACEHOLDER_STATE_ROOT,
      gasUsed: cumulative,
      transactionsTrie: await genTransactionsTrieRoot(all.map((t) => t.tx)),
    },
    { common, setHardfork: false },
  )
  return { header: headerInfo(ethHeader), ethHeader, transactions, receipts, state: parent.state.withWrites(state.flatten()) }
}
