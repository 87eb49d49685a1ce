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
import { toQuantity as q } from '../../platform/quantity.js'
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
import { readUpstream } from '../../upstream/upstreamAnswers.js'
import { HeadTracker } from './headTracker.js'
import { planRun, warmRead, type PrefetchView } from './prefetchPolicy.js'
import { decodeHeader, encodeHeader, headerKey, toHeader, type RpcBlock, type RpcFullBlock } from './blockHeaders.js'
import { toMined, type RpcTx } from './minedTransactions.js'
import { chainRulesFor, type ChainKind, type ChainRules } from '../rules.js'
import type { AlsoReads, BlockHeaderInfo, ChainSource, MinedTransaction, PrefetchCalls, SideReads } from '../types.js'
import type { RunStop } from '../../execution/types.js'

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

/** the chain over the upstream at `opts.url`: its id asked once (or known), its caches made */
export async function createRpcChain(opts: RpcChainOptions): Promise<RpcChain> {
  const base = await openChain(opts)
  return bindChain(base, base.baseRpc, undefined, undefined)
}

/** what every view of one chain shares: its identity, its caches, and the head it has seen */
interface ChainBase {
  readonly cache: CacheStore
  /** the engine's own transport (no budget): every view's is made from it */
  readonly baseRpc: RpcClient
  readonly chainId: number
  readonly rules: ChainRules | undefined
  readonly commonFor: (at: { number: bigint; timestamp: bigint }) => Common
  readonly fork: ForkCache
  readonly headers: LRUCache<string, BlockHeaderInfo>
  /** blocks read whole for a replay, briefly: the transaction's lookup and the replay share one read */
  readonly recentBlocks: LRUCache<string, Promise<MinedTransaction[]>>
  readonly head: HeadTracker
  /** tags being resolved now: concurrent requests for one tag share one upstream call */
  readonly tagsInFlight: Map<string, Promise<BlockHeaderInfo>>
}

/** one view of a chain: its base read over one transport, whose upstream waits end by `budget` */
interface ChainView {
  readonly base: ChainBase
  readonly rpc: RpcClient
  readonly budget: UpstreamBudget | undefined
}

async function openChain(opts: RpcChainOptions): Promise<ChainBase> {
  const baseRpc = opts.rpc ?? createRpcClient({ url: opts.url, timeoutMs: opts.timeoutMs })
  const chainId = await upstreamChainId(baseRpc, opts.knownChainId)
  const rules = chainRulesFor({ chainId, kind: opts.kind, hardfork: opts.hardfork })
  return {
    cache: opts.cache,
    baseRpc,
    chainId,
    rules,
    commonFor: rules?.commonFactory ?? createCommonFactory(chainId, opts.hardfork),
    fork: new ForkCache({ rpc: baseRpc, chainId, cache: opts.cache, hotMaxBytes: opts.forkCacheBytes }),
    headers: new LRUCache<string, BlockHeaderInfo>({ max: 512, ttlAutopurge: false }),
    recentBlocks: new LRUCache<string, Promise<MinedTransaction[]>>({ max: 4, ttl: NEAR_HEAD_HEADER_TTL_MS }),
    head: new HeadTracker(opts.headMaxAgeMs ?? DEFAULT_HEAD_MAX_AGE_MS),
    tagsInFlight: new Map(),
  }
}

/** the chain id the upstream answers (or `known`, not asked again), checked to be a usable one */
async function upstreamChainId(rpc: RpcClient, known: number | undefined): Promise<number> {
  const chainIdHex = known !== undefined ? q(BigInt(known)) : readUpstream('eth_chainId', await rpc.request('eth_chainId'))
  const chainId = Number(BigInt(chainIdHex))
  if (!Number.isSafeInteger(chainId) || chainId <= 0) throw new EngineError('STATE_ACCESS_ERROR', 'the upstream node answered an invalid chain id')
  return chainId
}

/**
 * The chain's methods over one transport: the engine's (no budget, start-up) or an engine call's,
 * whose every upstream wait ends by its budget (`withBudget`, engine/upstream/upstreamBudget.ts) and
 * whose runs stop where its `stop` says. `runStop` is a field of every view (undefined when
 * there is none), so all of them share one shape: the engine reads the chain's methods from a
 * new view on every call.
 */
