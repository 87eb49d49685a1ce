/**
 * The embedded devnet (interface §12): a ChainSource held entirely in process. Chain id 31337,
 * the ten dev accounts funded with 10000 ETH, and at start-up the demo history of
 * demoTransactions.ts mined into blocks 1..6 with the ethereumjs VM. Every block keeps its header,
 * transactions, receipts and the state after it (a MemoryStateSource layer holding only that
 * block's writes), so any block can be simulated on and any demo transaction traced.
 *
 * Deterministic: fixed timestamps (GENESIS_TIMESTAMP + 12 s per block), fixed fees and nonces,
 * RFC 6979 signatures: the same hashes on every start.
 *
 * @example
 * const devnet = await createDevnet()
 * devnet.receipts()[0].contractAddress // '0x5fbdb2315678afecb367f032d93f642f64180aa3'
 */
import type { Common } from '@ethereumjs/common'
import type { Hex } from 'viem'
import type { BlockHeaderInfo, ChainSource, MinedTransaction } from '../types.js'
import { EngineError } from '../../platform/errors.js'
import { createCommonFactory, DEFAULT_HARDFORK } from '../../platform/hardfork.js'
import { bytesToHex } from '@ethereumjs/util'
import { MemoryStateSource, OverlayStateManager, stateRootOf, type GenesisAccount } from '../../state/index.js'
import permit2 from './permit2.json' with { type: 'json' }
import type { BlockSelector } from '../../vocabulary.js'
import { DEV_ACCOUNTS, DEV_BALANCE, DEVNET_CHAIN_ID } from '../memory/accounts.js'
import { demoBlocks } from './demoTransactions.js'
import { devnetRead, type DevnetView } from '../memory/devnetReads.js'
import { genesisBlock, mineBlock, type DevnetBlock, type DevnetReceipt } from '../memory/mineBlock.js'
import { mineRuledBlock } from '../memory/mineRuledBlock.js'
import { opStackDevnet } from './opDevnet.js'
import type { ChainKind, ChainRules } from '../rules.js'
import { toQuantity } from '../../platform/quantity.js'

/** Permit2's canonical address (the same on every chain Uniswap deployed it to) */
export const PERMIT2_ADDRESS = permit2.address as Hex

/** 2025-01-01T00:00:00Z */
export const GENESIS_TIMESTAMP = 1_735_689_600n
export const BLOCK_TIME = 12n

export interface DevnetOptions {
  /** ethereumjs hardfork name (an OP fork name when `kind` is op-stack); default DEFAULT_HARDFORK */
  hardfork?: string
  /** `op-stack`: the devnet runs as an OP-stack chain (opDevnet.ts); default: an Ethereum chain */
  kind?: ChainKind
}

export interface Devnet extends ChainSource {
  readonly hardfork: string
  /** the head block number */
  head(): bigint
  /** every receipt of the demo history, in chain order */
  receipts(): DevnetReceipt[]
  getReceipt(hash: Hex): DevnetReceipt | undefined
}

export async function createDevnet(opts: DevnetOptions = {}): Promise<Devnet> {
  const op = opts.kind === 'op-stack' ? opStackDevnet(opts.hardfork || undefined) : undefined
  const hardfork = op?.fork ?? (opts.hardfork || DEFAULT_HARDFORK)
  const commonFor = op?.rules.commonFactory ?? createCommonFactory(DEVNET_CHAIN_ID, hardfork)
  const common: Common = commonFor({ number: 0n, timestamp: GENESIS_TIMESTAMP })
  const alloc: Record<string, GenesisAccount> = Object.fromEntries(DEV_ACCOUNTS.map((a) => [a.address, { balance: DEV_BALANCE }]))
  // Permit2 at its canonical address, as on the chains wallets use (scripts/compile-permit2.ts)
  alloc[PERMIT2_ADDRESS] = { code: permit2.deployedBytecode as Hex }
  if (op) Object.assign(alloc, op.alloc)
  const blocks: DevnetBlock[] = []
  const getBlockHash = async (n: bigint) => blocks[Number(n)]?.header.hash
  try {
    blocks.push(genesisBlock(common, MemoryStateSource.fromAlloc(alloc), GENESIS_TIMESTAMP))
    for (const txs of demoBlocks(common)) {
      const parent = blocks[blocks.length - 1]!
      const timestamp = parent.header.timestamp + BLOCK_TIME
      blocks.push(
        op ? await mineRuledBlock({ common, parent, txs, timestamp, rules: op.rules, getBlockHash }) : await mineBlock(common, parent, txs, timestamp),
      )
    }
  } catch (e) {
    // the demo history needs EIP-1559 transactions and post-merge headers (London and later)
    throw new EngineError(
      'VALIDATION_ERROR',
      `the embedded devnet cannot run on hardfork '${hardfork}': ${(e as Error).message}`,
      undefined,
      'use london or a later fork',
    )
  }
  return devnetOver(blocks, {
    chainId: DEVNET_CHAIN_ID,
    network: 'devnet',
    hardfork,
    commonFor,
    clientVersion: 'evm-sim-service/devnet',
    ...(op && { rules: op.rules }),
  })
}

