/**
 * The devnet's own answers to the chain's read methods, in the JSON shapes geth prints: blocks
 * (with hashes or full transactions), transactions, receipts, logs, counts, fees. A node pointed
 * at the devnet (viem, ethers, `cast run`) reads the demo history through these; state reads
 * (balance, code, storage, nonce) are the engine's (engine/operations/reads), over `stateAfter`.
 *
 * The devnet reads its params as a node does (an upstream node reads its own): a param it cannot
 * read is a VALIDATION_ERROR naming the param (`details.argument`) in geth's words.
 *
 * The devnet has no tries and no uncles: `stateRoot` and `receiptsRoot` are the placeholders the
 * block hashes were computed with, uncle lists are empty, and `eth_getProof` is not served.
 *
 * @example
 * await devnetRead(view, 'eth_getBlockByNumber', ['0x1', true])
 */
import type { BlockHeader } from '@ethereumjs/block'
import type { TypedTransaction } from '@ethereumjs/tx'
import { hexToBytes, keccak256, toHex, type Address, type Hex } from 'viem'
import { keccak256 as keccakBytes } from '../../platform/keccak.js'
import { BlockRefError, parseBlockRef, type BlockRef } from '../../platform/blockRef.js'
import { EngineError } from '../../platform/errors.js'
import { toQuantity as q } from '../../platform/quantity.js'
import type { DevnetBlock, DevnetReceipt } from './mineBlock.js'

/** what the read methods need of a block (a writable fork's blocks have no state of their own) */
export type ReadableBlock = Pick<DevnetBlock, 'header' | 'ethHeader' | 'transactions' | 'receipts'>

export interface DevnetView {
  chainId: number
  /** the head block number */
  head(): bigint
  blockAt(n: bigint): ReadableBlock | undefined
  blockByHash(hash: Hex): ReadableBlock | undefined
  /** the block and index of a mined transaction */
  locate(hash: Hex): { block: ReadableBlock; index: number } | undefined
  clientVersion: string
  /** what the chain's node adds to a transaction's JSON object (an OP deposit's own fields) */
  txJsonFields?(tx: TypedTransaction): Record<string, unknown> | undefined
  /** the EIP-2718 bytes of a transaction of the chain's own type (an OP deposit) */
  encodeTx?(tx: TypedTransaction): Uint8Array | undefined
  /** the base fee after a block by the chain's rules (an OP-stack chain's from Holocene); undefined: EIP-1559's */
  nextBaseFee?(parent: BlockHeader): bigint | undefined
}

/** the tip the devnet suggests (its demo transactions pay 1 gwei) */
const SUGGESTED_TIP = 1_000_000_000n
const EMPTY_UNCLES: Hex = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347'