function bindChain(base: ChainBase, rpc: RpcClient, budget: UpstreamBudget | undefined, stop: RunStop | undefined): RpcChain {
  const v: ChainView = { base, rpc, budget }
  const { chainId, rules, fork, head } = base
  return {
    chainId,
    network: networkName(chainId),
    ...(rules && { rules }),
    rpc,
    withBudget: (b, s) => bindChain(base, withBudget(base.baseRpc, b), b, s),
    runStop: stop,
    fork,
    resolveBlock: (asked) => resolveBlock(v, asked),
    async stateAfter(n: bigint): Promise<OverlayStateManager> {
      return new OverlayStateManager(fork.at(n, { ttlSeconds: ttlFor(base, n), budget }))
    },
    commonAt: (header): Common => base.commonFor(header),
    getBlockHash: (n) => blockHashAt(v, n),
    headerByHash: (hash) => headerByHash(v, hash),
    getTransaction: (hash) => minedTransaction(v, hash),
    getBlockTransactions: (n) => blockTransactions(v, n),
    prefetch: (n, calls, o) => prefetch(v, n, calls, undefined, o?.also),
    resolveForCalls: (asked, calls, o) => resolveForCalls(v, asked, calls, o),
    // every forwarded answer is checked: a malformed one never reaches a caller or the cache
    rawRead: async (method, params) => checkForwarded(method, params, await rpc.request(method, params)),
    reorgDepth: REORG_DEPTH,
    forgetHead: () => head.forget(),
    metrics: () => ({
      upstream: { httpRequests: base.baseRpc.stats.httpRequests, calls: base.baseRpc.metrics.snapshot() },
      forkReads: { ...fork.reads },
      head: Number(head.number),
    }),
    ping: () => probeHead(v),
    async close() {
      rpc.close()
    },
  }
}

/** a probe: asks even a node that stalled, so health sees it answer again */
async function probeHead({ base, rpc }: ChainView): Promise<boolean> {
  try {
    const n = readUpstream('eth_blockNumber', await rpc.request('eth_blockNumber', [], { probe: true }))
    // the head it answers is a head seen (what the metrics report of an idle chain)
    base.head.saw(BigInt(n))
    return true
  } catch {
    return false
  }
}

// ---- headers: held in process, in the cache store, or read upstream ----

/** a state entry or header this close to the head may be replaced by a reorg: it expires */
function ttlFor(base: ChainBase, n: bigint): number | undefined {
  return base.head.depthOf(n) <= REORG_DEPTH ? NEAR_HEAD_TTL_SECONDS : undefined
}

async function fetchBlock(rpc: RpcClient, tagOrNumber: Hex | string): Promise<RpcBlock | null> {
  return readUpstream('eth_getBlockByNumber(hashes)', await rpc.request('eth_getBlockByNumber', [tagOrNumber, false]))
}

async function fetchFullBlock(rpc: RpcClient, n: bigint): Promise<RpcFullBlock | null> {
  return readUpstream('eth_getBlockByNumber(full)', await rpc.request('eth_getBlockByNumber', [q(n), true]))
}

/** a header from the hot layer or the cache store (shared by instances on one Redis), never upstream */
async function storedHeader(base: ChainBase, n: bigint): Promise<BlockHeaderInfo | undefined> {
  const hit = base.headers.get(q(n))
  if (hit) return hit
  const raw = await base.cache.get(headerKey(base.chainId, n)).catch(() => undefined)
  const h = raw && decodeHeader(raw)
  if (!h || h.number !== n) return undefined
  base.headers.set(q(n), h, base.head.depthOf(h.number) > REORG_DEPTH ? undefined : { ttl: NEAR_HEAD_HEADER_TTL_MS })
  return h
}

/** a header read upstream, kept in process and in the cache store (briefly, near the head) */
function keepHeader(base: ChainBase, h: BlockHeaderInfo): void {
  const deep = base.head.depthOf(h.number) > REORG_DEPTH
  base.headers.set(q(h.number), h, deep ? undefined : { ttl: NEAR_HEAD_HEADER_TTL_MS })
  base.cache.set(headerKey(base.chainId, h.number), encodeHeader(h), deep ? undefined : NEAR_HEAD_HEADER_TTL_MS / 1000).catch(() => undefined)
}

async function headerAt({ base, rpc }: ChainView, n: bigint): Promise<BlockHeaderInfo> {
  const known = await storedHeader(base, n)
  if (known) return known
  const b = await fetchBlock(rpc, q(n))
  if (!b) {
    const latest = readUpstream('eth_blockNumber', await rpc.request('eth_blockNumber'))
    throw new EngineError('BLOCK_NOT_FOUND', `block ${q(n)} is beyond the chain head ${latest} or not available upstream`)
  }
  const h = toHeader(b)
  base.head.saw(h.number)
  keepHeader(base, h)
  return h
}

async function blockHashAt(v: ChainView, n: bigint): Promise<Hex | undefined> {
  if (n < 0n) return undefined
  try {
    return (await headerAt(v, n)).hash
  } catch (e) {
    if (e instanceof EngineError && e.code === 'BLOCK_NOT_FOUND') return undefined
    throw e
  }
}

async function headerByHash({ rpc }: ChainView, hash: Hex): Promise<BlockHeaderInfo | undefined> {
  const b = readUpstream('eth_getBlockByHash(hashes)', await rpc.request('eth_getBlockByHash', [hash, false]))
  return b ? toHeader(b) : undefined
}

