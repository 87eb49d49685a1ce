/**
 * The header of a simulated block and its JSON, as geth's simulator fills it
 * (internal/ethapi/simulate.go makeHeaders/processBlock, then RPCMarshalBlock): parent hash,
 * coinbase/difficulty/gas limit from the base block unless overridden, zero mixHash, nonce and
 * parent beacon root, empty uncles and withdrawals, and the transactions root, receipts root,
 * logs bloom, gas used, blob gas, requests hash and size computed from what ran.
 *
 * The state root is computed only where the chain can (`fields.stateRoot`: the devnet imported
 * from a genesis holds its whole state). Elsewhere the service reads state lazily from a plain
 * node and keeps no trie (engine/state PLACEHOLDER_STATE_ROOT), so `stateRoot` is the empty
 * trie's root, and the block hash — keccak of this header — is the hash of that header, not geth's.
 *
 * @example
 * const { hash, json } = await sealSimHeader(fields, txs, receipts)
 */
import type { Common } from '@ethereumjs/common'
import { genTransactionsTrieRoot } from '@ethereumjs/block'
import { Bloom, encodeReceipt } from '@ethereumjs/vm'
import { bytesToHex, hexToBytes, KECCAK256_RLP, KECCAK256_RLP_ARRAY } from '@ethereumjs/util'
import { keccak256, sha256, toHex, toRlp, type Address, type Hex } from 'viem'
import type { ExecutionLog } from '../../execution/types.js'
import { rlpInt, type SimTransaction } from './simTransaction.js'

const ZERO_HASH: Hex = `0x${'0'.repeat(64)}`
const GAS_PER_BLOB = 131_072n
const EMPTY_ROOT = bytesToHex(KECCAK256_RLP) as Hex
const EMPTY_UNCLES = bytesToHex(KECCAK256_RLP_ARRAY) as Hex
/** EIP-7685: sha256 of no requests */
const EMPTY_REQUESTS_HASH = sha256('0x')

export interface SimHeaderFields {
  parentHash: Hex
  number: bigint
  timestamp: bigint
  gasLimit: bigint
  coinbase: Address
  difficulty: bigint
  prevRandao: Hex
  baseFeePerGas: bigint | undefined
  excessBlobGas: bigint | undefined
  /** the real state root after the block, where the chain can compute one (ChainSource.stateRoot) */
  stateRoot?: Hex
}

export interface SimReceipt {
  status: 0 | 1
  cumulativeGasUsed: bigint
  /** the contracts' logs only (ETH transfer logs are not part of the chain) */
  logs: ExecutionLog[]
  txType: 0 | 2 | 3
  /** before Byzantium a receipt holds the state root after its tx instead of a status (EIP-658) */
  stateRoot?: Hex
}

export interface SealedHeader {
  hash: Hex
  gasUsed: bigint
  blobGasUsed: bigint | undefined
  /** geth's RPC block, `transactions` still to be set by the caller */
  json: Record<string, unknown>
}

/** a Merkle-Patricia root over RLP(index) → bytes, as the block's tries are built */
async function indexedRoot(items: Uint8Array[]): Promise<Hex> {
  if (items.length === 0) return EMPTY_ROOT
  return bytesToHex(await genTransactionsTrieRoot(items.map((b) => ({ serialize: () => b })) as never)) as Hex
}

function receiptBloom(logs: ExecutionLog[]): Bloom {
  const bloom = new Bloom()
  for (const l of logs) {
    bloom.add(hexToBytes(l.address))
    for (const t of l.topics) bloom.add(hexToBytes(t))
  }
  return bloom
}

export async function sealSimHeader(common: Common, f: SimHeaderFields, txs: SimTransaction[], receipts: SimReceipt[]): Promise<SealedHeader> {
  const forks: Forks = {
    london: common.isActivatedEIP(1559),
    shanghai: common.isActivatedEIP(4895),
    cancun: common.isActivatedEIP(4844),
    prague: common.isActivatedEIP(7685),
  }
  const { encoded, logsBloom } = encodeReceipts(receipts)
  const computed: Computed = {
    gasUsed: receipts.at(-1)?.cumulativeGasUsed ?? 0n,
    txRoot: await indexedRoot(txs.map((t) => hexToBytes(t.encoded))),
    receiptsRoot: await indexedRoot(encoded),
    logsBloom,
    // EIP-4844: every blob of the block's transactions uses GAS_PER_BLOB
    blobGasUsed: forks.cancun ? txs.reduce((n, t) => n + BigInt(t.call.blobVersionedHashes?.length ?? 0) * GAS_PER_BLOB, 0n) : undefined,
  }
  const items = headerItems(f, computed, forks)
  const hash = keccak256(toRlp(items as never) as Hex)
  const body: unknown[] = [items, txs.map((t) => t.legacyItems ?? t.encoded), []]
  if (forks.shanghai) body.push([])
  const size = (toRlp(body as never).length - 2) / 2
  return { hash, gasUsed: computed.gasUsed, blobGasUsed: computed.blobGasUsed, json: blockJson(f, computed, forks, hash, size) }
}