export async function devnetRead(view: DevnetView, method: string, params: unknown[]): Promise<unknown> {
  const p = (i: number) => params[i]
  switch (method) {
    case 'eth_blockNumber':
      return q(view.head())
    case 'eth_getBlockByNumber': {
      const b = blockOf(view, p(0), 0)
      return b ? blockJson(view, b, fullFlag(p(1), 1)) : null
    }
    case 'eth_getBlockByHash': {
      const b = view.blockByHash(hash(p(0), 0))
      return b ? blockJson(view, b, fullFlag(p(1), 1)) : null
    }
    case 'eth_getTransactionByHash': {
      const at = view.locate(hash(p(0), 0))
      return at ? txJson(view, at.block, at.index) : null
    }
    case 'eth_getRawTransactionByHash': {
      const at = view.locate(hash(p(0), 0))
      return at ? toHex(rawOf(view, at.block.transactions[at.index]!.tx)) : null
    }
    case 'eth_getTransactionByBlockHashAndIndex':
    case 'eth_getTransactionByBlockNumberAndIndex': {
      const b = method.includes('Hash') ? view.blockByHash(hash(p(0), 0)) : blockOf(view, p(0), 0)
      const i = Number(quantity(p(1), 1))
      return b && i < b.transactions.length ? txJson(view, b, i) : null
    }
    case 'eth_getTransactionReceipt': {
      const at = view.locate(hash(p(0), 0))
      return at ? receiptJson(view, at.block, at.index) : null
    }
    case 'eth_getBlockReceipts': {
      const b = blockOfAny(view, p(0), 0)
      return b ? b.receipts.map((_, i) => receiptJson(view, b, i)) : null
    }
    case 'eth_getBlockTransactionCountByHash':
    case 'eth_getBlockTransactionCountByNumber': {
      const b = method.endsWith('Hash') ? view.blockByHash(hash(p(0), 0)) : blockOf(view, p(0), 0)
      return b ? q(b.transactions.length) : null
    }
    case 'eth_getUncleCountByBlockHash':
    case 'eth_getUncleCountByBlockNumber': {
      const b = method.endsWith('Hash') ? view.blockByHash(hash(p(0), 0)) : blockOf(view, p(0), 0)
      return b ? '0x0' : null
    }
    case 'eth_getUncleByBlockHashAndIndex':
    case 'eth_getUncleByBlockNumberAndIndex':
      return null
    case 'eth_getLogs':
      return getLogs(view, p(0))
    case 'eth_gasPrice':
      return q(nextBaseFee(view) + SUGGESTED_TIP)
    case 'eth_maxPriorityFeePerGas':
      return q(SUGGESTED_TIP)
    case 'eth_feeHistory':
      return feeHistory(view, p(0), p(1), p(2))
    case 'eth_syncing':
    case 'eth_mining':
      return false
    case 'eth_accounts':
      // the dev keys are public, but this endpoint never signs: no accounts to offer
      return []
    case 'eth_hashrate':
    case 'net_peerCount':
      return '0x0'
    case 'eth_coinbase':
      return view.blockAt(view.head())!.header.coinbase
    case 'net_version':
      return String(view.chainId)
    case 'net_listening':
      return true
    case 'web3_clientVersion':
      return view.clientVersion
    case 'web3_sha3':
      return keccak256(data(p(0), 0))
    default:
      throw new EngineError('NOT_FOUND', `the method ${method} does not exist/is not available`, { unsupportedMethod: true })
  }
}

// ---- params (geth's words for what is wrong; `argument` names which param) ----

function bad(index: number, why: string): EngineError {
  return new EngineError('VALIDATION_ERROR', why, { argument: index })
}

function hash(v: unknown, i: number): Hex {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(v)) throw bad(i, 'hex string of 32 bytes expected')
  return v.toLowerCase() as Hex
}

function data(v: unknown, i: number): Hex {
  if (typeof v !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(v)) throw bad(i, 'hex string with 0x prefix and an even length expected')
  return v as Hex
}

function quantity(v: unknown, i: number): bigint {
  if (typeof v !== 'string' || !/^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/.test(v)) throw bad(i, 'hex quantity with 0x prefix and no leading zeros expected')
  return BigInt(v)
}

/** nothing the caller sent is dropped: a field this read does not know is named */
function onlyKeys(o: object, known: string[], i: number): void {
  for (const k of Object.keys(o)) if (!known.includes(k)) throw bad(i, `unknown field ${JSON.stringify(k)}`)
}

function fullFlag(v: unknown, i: number): boolean {
  if (v === undefined) return false
  if (typeof v !== 'boolean') throw bad(i, 'boolean expected')
  return v
}

/** a tag or a number (the engine's block grammar) → its block number (undefined past the head) */
function blockNumberOf(view: DevnetView, v: unknown, i: number): bigint {
  let block: BlockRef
  try {
    block = parseBlockRef(v, { hash: false })
  } catch (e) {
    throw e instanceof BlockRefError ? bad(i, e.message) : e
  }
  if ('number' in block) return block.number
  // no mempool, no finality gadget: every tag but `earliest` is the head
  return 'tag' in block && block.tag === 'earliest' ? 0n : view.head()
}

function blockOf(view: DevnetView, v: unknown, i: number): ReadableBlock | undefined {
  const n = blockNumberOf(view, v, i)
  return n === undefined ? undefined : view.blockAt(n)
}

