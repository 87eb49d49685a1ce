/**
 * importBlocks: runs a chain's own blocks (an RLP stream of blocks, as `geth export` writes and
 * execution-apis ships as tests/chain.rlp) on top of a genesis with the ethereumjs VM, and keeps
 * each as a devnet block: the block's real header (so its real hash), its transactions, receipts
 * and the state after it as a MemoryStateSource layer.
 *
 * Every block is checked as a client imports it: ethereumjs' runBlock compares the gas used,
 * receipts root, logs bloom and state root it computes with the header's (the overlay hashes the
 * state on demand: TrieRootedOverlay), and the parent hash must be the previous block's hash. A
 * block that does not match is refused with the reason: the chain would not be the one the
 * caller asked for. Consensus (proof of work, signatures of the beacon chain) is not checked.
 *
 * @example
 * const blocks = await importBlocks(commonFor, genesis, readFileSync('chain.rlp'))
 */
import { createBlockFromRLP, type Block } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { bytesToHex } from '@ethereumjs/util'
import { createVM, runBlock } from '@ethereumjs/vm'
import type { Address, Hex } from 'viem'
import type { MinedTransaction } from '../types.js'
import { EngineError } from '../../platform/errors.js'
import { blockHashSource } from '../../execution/evmBlock.js'
import { TrieRootedOverlay } from '../../state/index.js'
import { headerInfo, type DevnetBlock, type DevnetReceipt } from '../memory/mineBlock.js'

type CommonFor = (at: { number: bigint; timestamp: bigint }) => Common

const lower = (a: { toString(): string }) => a.toString().toLowerCase() as Address

/** the blocks of an RLP stream (each item one whole block), decoded under the chain's fork schedule */
export function decodeBlocks(commonFor: CommonFor, bytes: Uint8Array): Block[] {
  const blocks: Block[] = []
  let rest = bytes
  while (rest.length > 0) {
    const length = rlpListLength(rest)
    // the Common only seeds the decoding: setHardfork picks each block's fork by its number and time
    blocks.push(createBlockFromRLP(rest.subarray(0, length), { common: commonFor({ number: 0n, timestamp: 0n }), setHardfork: true }))
    rest = rest.subarray(length)
  }
  return blocks
}

/** the byte length of the RLP list at the start of `bytes` (a block is always a list) */
function rlpListLength(bytes: Uint8Array): number {
  const first = bytes[0]!
  if (first < 0xc0) throw new Error('an item of the stream is not a list')
  if (first <= 0xf7) return 1 + first - 0xc0
  const size = first - 0xf7
  if (bytes.length < 1 + size) throw new Error('the stream ends inside a list header')
  let length = 0
  for (let i = 1; i <= size; i++) length = length * 256 + bytes[i]!
  if (bytes.length < 1 + size + length) throw new Error('the stream ends inside a block')
  return 1 + size + length
}

export async function importBlocks(commonFor: CommonFor, genesis: DevnetBlock, bytes: Uint8Array): Promise<DevnetBlock[]> {
  let decoded: Block[]
  try {
    decoded = decodeBlocks(commonFor, bytes)
  } catch (e) {
    throw new EngineError('VALIDATION_ERROR', `the devnet's blocks are not an RLP stream of blocks: ${(e as Error).message}`)
  }
  const chain: DevnetBlock[] = [genesis]
  const getBlockHash = async (n: bigint) => chain[Number(n)]?.header.hash
  for (const block of decoded) {
    const parent = chain[chain.length - 1]!
    const number = block.header.number
    if (number !== parent.header.number + 1n || bytesToHex(block.header.parentHash) !== parent.header.hash) {
      throw new EngineError('VALIDATION_ERROR', `devnet block ${number} does not follow block ${parent.header.number} (${parent.header.hash})`)
    }
    chain.push(await importBlock(commonFor, parent, block, getBlockHash))
  }
  return chain.slice(1)
}

async function importBlock(
  commonFor: CommonFor,
  parent: DevnetBlock,
  block: Block,
  getBlockHash: (n: bigint) => Promise<Hex | undefined>,
): Promise<DevnetBlock> {
  const h = block.header
  const common = commonFor({ number: h.number, timestamp: h.timestamp })
  const stateManager = new TrieRootedOverlay(parent.state)
  const vm = await createVM({ common, stateManager, blockchain: blockHashSource(getBlockHash) as never })
  let run: Awaited<ReturnType<typeof runBlock>>
  try {
    // the header's own checks against its parent need a blockchain; the import checks parent
    // linkage itself, and runBlock still compares every computed root with the header's
    run = await runBlock(vm, { block, skipBlockValidation: true, skipHeaderValidation: true, skipHardForkValidation: true })
  } catch (e) {
    throw new EngineError('VALIDATION_ERROR', `devnet block ${h.number} does not import: ${(e as Error).message}`)
  }
  const hash = bytesToHex(block.hash()) as Hex
  const receipts: DevnetReceipt[] = []
  const transactions: MinedTransaction[] = []
  let previousCumulative = 0n
  block.transactions.forEach((tx, index) => {
    const res = run.results[index]!
    const receipt = run.receipts[index]!
    const from = lower(tx.getSenderAddress())
    const baseFee = h.baseFeePerGas ?? 0n
    const tip = 'maxPriorityFeePerGas' in tx ? (tx.maxPriorityFeePerGas as bigint) : undefined
    const feeCap = 'maxFeePerGas' in tx ? (tx.maxFeePerGas as bigint) : (tx as { gasPrice: bigint }).gasPrice
    const price = tip === undefined ? feeCap : feeCap < baseFee + tip ? feeCap : baseFee + tip
    receipts.push({
      transactionHash: bytesToHex(tx.hash()) as Hex,
      transactionIndex: index,
      blockNumber: h.number,
      from,
      to: tx.to ? lower(tx.to) : null,
      status: res.execResult.exceptionError ? 'reverted' : 'success',
      gasUsed: receipt.cumulativeBlockGasUsed - previousCumulative,
      cumulativeGasUsed: receipt.cumulativeBlockGasUsed,
      effectiveGasPrice: price,
      contractAddress: res.createdAddress ? lower(res.createdAddress) : null,
      logs: receipt.logs.map(([address, topics, data]) => ({
        address: bytesToHex(address).toLowerCase() as Address,
        topics: topics.map((t) => bytesToHex(t) as Hex),
        data: bytesToHex(data) as Hex,
      })),
    })
    previousCumulative = receipt.cumulativeBlockGasUsed
    transactions.push({ tx, from, hash: bytesToHex(tx.hash()) as Hex, blockNumber: h.number, index })
  })
  return {
    header: { ...headerInfo(h), hash },
    ethHeader: h,
    transactions,
    receipts,
    state: parent.state.withWrites(stateManager.flatten()),
  }
}
