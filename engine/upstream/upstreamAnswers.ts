/**
 * What each upstream JSON-RPC method may answer, checked at the edge before any value is used or
 * cached: hex quantities, 32-byte words, code, transaction and block objects. A node (or a proxy
 * in front of it) that answers `{"hash":5,"blockNumber":"x"}` or a batch whose ids were mixed up
 * gets a STATE_ACCESS_ERROR naming the method — a 502 — never a BigInt conversion error deep in
 * the engine (a 500) and never a wrong value in the fork cache. Objects keep the fields this
 * service does not read (a node may add its own); the ones it reads must have the right form.
 *
 * @example
 * const balance = readUpstream('eth_getBalance', await rpc.request('eth_getBalance', [addr, tag]))
 */
import { z } from 'zod'
import { EngineError } from '../platform/errors.js'

/** a QUANTITY: 0x and up to 64 hex digits (leading zeros tolerated: some nodes pad) */
export const quantity = z.string().regex(/^0x[0-9a-fA-F]{1,64}$/, 'expected a hex quantity')
/** a 32-byte word: hashes, mixHash, storage keys */
export const word = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'expected a 32-byte hex word')
/** a storage value: up to 32 bytes (nodes answer it padded, a few minimal) */
export const storageValue = z.string().regex(/^0x[0-9a-fA-F]{0,64}$/, 'expected a storage value of at most 32 bytes')
export const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'expected a 20-byte address')
/** DATA: whole bytes */
export const bytes = z.string().regex(/^0x([0-9a-fA-F]{2})*$/, 'expected hex bytes')

/** a storage key in an access list: up to 32 bytes (a few nodes give it minimal; it is padded after) */
export const storageKey = z.string().regex(/^0x[0-9a-fA-F]{1,64}$/, 'expected a storage key of at most 32 bytes')
export const accessList = z.array(z.looseObject({ address, storageKeys: z.array(storageKey).default([]) }))

/** a mined transaction as eth_getTransactionByHash and full blocks give it */
export const upstreamTransaction = z.looseObject({
  hash: word,
  from: address,
  to: address.nullish(),
  blockNumber: quantity.nullable(),
  blockHash: word.nullish(),
  transactionIndex: quantity.nullish(),
  type: quantity.optional(),
  nonce: quantity,
  gas: quantity,
  value: quantity,
  input: bytes,
  gasPrice: quantity.optional(),
  maxFeePerGas: quantity.optional(),
  maxPriorityFeePerGas: quantity.optional(),
  maxFeePerBlobGas: quantity.optional(),
  chainId: quantity.optional(),
  v: quantity.optional(),
  r: quantity.optional(),
  s: quantity.optional(),
  yParity: quantity.optional(),
  accessList: accessList.optional(),
  blobVersionedHashes: z.array(word).optional(),
  authorizationList: z.array(z.looseObject({})).optional(),
})

export const blockFields = {
  number: quantity,
  hash: word,
  parentHash: word,
  timestamp: quantity,
  gasLimit: quantity,
  miner: address,
  baseFeePerGas: quantity.optional(),
  difficulty: quantity.optional(),
  mixHash: word.optional(),
  excessBlobGas: quantity.optional(),
  parentBeaconBlockRoot: word.optional(),
  // eth_simulateV1 with validation derives the next base fee and excess blob gas from them
  gasUsed: quantity.optional(),
  blobGasUsed: quantity.optional(),
  // an OP-stack chain's EIP-1559 parameters from Holocene (a fork's next base fee reads them)
  extraData: bytes.optional(),
}
/** a block with its transactions as hashes (`full` false) */
const blockWithHashes = z.looseObject({ ...blockFields, transactions: z.array(word) })
/** a block with its transactions as objects (`full` true) */
const blockWithTransactions = z.looseObject({ ...blockFields, transactions: z.array(upstreamTransaction) })

const schemas = {
  eth_chainId: quantity,
  eth_blockNumber: quantity,
  eth_getBalance: quantity,
  eth_getTransactionCount: quantity,
  eth_getCode: bytes,
  eth_getStorageAt: storageValue,
  eth_getTransactionByHash: upstreamTransaction.nullable(),
  'eth_getBlockByNumber(hashes)': blockWithHashes.nullable(),
  'eth_getBlockByNumber(full)': blockWithTransactions.nullable(),
  'eth_getBlockByHash(hashes)': blockWithHashes.nullable(),
  eth_createAccessList: z.looseObject({ accessList }),
} as const

export type UpstreamMethod = keyof typeof schemas
export type UpstreamAnswer<M extends UpstreamMethod> = z.output<(typeof schemas)[M]>

/** `value` as `method` promises it, or a STATE_ACCESS_ERROR naming the method and the bad field */
export function readUpstream<M extends UpstreamMethod>(method: M, value: unknown): UpstreamAnswer<M> {
  const parsed = schemas[method].safeParse(value)
  if (parsed.success) return parsed.data as UpstreamAnswer<M>
  const name = method.replace(/\(.*\)$/, '')
  const issue = parsed.error.issues[0]
  const where = issue?.path.length ? ` at ${issue.path.join('.')}` : ''
  return malformedAnswer(name, `${issue?.message ?? 'unexpected form'}${where}`)
}

export function malformedAnswer(method: string, why: string): never {
  throw new EngineError(
    'STATE_ACCESS_ERROR',
    `the upstream node answered ${method} with a malformed result (${why})`,
    { method },
    'check that the upstream node (and any proxy in front of it) speaks standard Ethereum JSON-RPC',
  )
}