/** the block `asked` names: a number's header, the tracked head for `latest`, or the tag read upstream */
async function resolveBlock(v: ChainView, asked: BlockSelector): Promise<BlockHeaderInfo> {
  const selector = stateBlock(asked)
  if ('number' in selector) return { ...(await headerAt(v, selector.number)) }
  const tag = selector.tag
  const tracked = tag === 'latest' ? v.base.head.latest() : undefined
  if (tracked) return { ...tracked }
  // concurrent requests for the same tag share one upstream call (never a stale answer)
  const inFlight = v.base.tagsInFlight
  let p = inFlight.get(tag)
  if (!p) {
    p = fetchTag(v, tag, 'tag' in asked ? asked.tag : tag)
    inFlight.set(tag, p)
    const done = () => inFlight.delete(tag)
    p.then(done, done)
  }
  return { ...(await p) }
}

async function fetchTag({ base, rpc }: ChainView, tag: string, asked: string): Promise<BlockHeaderInfo> {
  const b = await fetchBlock(rpc, tag)
  if (!b) throw new EngineError('BLOCK_NOT_FOUND', `the upstream node has no '${asked}' block`)
  const h = toHeader(b)
  if (tag === 'latest') base.head.sawLatest(h)
  keepHeader(base, h)
  return h
}

// ---- mined transactions, for replays ----

/**
 * A mined transaction by hash. A replay needs the whole block next: it is read whole now, header
 * and transactions in one answer; and the transaction's own hint at the parent block rides in the
 * same batch, so the replay's prefetch reads the state it names while it asks the earlier
 * transactions'.
 */
async function minedTransaction(v: ChainView, hash: Hex): Promise<MinedTransaction | undefined> {
  const t = readUpstream('eth_getTransactionByHash', await v.rpc.request('eth_getTransactionByHash', [hash]))
  if (!t || t.blockNumber === null) return undefined
  const n = BigInt(t.blockNumber)
  const [txs] = await Promise.all([blockTransactions(v, n).catch(() => undefined), n > 0n ? hintOf(v, t, n - 1n) : undefined])
  const own = txs?.find((x) => x.hash === t.hash.toLowerCase())
  // not in the block read by number: replaced between the two answers (a reorg near the head)
  return own ?? toMined(t, v.base.commonFor(await headerAt(v, BigInt(t.blockNumber))), v.base.rules)
}

/**
 * Every transaction of block `n`, read whole (its header kept too). A replay asks for its
 * transaction, then for the block's: the block read for the first answers the second, so a
 * cold trace of a mined transaction costs the transaction; the block with the transaction's
 * own hint; the state it names with the earlier transactions' hints (and a 4th round trip only
 * for state those name besides). Kept briefly (few blocks, a header's TTL).
 */
function blockTransactions(v: ChainView, n: bigint): Promise<MinedTransaction[]> {
  const recent = v.base.recentBlocks
  const key = q(n)
  let txs = recent.get(key)
  if (!txs) {
    txs = readBlockTransactions(v, n)
    recent.set(key, txs)
    txs.catch(() => recent.delete(key))
  }
  return txs
}

async function readBlockTransactions({ base, rpc }: ChainView, n: bigint): Promise<MinedTransaction[]> {
  const b = await fetchFullBlock(rpc, n)
  if (!b) throw new EngineError('BLOCK_NOT_FOUND', `block ${q(n)} is not available upstream`)
  const header = toHeader(b)
  base.head.saw(header.number)
  keepHeader(base, header)
  return Promise.all(b.transactions.map((t) => toMined(t, base.commonFor(header), base.rules)))
}

/**
 * A mined transaction's access-list hint at `block`: held, or in the cache store (another
 * instance traced it), else asked now (with an in-process store, in the batch being built) and kept.
 */
async function hintOf({ base, budget }: ChainView, t: RpcTx, block: bigint): Promise<void> {
  const call = { from: t.from as Address, to: (t.to ?? null) as Address | null, data: t.input as Hex, value: BigInt(t.value) }
  await base.fork.hints.get(block, [call], ttlFor(base, block), budget)
}

// ---- a run's block and the state its calls read, in as few round trips as the cache allows ----

interface ResolveOptions {
  sideReads?: SideReads
  also?: AlsoReads
}

/**
 * The block and, when the calls look cold, their access-list hints in ONE batch (asked at the
 * same tag or number as the block), then every account and slot named in one more: a cold run
 * costs 2 round trips instead of 3. Warm-looking calls (hints cached at the known head) skip the
 * hint request, so a warm run costs only what resolving the block costs.
 */