/** a tag, a number, a hash or an EIP-1898 object */
function blockOfAny(view: DevnetView, v: unknown, i: number): ReadableBlock | undefined {
  if (typeof v === 'string' && v.length === 66) return view.blockByHash(hash(v, i))
  if (v !== null && typeof v === 'object') {
    // EIP-1898: exactly one of blockHash and blockNumber (requireCanonical is geth's too)
    if (Array.isArray(v)) throw bad(i, 'block number, tag, hash or {blockHash|blockNumber} expected')
    const o = v as { blockHash?: unknown; blockNumber?: unknown }
    onlyKeys(o, ['blockHash', 'blockNumber', 'requireCanonical'], i)
    if ((o.blockHash === undefined) === (o.blockNumber === undefined)) throw bad(i, 'give exactly one of blockHash and blockNumber')
    if (o.blockHash !== undefined) return view.blockByHash(hash(o.blockHash, i))
    return blockOf(view, o.blockNumber, i)
  }
  return blockOf(view, v, i)
}

// ---- shapes ----

function blockJson(view: DevnetView, b: ReadableBlock, full: boolean) {
  const h = b.ethHeader.toJSON()
  const logs = b.receipts.flatMap((r) => r.logs)
  const out: Record<string, unknown> = {
    number: q(b.header.number),
    hash: b.header.hash,
    parentHash: b.header.parentHash,
    nonce: h.nonce ?? '0x0000000000000000',
    sha3Uncles: EMPTY_UNCLES,
    logsBloom: bloomOf(logs),
    transactionsRoot: h.transactionsTrie,
    stateRoot: h.stateRoot,
    receiptsRoot: h.receiptTrie,
    miner: b.header.coinbase,
    difficulty: q(b.header.difficulty),
    totalDifficulty: '0x0',
    extraData: h.extraData ?? '0x',
    size: q(b.ethHeader.serialize().length + b.transactions.reduce((n, t) => n + rawOf(view, t.tx).length, 0) + 8),
    gasLimit: q(b.header.gasLimit),
    gasUsed: q(b.ethHeader.gasUsed),
    timestamp: q(b.header.timestamp),
    mixHash: b.header.prevRandao,
    transactions: full ? b.transactions.map((_, i) => txJson(view, b, i)) : b.transactions.map((t) => t.hash),
    uncles: [],
  }
  if (h.baseFeePerGas !== undefined) out.baseFeePerGas = h.baseFeePerGas
  if (h.withdrawalsRoot !== undefined) {
    out.withdrawalsRoot = h.withdrawalsRoot
    out.withdrawals = []
  }
  if (h.blobGasUsed !== undefined) out.blobGasUsed = h.blobGasUsed
  if (h.excessBlobGas !== undefined) out.excessBlobGas = h.excessBlobGas
  if (h.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = h.parentBeaconBlockRoot
  if (h.requestsHash !== undefined) out.requestsHash = h.requestsHash
  return out
}

function txJson(view: DevnetView, b: ReadableBlock, index: number) {
  const mined = b.transactions[index]!
  const j = mined.tx.toJSON() as Record<string, unknown>
  const receipt = b.receipts[index]!
  const out: Record<string, unknown> = {
    blockHash: b.header.hash,
    blockNumber: q(b.header.number),
    // geth v1.16 on
    blockTimestamp: q(b.header.timestamp),
    from: mined.from,
    gas: j.gasLimit,
    gasPrice: q(receipt.effectiveGasPrice),
    hash: mined.hash,
    input: j.data,
    nonce: j.nonce,
    to: j.to ?? null,
    transactionIndex: q(index),
    value: j.value,
    type: j.type ?? '0x0',
    v: j.v,
    r: j.r,
    s: j.s,
  }
  if (j.chainId !== undefined) out.chainId = j.chainId
  if (j.maxFeePerGas !== undefined) out.maxFeePerGas = j.maxFeePerGas
  if (j.maxPriorityFeePerGas !== undefined) out.maxPriorityFeePerGas = j.maxPriorityFeePerGas
  if (j.accessList !== undefined) out.accessList = j.accessList
  if (Array.isArray(j.authorizationList)) out.authorizationList = j.authorizationList.map(authorizationJson)
  if (j.type !== undefined && j.type !== '0x0') out.yParity = j.v
  const own = view.txJsonFields?.(mined.tx)
  return own ? sortedKeys({ ...out, ...own }) : out
}

const rawOf = (view: DevnetView, tx: TypedTransaction): Uint8Array => view.encodeTx?.(tx) ?? tx.serialize()

/** geth prints a JSON object built as a map with its keys sorted */
function sortedKeys(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k]]),
  )
}