/** the forks whose header fields the block has */
interface Forks {
  london: boolean
  shanghai: boolean
  cancun: boolean
  prague: boolean
}

/** what the header holds of what ran */
interface Computed {
  gasUsed: bigint
  txRoot: Hex
  receiptsRoot: Hex
  logsBloom: Hex
  blobGasUsed: bigint | undefined
}

/** each receipt's EIP-2718 bytes, and the block's bloom over all their logs */
function encodeReceipts(receipts: SimReceipt[]): { encoded: Uint8Array[]; logsBloom: Hex } {
  const blockBloom = new Bloom()
  const encoded = receipts.map((r) => {
    const bloom = receiptBloom(r.logs)
    blockBloom.or(bloom)
    return encodeReceipt(
      {
        status: r.status,
        ...(r.stateRoot && { stateRoot: hexToBytes(r.stateRoot) }),
        cumulativeBlockGasUsed: r.cumulativeGasUsed,
        bitvector: bloom.bitvector,
        logs: r.logs.map((l) => [hexToBytes(l.address), l.topics.map((t) => hexToBytes(t)), hexToBytes(l.data)]),
      } as never,
      r.txType,
    )
  })
  return { encoded, logsBloom: bytesToHex(blockBloom.bitvector) as Hex }
}

/** the header's RLP items, in geth's order, the fields of each fork appended as it activates them */
function headerItems(f: SimHeaderFields, c: Computed, forks: Forks): (Hex | Hex[])[] {
  const items: (Hex | Hex[])[] = [
    f.parentHash,
    EMPTY_UNCLES,
    f.coinbase,
    f.stateRoot ?? EMPTY_ROOT,
    c.txRoot,
    c.receiptsRoot,
    c.logsBloom,
    rlpInt(f.difficulty),
    rlpInt(f.number),
    rlpInt(f.gasLimit),
    rlpInt(c.gasUsed),
    rlpInt(f.timestamp),
    '0x',
    f.prevRandao,
    '0x0000000000000000',
  ]
  if (forks.london) items.push(rlpInt(f.baseFeePerGas ?? 0n))
  if (forks.shanghai) items.push(EMPTY_ROOT)
  if (forks.cancun) items.push(rlpInt(c.blobGasUsed!), rlpInt(f.excessBlobGas ?? 0n), ZERO_HASH)
  if (forks.prague) items.push(EMPTY_REQUESTS_HASH)
  return items
}

/** geth's RPC block (RPCMarshalBlock), `transactions` still to be set by the caller */
function blockJson(f: SimHeaderFields, c: Computed, forks: Forks, hash: Hex, size: number): Record<string, unknown> {
  const json: Record<string, unknown> = {
    hash,
    parentHash: f.parentHash,
    sha3Uncles: EMPTY_UNCLES,
    miner: f.coinbase,
    stateRoot: f.stateRoot ?? EMPTY_ROOT,
    transactionsRoot: c.txRoot,
    receiptsRoot: c.receiptsRoot,
    logsBloom: c.logsBloom,
    difficulty: toHex(f.difficulty),
    number: toHex(f.number),
    gasLimit: toHex(f.gasLimit),
    gasUsed: toHex(c.gasUsed),
    timestamp: toHex(f.timestamp),
    extraData: '0x',
    mixHash: f.prevRandao,
    nonce: '0x0000000000000000',
    size: toHex(size),
    uncles: [],
  }
  if (forks.london) json.baseFeePerGas = toHex(f.baseFeePerGas ?? 0n)
  if (forks.shanghai) Object.assign(json, { withdrawals: [], withdrawalsRoot: EMPTY_ROOT })
  if (forks.cancun) Object.assign(json, { blobGasUsed: toHex(c.blobGasUsed!), excessBlobGas: toHex(f.excessBlobGas ?? 0n), parentBeaconBlockRoot: ZERO_HASH })
  if (forks.prague) json.requestsHash = EMPTY_REQUESTS_HASH
  return json
}
