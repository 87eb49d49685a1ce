/**
 * rpcChain: a ChainSource over an upstream JSON-RPC node (fork mode).
 *
 * - chain id from eth_chainId at start; the hardfork per block from the chain's schedule
 *   (engine/platform/hardfork.ts), or the operator's fixed fork;
 * - resolveBlock with eth_getBlockByNumber (tags, or a number; BLOCK_NOT_FOUND past the head),
 *   headers kept per number (a few hundred, in process);
 * - stateAfter(n): a fresh OverlayStateManager over the process-wide ForkCache at block n (entries
 *   of blocks within REORG_DEPTH of the head get a TTL, in case the block is replaced);
 * - mined transactions from eth_getTransactionByHash / eth_getBlockByNumber(full) as ethereumjs
 *   typed txs whose sender is the node's `from` (replays skip signature recovery);
 * - prefetch: the fork cache's eth_createAccessList warm-up, coinbase included; whether a run is
 *   cold or warm is the prefetch policy's (prefetchPolicy.ts), the head it guesses from the head
 *   tracker's (headTracker.ts).
 * Every upstream failure is an EngineError STATE_ACCESS_ERROR from the RpcClient, URL-free.
 */
import type { Common } from '@ethereumjs/common'
import { createTxFromRPC, type TypedTransaction } from '@ethereumjs/tx'
import { createAddressFromString } from '@ethereumjs/util'
import { LRUCache } from 'lru-cache'
import type { Address, Hex } from 'viem'
import type { CacheStore } from '../../state/store/cacheStore.js'
import { EngineError } from '../../platform/errors.js'
import { createCommonFactory, networkName } from '../../platform/hardfork.js'
import { ForkCache, OverlayStateManager, type AccessList } from '../../state/index.js'
import { createRpcClient, withBudget, type RpcClient } from '../../upstream/rpcClient.js'
import type { UpstreamBudget } from '../../upstream/upstreamBudget.js'
import { stateBlock, type BlockSelector } from '../../platform/blockRef.js'
import { checkForwarded } from '../../upstream/forwardedAnswers.js'
import { readUpstream, type UpstreamAnswer } from '../../upstream/upstreamAnswers.js'
import { HeadTracker } from './headTracker.js'
import { planRun, warmRead, type PrefetchView } from './prefetchPolicy.js'
import { chainRulesFor, type ChainKind, type ChainRules } from '../rules.js'
import type { AlsoReads, BlockHeaderInfo, ChainSource, MinedTransaction, PrefetchCalls, SideReads } from '../types.js'
import type { RunStop } from '../../execution/types.js'
import { toQuantity as q } from '../../platform/quantity.js'

/** blocks this close to the head may still be replaced: their cached state expires */
const REORG_DEPTH = 64n
const NEAR_HEAD_TTL_SECONDS = 600
/** a header near the head is kept this long (a reorg replacing it within seconds is rare) */
const NEAR_HEAD_HEADER_TTL_MS = 12_000
/** simulations read token metadata with calls from the zero address: prefetch it too */
const ZERO_ADDRESS: Address = '0x0000000000000000000000000000000000000000'

export interface RpcChainOptions {
  url: string
  timeoutMs: number
  cache: CacheStore
  /** bound of the fork-state hot layer, bytes (ForkCache default when undefined) */
  forkCacheBytes?: number
  /** fixed hardfork (an OP fork name on an OP-stack chain); undefined: follow the chain (known schedule or the default) */
  hardfork?: string
  /** the chain's kind; undefined: by its id (known OP-stack and Arbitrum chains), else ethereum */
  kind?: ChainKind
  /** for tests: a ready client (its request counter is what they assert on) */
  rpc?: RpcClient
  /** the chain id the upstream answered before: not asked again (a replacement worker starts while the upstream is silent) */
  knownChainId?: number
  /**
   * how long the newest head seen counts as `latest` (ms): a request at `latest` within that age
   * runs on it without asking upstream. 0: `latest` is resolved on every request.
   */
  headMaxAgeMs?: number
}

export interface RpcChain extends ChainSource {
  readonly rpc: RpcClient
  readonly fork: ForkCache
}

