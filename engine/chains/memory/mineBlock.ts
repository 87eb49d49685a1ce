/**
 * mineBlock: executes signed transactions into one new devnet block with the ethereumjs VM and
 * returns the block's header info, receipts and the state after it as a new MemoryStateSource
 * layer (only this block's writes; the parent's state is shared, never copied).
 *
 * The devnet keeps no tries: the header's stateRoot is the overlay's placeholder, so block hashes
 * are internal identifiers (stable on every start), not hashes a mainnet client would recompute.
 * Beacon-root (EIP-4788) and history (EIP-2935) system calls are not made: no demo contract reads
 * them.
 */
import { createBlock, createBlockHeader, genTransactionsTrieRoot, type BlockHeader } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { TypedTransaction } from '@ethereumjs/tx'
import { bytesToHex, createAddressFromString, hexToBytes } from '@ethereumjs/util'
import { createVM, runTx } from '@ethereumjs/vm'
import { keccak256, toHex, type Address, type Hex } from 'viem'
import type { BlockHeaderInfo, MinedTransaction } from '../types.js'
import { type MemoryStateSource, OverlayStateManager, PLACEHOLDER_STATE_ROOT } from '../../state/index.js'

export interface DevnetLog {
  address: Address
  topics: Hex[]
  data: Hex
}

export interface DevnetReceipt {
  transactionHash: Hex
  transactionIndex: number
  blockNumber: bigint
  from: Address
  to: Address | null
  status: 'success' | 'reverted'
  gasUsed: bigint
  cumulativeGasUsed: bigint
  effectiveGasPrice: bigint
  contractAddress: Address | null
  logs: DevnetLog[]
  /** what the chain's node adds to the receipt (an OP-stack chain's L1 fee fields, a deposit's nonce) */
  chainFields?: Record<string, unknown>
}

export interface DevnetBlock {
  header: BlockHeaderInfo
  /** the ethereumjs header (its hash is `header.hash`); the parent of the next block */
  ethHeader: BlockHeader
  transactions: MinedTransaction[]
  receipts: DevnetReceipt[]
  /** the state after this block */
  state: MemoryStateSource
}

export const DEVNET_GAS_LIMIT = 30_000_000n
export const DEVNET_COINBASE: Address = '0x0000000000000000000000000000000000000000'

/** a fixed, distinct PREVRANDAO per block (deterministic on every start) */
export const prevRandaoOf = (n: bigint): Hex => keccak256(toHex(`devnet-prevrandao-${n}`))

const lower = (a: { toString(): string }) => a.toString().toLowerCase() as Address

/** header info as the engine uses it */
export function headerInfo(h: BlockHeader): BlockHeaderInfo {
  return {
    number: h.number,
    timestamp: h.timestamp,
    gasLimit: h.gasLimit,
    coinbase: lower(h.coinbase),
    baseFeePerGas: h.baseFeePerGas,
    difficulty: h.difficulty,
    prevRandao: bytesToHex(h.mixHash) as Hex,
    excessBlobGas: h.excessBlobGas,
    parentBeaconBlockRoot: h.parentBeaconBlockRoot ? (bytesToHex(h.parentBeaconBlockRoot) as Hex) : undefined,
    hash: bytesToHex(h.hash()) as Hex,
    parentHash: bytesToHex(h.parentHash) as Hex,
    gasUsed: h.gasUsed,
    ...(h.blobGasUsed !== undefined && { blobGasUsed: h.blobGasUsed }),
  }
}

/** the genesis block: no transactions, the alloc as its state */
export function genesisBlock(common: Common, state: MemoryStateSource, timestamp: bigint): DevnetBlock {
  const ethHeader = createBlockHeader(
    {
      number: 0n,
      timestamp,
      gasLimit: DEVNET_GAS_LIMIT,
      coinbase: createAddressFromString(DEVNET_COINBASE),
      baseFeePerGas: 1_000_000_000n,
      difficulty: 0n,
      mixHash: hexToBytes(prevRandaoOf(0n)),
      stateRoot: PLACEHOLDER_STATE_ROOT,
    },
    { common, setHardfork: false },
  )
  return { header: headerInfo(ethHeader), ethHeader, transactions: [], receipts: [], state }
}

/** mines `txs` (already signed) on top of `parent`; a tx that fails validation is a bug: it throws */
export async function mineBlock(common: Common, parent: DevnetBlock, txs: { tx: TypedTransaction; from: Address }[], timestamp: bigint): Promise<DevnetBlock> {
  const number = parent.header.number + 1n
  const stateManager = new OverlayStateManager(parent.state)
  const vm = await createVM({ common, stateManager })
  const baseHeader = {
    number,
    parentHash: parent.ethHeader.hash(),
    timestamp,
    gasLimit: DEVNET_GAS_LIMIT,
    coinbase: createAddressFromString(DEVNET_COINBASE),
    baseFeePerGas: parent.ethHeader.calcNextBaseFee(),
    difficulty: 0n,
    mixHash: hexToBytes(prevRandaoOf(number)),
    stateRoot: PLACEHOLDER_STATE_ROOT,
  }
  // the block the txs execute in (gasUsed is only known afterwards: the final header adds it)
  const execBlock = createBlock({ header: baseHeader }, { common, setHardfork: false })
  const receipts: DevnetReceipt[] = []
  const transactions: MinedTransaction[] = []
  let cumulative = 0n
  for (const [index, { tx, from }] of txs.entries()) {
    const res = await runTx(vm, { tx, block: execBlock, blockGasUsed: cumulative })
    cumulative += res.totalGasSpent
    const hash = bytesToHex(tx.hash()) as Hex
    const exec = res.execResult
    const baseFee = execBlock.header.baseFeePerGas ?? 0n
    const tip = 'maxPriorityFeePerGas' in tx ? (tx.maxPriorityFeePerGas as bigint) : 0n
    const feeCap = 'maxFeePerGas' in tx ? (tx.maxFeePerGas as bigint) : (tx as { gasPrice: bigint }).gasPrice
    receipts.push({
      transactionHash: hash,
      transactionIndex: index,
      blockNumber: number,
      from,
      to: tx.to ? lower(tx.to) : null,
      status: exec.exceptionError ? 'reverted' : 'success',
      gasUsed: res.totalGasSpent,
      cumulativeGasUsed: cumulative,
      effectiveGasPrice: feeCap < baseFee + tip ? feeCap : baseFee + tip,
      contractAddress: res.createdAddress ? lower(res.createdAddress) : null,
      logs: (exec.logs ?? []).map(([address, topics, data]) => ({
        address: bytesToHex(address).toLowerCase() as Address,
        topics: topics.map((t) => bytesToHex(t) as Hex),
        data: bytesToHex(data) as Hex,
      })),
    })
    transactions.push({ tx, from, hash, blockNumber: number, index })
  }
  const ethHeader = createBlockHeader(
    { ...baseHeader, gasUsed: cumulative, transactionsTrie: await genTransactionsTrieRoot(txs.map((t) => t.tx)) },
    { common, setHardfork: false },
  )
  return {
    header: headerInfo(ethHeader),
    ethHeader,
    transactions,
    receipts,
    state: parent.state.withWrites(stateManager.flatten()),
  }
}