/** geth's SetCodeAuthorization JSON: quantities without leading zeros (ethereumjs writes a zero as "0x") */
function authorizationJson(a: Record<string, string>) {
  const n = (v: string) => q(v === '0x' ? 0n : BigInt(v))
  return { chainId: n(a.chainId!), address: a.address, nonce: n(a.nonce!), yParity: n(a.yParity!), r: n(a.r!), s: n(a.s!) }
}

function receiptJson(view: DevnetView, b: ReadableBlock, index: number) {
  const r = b.receipts[index]!
  const firstLog = b.receipts.slice(0, index).reduce((n, x) => n + x.logs.length, 0)
  const tx = b.transactions[index]!.tx
  const base = {
    blockHash: b.header.hash,
    blockNumber: q(b.header.number),
    contractAddress: r.contractAddress,
    cumulativeGasUsed: q(r.cumulativeGasUsed),
    effectiveGasPrice: q(r.effectiveGasPrice),
    from: r.from,
    gasUsed: q(r.gasUsed),
    logs: logsJson(b, r, firstLog),
    logsBloom: bloomOf(r.logs),
    status: r.status === 'success' ? '0x1' : '0x0',
    to: r.to,
    transactionHash: r.transactionHash,
    transactionIndex: q(index),
    type: (view.txJsonFields?.(tx)?.type as Hex | undefined) ?? (tx.toJSON() as { type?: Hex }).type ?? '0x0',
  }
  return r.chainFields ? sortedKeys({ ...base, ...r.chainFields }) : base
}

function logsJson(b: ReadableBlock, r: DevnetReceipt, firstIndex: number) {
  return r.logs.map((l, i) => ({
    address: l.address,
    topics: l.topics,
    data: l.data,
    blockNumber: q(b.header.number),
    transactionHash: r.transactionHash,
    transactionIndex: q(r.transactionIndex),
    blockHash: b.header.hash,
    // geth v1.16 on
    blockTimestamp: q(b.header.timestamp),
    logIndex: q(firstIndex + i),
    removed: false,
  }))
}

/** the 2048-bit bloom of the yellow paper (3 bits per address and topic; the engine's WebAssembly keccak) */
function bloomOf(logs: { address: Address; topics: Hex[] }[]): Hex {
  const bits = new Uint8Array(256)
  const add = (item: Hex) => {
    const h = keccakBytes(hexToBytes(item))
    for (let k = 0; k < 3; k++) {
      const bit = ((h[2 * k]! << 8) | h[2 * k + 1]!) & 2047
      bits[255 - (bit >> 3)]! |= 1 << (bit & 7)
    }
  }
  for (const l of logs) {
    add(l.address)
    for (const t of l.topics) add(t)
  }
  return toHex(bits)
}

// ---- logs and fees ----