async function resolveForCalls(v: ChainView, asked: BlockSelector, calls: PrefetchCalls, o: ResolveOptions = {}): Promise<BlockHeaderInfo> {
  const selector = stateBlock(asked)
  const policy = prefetchView(v.base)
  const { guess, warm } = planRun(selector, calls, policy)
  if (warm) return resolveWarm(v, selector, calls, o, guess, policy)
  if ('number' in selector) {
    const stored = await resolveFromStore(v, selector.number, calls, o)
    if (stored) return stored
  }
  return resolveCold(v, selector, calls, o)
}

/** what the prefetch policy reads of the head and of the fork cache */
function prefetchView({ head, fork }: ChainBase): PrefetchView {
  return {
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
  }
}

/** the caller's other reads, with the block's coinbase (prefetch guesses only that one) */
function alsoAt(also: AlsoReads | undefined, h: BlockHeaderInfo): AccessList | undefined {
  return also && [{ address: h.coinbase, storageKeys: [] }, ...also(h)]
}

/** warm-looking calls: the block alone, then the state known to be read */
async function resolveWarm(
  v: ChainView,
  selector: BlockSelector,
  calls: PrefetchCalls,
  o: ResolveOptions,
  guess: bigint | undefined,
  policy: PrefetchView,
): Promise<BlockHeaderInfo> {
  const header = await resolveBlock(v, selector)
  let known: (AccessList | undefined)[] | undefined
  const read = warmRead(header.number, guess, calls, policy)
  if (read === 'accounts') {
    // warm by its accounts, not by a cached hint: no hint is asked (what is missing is read when read)
    known = calls.map(() => [])
  } else if (read === 'moved') {
    // the head moved past the block the hints were asked at: they still name what these
    // calls touch (hints, never state), so the new block's state is read in one batch at
    // once, instead of asking the hints again first (2 round trips, not 3)
    known = await v.base.fork.hints.stored(guess!, calls)
    if (known) {
      v.base.fork.hints.remember(header.number, calls, known, ttlFor(v.base, header.number))
      // a new block: what the run reads after it ran is not held at it either
      await prefetchWithSideReads(v, header.number, calls, known, o.sideReads, alsoAt(o.also, header))
      return header
    }
  }
  await prefetch(v, header.number, calls, known, alsoAt(o.also, header))
  return header
}

/**
 * Another instance on the same store may have run these calls at this block: its header and
 * hints are there, and the state they name too. Undefined when either is missing.
 */
async function resolveFromStore(v: ChainView, n: bigint, calls: PrefetchCalls, o: ResolveOptions): Promise<BlockHeaderInfo | undefined> {
  const [header, lists] = await Promise.all([storedHeader(v.base, n), v.base.fork.hints.stored(n, calls, ttlFor(v.base, n))])
  if (!header || !lists) return undefined
  await prefetch(v, header.number, calls, lists, alsoAt(o.also, header))
  return { ...header }
}

/** cold calls: the block and their hints in one batch, then the state the hints name */
async function resolveCold(v: ChainView, selector: BlockSelector, calls: PrefetchCalls, o: ResolveOptions): Promise<BlockHeaderInfo> {
  const latest = 'tag' in selector && selector.tag === 'latest'
  const tag = 'number' in selector ? q(selector.number) : latest ? 'latest' : selector.tag
  // both issued before any await: one JSON-RPC batch
  const [header, lists] = await Promise.all([resolveBlock(v, selector), v.base.fork.hints.request(tag, calls, v.budget)])
  // at a tag the head may have moved between the two answers: the lists are hints, never state
  v.base.fork.hints.remember(header.number, calls, lists, ttlFor(v.base, header.number))
  await prefetchWithSideReads(v, header.number, calls, lists, o.sideReads, alsoAt(o.also, header))
  return header
}

async function prefetch(v: ChainView, n: bigint, calls: PrefetchCalls, accessLists?: (AccessList | undefined)[], also?: AccessList): Promise<void> {
  // the caller names what else the run reads, or the coinbase of this block is guessed at (a
  // header read, usually cached: the block was just resolved)
  const header = also ? undefined : await headerAt(v, n).catch(() => undefined)
  const extra: AccessList = [...(also ?? (header ? [{ address: header.coinbase, storageKeys: [] }] : [])), { address: ZERO_ADDRESS, storageKeys: [] }]
  await v.base.fork.prefetch(n, calls, { also: extra, ttlSeconds: ttlFor(v.base, n), accessLists, budget: v.budget })
}

/** the state the hints name, with the caller's side reads in the same batch */
async function prefetchWithSideReads(
  v: ChainView,
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
  const side = send?.((method, params) => v.rpc.request(method, params, { deferred: true }))
  try {
    await prefetch(v, n, calls, lists, also)
  } finally {
    // what no state batch carried (all state held already) leaves now
    v.rpc.flushDeferred()
  }
  await side?.catch(() => undefined)
}