/** the default of `chain.head_max_age_ms`: about a tenth of a mainnet slot */
export const DEFAULT_HEAD_MAX_AGE_MS = 1_000

/** blocks and transactions as checked at the edge (upstreamAnswers.ts): every field read is well-formed */
type RpcBlock = NonNullable<UpstreamAnswer<'eth_getBlockByNumber(hashes)'>>
type RpcFullBlock = NonNullable<UpstreamAnswer<'eth_getBlockByNumber(full)'>>
type RpcTx = NonNullable<UpstreamAnswer<'eth_getTransactionByHash'>>

export async function createRpcChain(opts: RpcChainOptions): Promise<RpcChain> {
  const baseRpc = opts.rpc ?? createRpcClient({ url: opts.url, timeoutMs: opts.timeoutMs })
  const chainIdHex = opts.knownChainId !== undefined ? q(BigInt(opts.knownChainId)) : readUpstream('eth_chainId', await baseRpc.request('eth_chainId'))
  const chainId = Number(BigInt(chainIdHex))
  if (!Number.isSafeInteger(chainId) || chainId <= 0) throw new EngineError('STATE_ACCESS_ERROR', 'the upstream node answered an invalid chain id')
  const rules = chainRulesFor({ chainId, kind: opts.kind, hardfork: opts.hardfork })
  const commonFor = rules?.commonFactory ?? createCommonFactory(chainId, opts.hardfork)
  const fork = new ForkCache({ rpc: baseRpc, chainId, cache: opts.cache, hotMaxBytes: opts.forkCacheBytes })
  const headers = new LRUCache<string, BlockHeaderInfo>({ max: 512, ttlAutopurge: false })
  /** blocks read whole for a replay, briefly: the transaction's lookup and the replay share one read */
  const recentBlocks = new LRUCache<string, Promise<MinedTransaction[]>>({ max: 4, ttl: NEAR_HEAD_HEADER_TTL_MS })
  const head = new HeadTracker(opts.headMaxAgeMs ?? DEFAULT_HEAD_MAX_AGE_MS)
  /** what the prefetch policy reads of the head and of the fork cache */
  const view = (): PrefetchView => ({
    trackedHead: head.latest()?.number,
    get recentHead() {
      return head.recent()
    },
    hintsHeld: (block, calls) => fork.hints.has(block, calls),
    holdsAccounts: (block, accounts) =>
      fork.holdsReads(
        block,
        accounts.map((address) => ({ address })),
      ),
  })
  const tagsInFlight = new Map<string, Promise<BlockHeaderInfo>>()

  /**
   * The chain's methods over one transport: the engine's (no budget, start-up) or an engine call's,
   * whose every upstream wait ends by its budget (`withBudget`, engine/upstream/upstreamBudget.ts) and
   * whose runs stop where its `stop` says. `runStop` is a field of every view (undefined when
   * there is none), so all of them share one shape: the engine reads the chain's methods from a
   * new view on every call.
   */
  function bind(rpc: RpcClient, budget: UpstreamBudget | undefined, stop: RunStop | undefined): RpcChain {
    async function fetchBlock(tagOrNumber: Hex | string): Promise<RpcBlock | null> {
      return readUpstream('eth_getBlockByNumber(hashes)', await rpc.request('eth_getBlockByNumber', [tagOrNumber, false]))
    }

    async function fetchFullBlock(n: bigint): Promise<RpcFullBlock | null> {
      return readUpstream('eth_getBlockByNumber(full)', await rpc.request('eth_getBlockByNumber', [q(n), true]))
    }

    function toHeader(b: RpcBlock | RpcFullBlock): BlockHeaderInfo {
      try {
        return {
          number: BigInt(b.number),
          timestamp: BigInt(b.timestamp),
          gasLimit: BigInt(b.gasLimit),
          coinbase: b.miner.toLowerCase() as Address,
          baseFeePerGas: b.baseFeePerGas !== undefined ? BigInt(b.baseFeePerGas) : undefined,
          difficulty: BigInt(b.difficulty ?? '0x0'),
          prevRandao: (b.mixHash ?? `0x${'0'.repeat(64)}`).toLowerCase() as Hex,
          excessBlobGas: b.excessBlobGas !== undefined ? BigInt(b.excessBlobGas) : undefined,
          parentBeaconBlockRoot: b.parentBeaconBlockRoot?.toLowerCase() as Hex | undefined,
          hash: b.hash.toLowerCase() as Hex,
          parentHash: b.parentHash.toLowerCase() as Hex,
          ...(b.gasUsed !== undefined && { gasUsed: BigInt(b.gasUsed) }),
          ...(b.blobGasUsed !== undefined && { blobGasUsed: BigInt(b.blobGasUsed) }),
          ...(b.extraData !== undefined && b.extraData !== '0x' && { extraData: b.extraData.toLowerCase() as Hex }),
        }
      } catch {
        throw new EngineError('STATE_ACCESS_ERROR', 'the upstream node answered a malformed block')
      }
    }

    /** a header from the hot layer or the cache store (shared by instances on one Redis), never upstream */
    async function storedHeader(n: bigint): Promise<BlockHeaderInfo | undefined> {
      const hit = headers.get(q(n))
      if (hit) return hit
      const raw = await opts.cache.get(headerKey(chainId, n)).catch(() => undefined)
      const h = raw && decodeHeader(raw)
      if (!h || h.number !== n) return undefined
      headers.set(q(n), h, head.depthOf(h.number) > REORG_DEPTH ? undefined : { ttl: NEAR_HEAD_HEADER_TTL_MS })
      return h
    }

    function keepHeader(h: BlockHeaderInfo): void {
      const deep = head.depthOf(h.number) > REORG_DEPTH
      headers.set(q(h.number), h, deep ? undefined : { ttl: NEAR_HEAD_HEADER_TTL_MS })
      opts.cache.set(headerKey(chainId, h.number), encodeHeader(h), deep ? undefined : NEAR_HEAD_HEADER_TTL_MS / 1000).catch(() => undefined)
    }

    async function headerAt(n: bigint): Promise<BlockHeaderInfo> {
      const known = await storedHeader(n)
      if (known) return known
      const b = await fetchBlock(q(n))
      if (!b) {
        const latest = readUpstream('eth_blockNumber', await rpc.request('eth_blockNumber'))
        throw new EngineError('BLOCK_NOT_FOUND', `block ${q(n)} is beyond the chain head ${latest} or not available upstream`)
      }
      const h = toHeader(b)
      head.saw(h.number)
      keepHeader(h)
      return h
    }

    /**
     * Every transaction of block `n`, read whole (its header kept too). A replay asks for its
     * transaction, then for the block's: the block read for the first answers the second, so a
     * cold trace of a mined transaction costs the transaction; the block with the transaction's
     * own hint; the state it names with the earlier transactions' hints (and a 4th round trip only
     * for state those name besides). Kept briefly (few blocks, a header's TTL).
     */
    function blockTransactions(n: bigint): Promise<MinedTransaction[]> {
      const key = q(n)
      let txs = recentBlocks.get(key)
      if (!txs) {
        txs = (async () => {
          const b = await fetchFullBlock(n)
          if (!b) throw new EngineError('BLOCK_NOT_FOUND', `block ${q(n)} is not available upstream`)
          const header = toHeader(b)
          head.saw(header.number)
          keepHeader(header)
          return Promise.all(b.transactions.map((t) => mined(t, header)))
        })()
        recentBlocks.set(key, txs)
        txs.catch(() => recentBlocks.delete(key))
      }
      return txs
    }

    /**
     * A mined transaction's access-list hint at `block`: held, or in the cache store (another
     * instance traced it), else asked now (with an in-process store, in the batch being built) and kept.
     */
    async function hintOf(t: RpcTx, block: bigint): Promise<void> {
      const call = { from: t.from as Address, to: (t.to ?? null) as Address | null, data: t.input as Hex, value: BigInt(t.value) }
      await fork.hints.get(block, [call], ttlFor(block), budget)
    }

    async function resolveBlock(asked: BlockSelector): Promise<BlockHeaderInfo> {
      const selector = stateBlock(asked)
      if ('number' in selector) return { ...(await headerAt(selector.number)) }
      const tag = selector.tag
      const tracked = tag === 'latest' ? head.latest() : undefined
      if (tracked) return { ...tracked }
      // concurrent requests for the same tag share one upstream call (never a stale answer)
      let p = tagsInFlight.get(tag)
      if (!p) {
        p = fetchTag(tag, 'tag' in asked ? asked.tag : tag)
        tagsInFlight.set(tag, p)
        const done = () => tagsInFlight.delete(tag)
        p.then(done, done)
      }
      return { ...(await p) }
    }

    async function fetchTag(tag: string, asked: string): Promise<BlockHeaderInfo> {
      const b = await fetchBlock(tag)
      if (!b) throw new EngineError('BLOCK_NOT_FOUND', `the upstream node has no '${asked}' block`)
      const h = toHeader(b)
      if (tag === 'latest') head.sawLatest(h)
      keepHeader(h)
      return h
    }

    async function prefetch(n: bigint, calls: PrefetchCalls, accessLists?: (AccessList | undefined)[], also?: AccessList): Promise<void> {
      // the caller names what else the run reads, or the coinbase of this block is guessed at (a
      // header read, usually cached: the block was just resolved)
      const header = also ? undefined : await headerAt(n).catch(() => undefined)
      const extra: AccessList = [...(also ?? (header ? [{ address: header.coinbase, storageKeys: [] }] : [])), { address: ZERO_ADDRESS, storageKeys: [] }]
      await fork.prefetch(n, calls, { also: extra, ttlSeconds: ttlFor(n), accessLists, budget })
    }

    /**
     * The block and, when the calls look cold, their access-list hints in ONE batch (asked at the
     * same tag or number as the block), then every account and slot named in one more: a cold run
     * costs 2 round trips instead of 3. Warm-looking calls (hints cached at the known head) skip the
     * hint request, so a warm run costs only what resolving the block costs.
     */
    async function resolveForCalls(
      asked: BlockSelector,
      calls: PrefetchCalls,
      opts: { sideReads?: SideReads; also?: AlsoReads } = {},
    ): Promise<BlockHeaderInfo> {
      const selector = stateBlock(asked)
      // the caller's other reads, with the block's coinbase (prefetch guesses only that one)
      const alsoAt = (h: BlockHeaderInfo): AccessList | undefined => opts.also && [{ address: h.coinbase, storageKeys: [] }, ...opts.also(h)]
      const latest = 'tag' in selector && selector.tag === 'latest'
      const policy = view()
      const { guess, warm } = planRun(selector, calls, policy)
      if (warm) {
        const header = await resolveBlock(selector)
        let known: (AccessList | undefined)[] | undefined
        const read = warmRead(header.number, guess, calls, policy)
        if (read === 'accounts') {
          // warm by its accounts, not by a cached hint: no hint is asked (what is missing is read when read)
          known = calls.map(() => [])
        } else if (read === 'moved') {
          // the head moved past the block the hints were asked at: they still name what these
          // calls touch (hints, never state), so the new block's state is read in one batch at
          // once, instead of asking the hints again first (2 round trips, not 3)
          known = await fork.hints.stored(guess!, calls)
          if (known) {
            fork.hints.remember(header.number, calls, known, ttlFor(header.number))
            // a new block: what the run reads after it ran is not held at it either
            await prefetchWithSideReads(header.number, calls, known, opts.sideReads, alsoAt(header))
            return header
          }
        }
        await prefetch(header.number, calls, known, alsoAt(header))
        return header
      }
      if ('number' in selector) {
        // another instance on the same store may have run these calls at this block: its header
        // and hints are there, and the state they name too
        const [header, lists] = await Promise.all([storedHeader(selector.number), fork.hints.stored(selector.number, calls, ttlFor(selector.number))])
        if (header && lists) {
          await prefetch(header.number, calls, lists, alsoAt(header))
          return { ...header }
        }
      }
      const tag = 'number' in selector ? q(selector.number) : latest ? 'latest' : selector.tag
      // both issued before any await: one JSON-RPC batch
      const [header, lists] = await Promise.all([resolveBlock(selector), fork.hints.request(tag, calls, budget)])
      // at a tag the head may have moved between the two answers: the lists are hints, never state
      fork.hints.remember(header.number, calls, lists, ttlFor(header.number))
      await prefetchWithSideReads(header.number, calls, lists, opts.sideReads, alsoAt(header))
      return header
    }

    /** the state the hints name, with the caller's side reads in the same batch */
    async function prefetchWithSideReads(
      n: bigint,
      calls: PrefetchCalls,
      lists: (AccessList | undefined)[],
      sideReads: SideReads | undefined,
      also: AccessList | undefined,
    ): Promise<void> {
      // what is kept already is not asked again (a route's metadata at a block whose state is
      // held: alone, these reads would be a round trip of their own); the rest waits for the
      // state batch and leaves with it
      const send = sideReads && (await sideReads(n, lists).catch(() => undefined))
      const side = send?.((method, params) => rpc.request(method, params, { deferred: true }))
      try {
        await prefetch(n, calls, lists, also)
      } finally {
        // what no state batch carried (all state held already) leaves now
        rpc.flushDeferred()
      }
      await side?.catch(() => undefined)
    }

    function mined(t: RpcTx, blockHeader: BlockHeaderInfo): Promise<MinedTransaction> {
      return toMined(t, commonFor(blockHeader), rules)
    }

    function ttlFor(n: bigint): number | undefined {
      return head.depthOf(n) <= REORG_DEPTH ? NEAR_HEAD_TTL_SECONDS : undefined
    }

    return {
      chainId,
      network: networkName(chainId),
      ...(rules && { rules }),
      rpc,
      withBudget: (b, s) => bind(withBudget(baseRpc, b), b, s),
      runStop: stop,
      fork,
      resolveBlock,
      async stateAfter(n: bigint): Promise<OverlayStateManager> {
        return new OverlayStateManager(fork.at(n, { ttlSeconds: ttlFor(n), budget }))
      },
      commonAt: (header): Common => commonFor(header),
      async getBlockHash(n: bigint) {
        if (n < 0n) return undefined
        try {
          return (await headerAt(n)).hash
        } catch (e) {
          if (e instanceof EngineError && e.code === 'BLOCK_NOT_FOUND') return undefined
          throw e
        }
      },
      async headerByHash(hash: Hex) {
        const b = readUpstream('eth_getBlockByHash(hashes)', await rpc.request('eth_getBlockByHash', [hash, false]))
        return b ? toHeader(b) : undefined
      },
      async getTransaction(hash: Hex) {
        const t = readUpstream('eth_getTransactionByHash', await rpc.request('eth_getTransactionByHash', [hash]))
        if (!t || t.blockNumber === null) return undefined
        const n = BigInt(t.blockNumber)
        // a replay needs the whole block next: read it whole now, header and transactions in one
        // answer; and the transaction's own hint at the parent block rides in the same batch, so
        // the replay's prefetch reads the state it names while it asks the earlier transactions'
        const [txs] = await Promise.all([blockTransactions(n).catch(() => undefined), n > 0n ? hintOf(t, n - 1n) : undefined])
        const own = txs?.find((x) => x.hash === t.hash.toLowerCase())
        // not in the block read by number: replaced between the two answers (a reorg near the head)
        return own ?? mined(t, await headerAt(BigInt(t.blockNumber)))
      },
      getBlockTransactions: blockTransactions,
      prefetch: (n, calls, opts) => prefetch(n, calls, undefined, opts?.also),
      resolveForCalls,
      // every forwarded answer is checked: a malformed one never reaches a caller or the cache
      rawRead: async (method, params) => checkForwarded(method, params, await rpc.request(method, params)),
      reorgDepth: REORG_DEPTH,
      forgetHead: () => head.forget(),
      metrics: () => ({
        upstream: { httpRequests: baseRpc.stats.httpRequests, calls: baseRpc.metrics.snapshot() },
        forkReads: { ...fork.reads },
        head: Number(head.number),
      }),
      async ping() {
        try {
          // a probe: asks even a node that stalled, so health sees it answer again
          const n = readUpstream('eth_blockNumber', await rpc.request('eth_blockNumber', [], { probe: true }))
          // the head it answers is a head seen (what the metrics report of an idle chain)
          head.saw(BigInt(n))
          return true
        } catch {
          return false
        }
      },
      async close() {
        rpc.close()
      },
    }
  }

  return bind(baseRpc, undefined, undefined)
}