function getLogs(view: DevnetView, filter: unknown) {
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) throw bad(0, 'filter object expected')
  const f = filter as { fromBlock?: unknown; toBlock?: unknown; blockHash?: unknown; address?: unknown; topics?: unknown }
  onlyKeys(f, ['fromBlock', 'toBlock', 'blockHash', 'address', 'topics'], 0)
  let blocks: ReadableBlock[]
  if (f.blockHash !== undefined) {
    if (f.fromBlock !== undefined || f.toBlock !== undefined) throw bad(0, 'cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other')
    const b = view.blockByHash(hash(f.blockHash, 0))
    if (!b) throw new EngineError('NOT_FOUND', 'unknown block')
    blocks = [b]
  } else {
    const from = blockNumberOf(view, f.fromBlock, 0)!
    const to = blockNumberOf(view, f.toBlock, 0)!
    if (from > to) throw bad(0, 'invalid block range params')
    blocks = []
    for (let n = from; n <= to && n <= view.head(); n++) blocks.push(view.blockAt(n)!)
  }
  const addresses =
    f.address === undefined || f.address === null
      ? undefined
      : (Array.isArray(f.address) ? f.address : [f.address]).map((a) => {
          if (typeof a !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(a)) throw bad(0, 'address expected')
          return a.toLowerCase()
        })
  const topics = f.topics === undefined || f.topics === null ? [] : f.topics
  if (!Array.isArray(topics)) throw bad(0, 'topics must be an array')
  const wanted = topics.map((t) => (t === null ? undefined : (Array.isArray(t) ? t : [t]).map((x) => hash(x, 0))))
  const out: ReturnType<typeof logsJson> = []
  for (const b of blocks) {
    let first = 0
    for (const r of b.receipts) {
      for (const log of logsJson(b, r, first)) {
        if (addresses && !addresses.includes(log.address)) continue
        if (wanted.some((w, i) => w !== undefined && w.length > 0 && !w.includes(log.topics[i]?.toLowerCase() as Hex))) continue
        out.push(log)
      }
      first += r.logs.length
    }
  }
  return out
}

function nextBaseFee(view: DevnetView, n = view.head()): bigint {
  const header = view.blockAt(n)!.ethHeader
  return view.nextBaseFee?.(header) ?? header.calcNextBaseFee()
}

/** geth's eth_feeHistory over the devnet's blocks (rewards: effective tips at the percentiles, by gas) */
function feeHistory(view: DevnetView, countArg: unknown, newestArg: unknown, percentilesArg: unknown) {
  // geth's math.HexOrDecimal64: a hex string or a plain JSON integer (never 1.5, -1 or 1e309)
  if (typeof countArg === 'number' && !(Number.isSafeInteger(countArg) && countArg >= 0)) throw bad(0, 'block count must be an unsigned 64-bit integer')
  const count = typeof countArg === 'number' ? BigInt(countArg) : quantity(countArg, 0)
  const newest = blockNumberOf(view, newestArg, 1)!
  if (newest > view.head()) throw new EngineError('BLOCK_NOT_FOUND', `request beyond head block: requested ${newest}, head ${view.head()}`)
  const percentiles = percentilesArg === undefined || percentilesArg === null ? undefined : percentilesArg
  if (percentiles !== undefined && (!Array.isArray(percentiles) || percentiles.some((x) => typeof x !== 'number' || x < 0 || x > 100))) {
    throw bad(2, 'reward percentiles must be numbers between 0 and 100')
  }
  const n = count > newest + 1n ? newest + 1n : count
  const oldest = newest + 1n - n
  const baseFees: Hex[] = []
  const ratios: number[] = []
  const rewards: Hex[][] = []
  for (let i = oldest; i <= newest; i++) {
    const b = view.blockAt(i)!
    baseFees.push(q(b.header.baseFeePerGas ?? 0n))
    ratios.push(Number(b.ethHeader.gasUsed) / Number(b.header.gasLimit))
    if (percentiles) rewards.push(rewardsOf(b, percentiles as number[]))
  }
  if (n > 0n) baseFees.push(q(nextBaseFee(view, newest)))
  return { oldestBlock: q(oldest), baseFeePerGas: baseFees, gasUsedRatio: ratios, ...(percentiles && { reward: rewards }) }
}

function rewardsOf(b: ReadableBlock, percentiles: number[]): Hex[] {
  const base = b.header.baseFeePerGas ?? 0n
  const sorted = b.receipts.map((r) => ({ tip: r.effectiveGasPrice - base, gas: r.gasUsed })).sort((x, y) => (x.tip < y.tip ? -1 : x.tip > y.tip ? 1 : 0))
  if (sorted.length === 0) return percentiles.map(() => '0x0')
  const total = Number(b.ethHeader.gasUsed)
  return percentiles.map((p) => {
    const threshold = (total * p) / 100
    let sum = 0
    for (const s of sorted) {
      sum += Number(s.gas)
      if (sum >= threshold) return q(s.tip)
    }
    return q(sorted[sorted.length - 1]!.tip)
  })
}