export interface DevnetShape {
  chainId: number
  /** health's network name */
  network: string
  /** the fork name the devnet reports (its head's when it follows a schedule) */
  hardfork: string
  commonFor: (at: { number: bigint; timestamp: bigint }) => Common
  clientVersion: string
  /**
   * the headers carry real state roots (a chain imported from a genesis): a simulated block on it
   * gets its real root too (ChainSource.stateRoot)
   */
  realStateRoots?: boolean
  /** the chain's rules (an OP-stack devnet's) */
  rules?: ChainRules
}

/** the ChainSource over a devnet's blocks (genesis first, each with the state after it) */
export function devnetOver(blocks: DevnetBlock[], shape: DevnetShape): Devnet {
  const { chainId, commonFor, hardfork } = shape
  const byHash = new Map<Hex, MinedTransaction>()
  const receiptByHash = new Map<Hex, DevnetReceipt>()
  for (const b of blocks) {
    for (const t of b.transactions) byHash.set(t.hash, t)
    for (const r of b.receipts) receiptByHash.set(r.transactionHash, r)
  }
  const head = () => BigInt(blocks.length - 1)
  const blockByHash = new Map(blocks.map((b) => [b.header.hash, b]))
  const view: DevnetView = {
    chainId,
    head,
    blockAt: (n) => (n >= 0n && n <= head() ? blocks[Number(n)] : undefined),
    blockByHash: (h) => blockByHash.get(h),
    locate(h) {
      const t = byHash.get(h)
      return t ? { block: blocks[Number(t.blockNumber)]!, index: t.index } : undefined
    },
    clientVersion: shape.clientVersion,
    ...(shape.rules?.txJsonFields && { txJsonFields: shape.rules.txJsonFields }),
    ...(shape.rules?.encodeTx && { encodeTx: shape.rules.encodeTx }),
  }

  function blockAt(n: bigint): DevnetBlock {
    const b = n >= 0n && n <= head() ? blocks[Number(n)] : undefined
    if (!b) throw new EngineError('BLOCK_NOT_FOUND', `block ${toQuantity(n)} is beyond the chain head ${toQuantity(head())}`)
    return b
  }

  return {
    chainId,
    network: shape.network,
    ...(shape.rules && { rules: shape.rules }),
    hardfork,
    head,
    receipts: () => blocks.flatMap((b) => b.receipts),
    getReceipt: (hash) => receiptByHash.get(hash.toLowerCase() as Hex),
    async resolveBlock(selector: BlockSelector): Promise<BlockHeaderInfo> {
      // no mempool, no finality gadget: every tag but `earliest` is the head
      if ('number' in selector) return { ...blockAt(selector.number).header }
      return { ...blockAt(selector.tag === 'earliest' ? 0n : head()).header }
    },
    async stateAfter(number: bigint): Promise<OverlayStateManager> {
      return new OverlayStateManager(blockAt(number).state)
    },
    commonAt: (header) => commonFor(header),
    async getBlockHash(n: bigint): Promise<Hex | undefined> {
      return n >= 0n && n <= head() ? blocks[Number(n)]!.header.hash : undefined
    },
    async headerByHash(hash: Hex): Promise<BlockHeaderInfo | undefined> {
      const b = blocks.find((x) => x.header.hash === hash.toLowerCase())
      return b ? { ...b.header } : undefined
    },
    async getTransaction(hash: Hex): Promise<MinedTransaction | undefined> {
      return byHash.get(hash.toLowerCase() as Hex)
    },
    async getBlockTransactions(number: bigint): Promise<MinedTransaction[]> {
      return [...blockAt(number).transactions]
    },
    rawRead: (method, params) => devnetRead(view, method, params),
    ...(shape.realStateRoots && {
      async stateRoot(number: bigint, state: OverlayStateManager): Promise<Hex> {
        return bytesToHex(await stateRootOf(blockAt(number).state.withWrites(state.flatten()))) as Hex
      },
    }),
    async ping() {
      return true
    },
    async close() {},
  }
}