/** an ethereumjs typed tx from the node's JSON, its sender fixed to the node's `from` */
async function toMined(t: RpcTx, common: Common, rules: ChainRules | undefined): Promise<MinedTransaction> {
  let tx: TypedTransaction
  // the chain's own transaction types first (an OP deposit; Arbitrum's answer NOT_EMULATED)
  const own = await rules?.decodeTx?.(t as Record<string, unknown>, common)
  if (own)
    return {
      tx: own.tx,
      from: own.from,
      hash: t.hash.toLowerCase() as Hex,
      blockNumber: BigInt(t.blockNumber!),
      index: Number(BigInt(t.transactionIndex ?? '0x0')),
    }
  try {
    tx = (await createTxFromRPC(t as never, { common, freeze: false })) as TypedTransaction
  } catch {
    throw new EngineError('VALIDATION_ERROR', `transaction ${t.hash} has a type (${t.type ?? 'unknown'}) this service cannot replay`)
  }
  const from = t.from.toLowerCase() as Address
  const sender = createAddressFromString(from)
  // the node already recovered the sender: replays must not pay (or fail) recovering it again
  ;(tx as { getSenderAddress: () => typeof sender }).getSenderAddress = () => sender
  return {
    tx,
    from,
    hash: t.hash.toLowerCase() as Hex,
    blockNumber: BigInt(t.blockNumber!),
    index: Number(BigInt(t.transactionIndex ?? '0x0')),
  }
}

