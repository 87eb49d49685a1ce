/**
 * What the upstream may answer to each read the JSON-RPC endpoint forwards (engine/operations/reads'
 * allow-list), checked at the edge like the engine's own reads (upstreamAnswers.ts): a node, or a
 * proxy in front of it, that answers `eth_blockNumber` with `"latest"` or a block whose `number`
 * is `5` gets a STATE_ACCESS_ERROR naming the upstream and the method (-32000 on the endpoint),
 * never an internal error further on and never a malformed value passed on, or cached, as if it
 * were the node's. A valid answer is forwarded exactly as the node sent it (fields this service
 * does not know included); `null` passes where the node means "not there" (an unknown block or
 * transaction), nowhere else.
 *
 * @example
 * checkForwarded('eth_blockNumber', [], '0x10') // '0x10'
 * checkForwarded('eth_blockNumber', [], 'latest') // throws: the upstream node answered eth_blockNumber with a malformed result …
 */
import { z } from 'zod'
import { accessList, address, blockFields, bytes, malformedAnswer, quantity, storageKey, upstreamTransaction, word } from './upstreamAnswers.js'

const log = z.looseObject({
  address,
  topics: z.array(word),
  data: bytes,
  // pending logs carry nulls
  blockNumber: quantity.nullish(),
  blockHash: word.nullish(),
  transactionHash: word.nullish(),
  transactionIndex: quantity.nullish(),
  logIndex: quantity.nullish(),
  removed: z.boolean().optional(),
})

const receipt = z.looseObject({
  transactionHash: word,
  transactionIndex: quantity,
  blockHash: word,
  blockNumber: quantity,
  from: address,
  to: address.nullable(),
  cumulativeGasUsed: quantity,
  gasUsed: quantity,
  contractAddress: address.nullish(),
  logs: z.array(log),
  logsBloom: bytes,
  // before Byzantium a receipt has `root` instead
  status: quantity.optional(),
  effectiveGasPrice: quantity.optional(),
  type: quantity.optional(),
})

/** an uncle: a header (its transactions, when listed, as hashes) */
const header = z.looseObject({ ...blockFields, transactions: z.array(word).optional() })
const blockWithHashes = z.looseObject({ ...blockFields, transactions: z.array(word) })
const blockWithTransactions = z.looseObject({ ...blockFields, transactions: z.array(upstreamTransaction) })

const feeHistory = z.looseObject({
  oldestBlock: quantity,
  baseFeePerGas: z.array(quantity).optional(),
  gasUsedRatio: z.array(z.number()),
  reward: z.array(z.array(quantity)).optional(),
  baseFeePerBlobGas: z.array(quantity).optional(),
  blobGasUsedRatio: z.array(z.number()).optional(),
})

const proof = z.looseObject({
  address,
  balance: quantity,
  codeHash: word,
  nonce: quantity,
  storageHash: word,
  accountProof: z.array(bytes),
  storageProof: z.array(z.looseObject({ key: storageKey, value: quantity, proof: z.array(bytes) })),
})

const syncing = z.union([z.literal(false), z.looseObject({ startingBlock: quantity, currentBlock: quantity, highestBlock: quantity })])

const schemas: Record<string, z.ZodType | ((params: unknown[]) => z.ZodType)> = {
  eth_blockNumber: quantity,
  eth_getBlockByNumber: (p) => (p[1] === true ? blockWithTransactions : blockWithHashes).nullable(),
  eth_getBlockByHash: (p) => (p[1] === true ? blockWithTransactions : blockWithHashes).nullable(),
  eth_getTransactionByHash: upstreamTransaction.nullable(),
  eth_getTransactionByBlockHashAndIndex: upstreamTransaction.nullable(),
  eth_getTransactionByBlockNumberAndIndex: upstreamTransaction.nullable(),
  eth_getRawTransactionByHash: bytes.nullable(),
  eth_getTransactionReceipt: receipt.nullable(),
  eth_getBlockReceipts: z.array(receipt).nullable(),
  eth_getBlockTransactionCountByHash: quantity.nullable(),
  eth_getBlockTransactionCountByNumber: quantity.nullable(),
  eth_getUncleCountByBlockHash: quantity.nullable(),
  eth_getUncleCountByBlockNumber: quantity.nullable(),
  eth_getUncleByBlockHashAndIndex: header.nullable(),
  eth_getUncleByBlockNumberAndIndex: header.nullable(),
  eth_getLogs: z.array(log),
  eth_getProof: proof,
  eth_feeHistory: feeHistory,
  eth_gasPrice: quantity,
  eth_maxPriorityFeePerGas: quantity,
  eth_blobBaseFee: quantity,
  eth_syncing: syncing,
  eth_accounts: z.array(address),
  eth_mining: z.boolean(),
  eth_hashrate: quantity,
  eth_coinbase: address,
  net_version: z.string().regex(/^\d+$/, 'expected a decimal network id'),
  net_listening: z.boolean(),
  net_peerCount: quantity,
  web3_clientVersion: z.string(),
  web3_sha3: word,
  eth_createAccessList: z.looseObject({ accessList }),
}

/** `answer` as the node sent it when it has the form `method` promises; else a STATE_ACCESS_ERROR naming both */
export function checkForwarded(method: string, params: unknown[], answer: unknown): unknown {
  const entry = schemas[method]
  // a read this table does not describe is never forwarded (engine/operations/reads/readMethods.ts)
  if (!entry) return malformedAnswer(method, 'a method without a known answer form')
  const schema = typeof entry === 'function' ? entry(params) : entry
  const parsed = schema.safeParse(answer)
  if (parsed.success) return answer
  const issue = parsed.error.issues[0]
  const where = issue?.path.length ? ` at ${issue.path.join('.')}` : ''
  return malformedAnswer(method, `${issue?.message ?? 'unexpected form'}${where}`)
}