/** headers in the cache store, shared by instances: under the fork's own key space */
const headerKey = (chainId: number, n: bigint) => `fs:${chainId}:${n.toString(16)}:h`

// made once: a TextEncoder or TextDecoder per header read or written costs microseconds
const utf8Encoder = new TextEncoder()
const utf8Decoder = new TextDecoder()
const HEADER_FIELDS = ['number', 'timestamp', 'gasLimit', 'baseFeePerGas', 'difficulty', 'excessBlobGas', 'gasUsed', 'blobGasUsed'] as const

function encodeHeader(h: BlockHeaderInfo): Uint8Array {
  const json: Record<string, string> = { coinbase: h.coinbase, prevRandao: h.prevRandao, hash: h.hash, parentHash: h.parentHash }
  for (const f of HEADER_FIELDS) if (h[f] !== undefined) json[f] = q(h[f]!)
  if (h.parentBeaconBlockRoot) json.parentBeaconBlockRoot = h.parentBeaconBlockRoot
  if (h.extraData) json.extraData = h.extraData
  return utf8Encoder.encode(JSON.stringify(json))
}

/** undefined for anything that is not a header this code wrote */
function decodeHeader(raw: Uint8Array): BlockHeaderInfo | undefined {
  try {
    const j = JSON.parse(utf8Decoder.decode(raw)) as Record<string, string | undefined>
    const big = (k: string) => (j[k] === undefined ? undefined : BigInt(j[k]!))
    if (!j.number || !j.hash || !j.parentHash || !j.coinbase || !j.prevRandao) return undefined
    return {
      number: BigInt(j.number),
      timestamp: BigInt(j.timestamp!),
      gasLimit: BigInt(j.gasLimit!),
      coinbase: j.coinbase as Address,
      baseFeePerGas: big('baseFeePerGas'),
      difficulty: BigInt(j.difficulty ?? '0x0'),
      prevRandao: j.prevRandao as Hex,
      excessBlobGas: big('excessBlobGas'),
      parentBeaconBlockRoot: j.parentBeaconBlockRoot as Hex | undefined,
      hash: j.hash as Hex,
      parentHash: j.parentHash as Hex,
      ...(j.gasUsed !== undefined && { gasUsed: BigInt(j.gasUsed) }),
      ...(j.blobGasUsed !== undefined && { blobGasUsed: BigInt(j.blobGasUsed) }),
      ...(j.extraData !== undefined && { extraData: j.extraData as Hex }),
    }
  } catch {
    return undefined
  }
}
