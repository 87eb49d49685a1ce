/**
 * Which chain's engine serves a request. A deployment serves its default chain (`[chain]`, the
 * unprefixed routes) and any number of named ones (`[chains.<name>]`, under /v1/chains/{name}/);
 * each has an engine of its own — its upstream, head tracking, upstream time budget, fork cache
 * namespace in the shared store — so a chain whose upstream is down degrades alone.
 *
 * The HTTP layer sees one Engine (`engine`): each operation goes to the engine of the chain its
 * address names (`RunAt.chain`; absent: the default chain), so no route, REST or JSON-RPC, knows
 * there are several.
 *
 * @example
 * const chains = createChainSet(defaultEngine, { base: baseEngine })
 * await chains.engine.simulate({ chain: 'base' }, params) // base's engine
 */
import type { CacheStore } from '../engine/state/store/cacheStore.js'
import { EngineError } from '../engine/platform/errors.js'
import type { Engine, ForkAt, OperationArgs, RunAt } from '../engine/types.js'
import { createPendingChain, isConfigurationError, type PendingChainOptions } from './pendingChain.js'

export interface ChainSet {
  /** every chain's engine as one: each operation runs on the chain its address names */
  readonly engine: Engine
  readonly defaultEngine: Engine
  /** the named chains, in configuration order */
  names(): string[]
  has(name: string): boolean
  get(name: string): Engine | undefined
  close(): Promise<void>
}

export function createChainSet(defaultEngine: Engine, named: Record<string, Engine>): ChainSet {
  const engine = new ChainRouter(defaultEngine, named)
  return {
    engine,
    defaultEngine,
    names: () => Object.keys(named),
    has: (name) => Object.hasOwn(named, name),
    get: (name) => (Object.hasOwn(named, name) ? named[name] : undefined),
    close: () => engine.close(),
  }
}

/** the engines of a deployment's chains as one engine: one line per operation, each to the engine of `at.chain` */
class ChainRouter implements Engine {
  constructor(
    private readonly defaultEngine: Engine,
    private readonly named: Record<string, Engine>,
  ) {}

  simulate(at: RunAt, ...a: OperationArgs<'simulate'>) {
    return this.#of(at).simulate(at, ...a)
  }
  previewSignature(at: RunAt, ...a: OperationArgs<'previewSignature'>) {
    return this.#of(at).previewSignature(at, ...a)
  }
  simulateSteps(at: RunAt, ...a: OperationArgs<'simulateSteps'>) {
    return this.#of(at).simulateSteps(at, ...a)
  }
  getSimulation(at: RunAt, ...a: OperationArgs<'getSimulation'>) {
    return this.#of(at).getSimulation(at, ...a)
  }
  accessList(at: RunAt, ...a: OperationArgs<'accessList'>) {
    return this.#of(at).accessList(at, ...a)
  }
  traceTransaction(at: RunAt, ...a: OperationArgs<'traceTransaction'>) {
    return this.#of(at).traceTransaction(at, ...a)
  }
  traceCall(at: RunAt, ...a: OperationArgs<'traceCall'>) {
    return this.#of(at).traceCall(at, ...a)
  }
  traceCallMany(at: RunAt, ...a: OperationArgs<'traceCallMany'>) {
    return this.#of(at).traceCallMany(at, ...a)
  }
  simulateV1(at: RunAt, ...a: OperationArgs<'simulateV1'>) {
    return this.#of(at).simulateV1(at, ...a)
  }
  traceBlock(at: RunAt, ...a: OperationArgs<'traceBlock'>) {
    return this.#of(at).traceBlock(at, ...a)
  }
  call(at: RunAt, ...a: OperationArgs<'call'>) {
    return this.#of(at).call(at, ...a)
  }
  estimateGas(at: RunAt, ...a: OperationArgs<'estimateGas'>) {
    return this.#of(at).estimateGas(at, ...a)
  }
  readChain(at: RunAt, ...a: OperationArgs<'readChain'>) {
    return this.#of(at).readChain(at, ...a)
  }
  createFork(at: RunAt, ...a: OperationArgs<'createFork'>) {
    return this.#of(at).createFork(at, ...a)
  }
  getFork(at: RunAt, ...a: OperationArgs<'getFork'>) {
    return this.#of(at).getFork(at, ...a)
  }
  listForks(at: RunAt) {
    return this.#of(at).listForks(at)
  }
  deleteFork(at: RunAt, ...a: OperationArgs<'deleteFork'>) {
    return this.#of(at).deleteFork(at, ...a)
  }
  forkRpc(at: ForkAt, ...a: OperationArgs<'forkRpc'>) {
    return this.#of(at).forkRpc(at, ...a)
  }
  registerSources(at: RunAt, ...a: OperationArgs<'registerSources'>) {
    return this.#of(at).registerSources(at, ...a)
  }
  listSources(at: RunAt) {
    return this.#of(at).listSources(at)
  }
  health(at: RunAt) {
    return this.#of(at).health(at)
  }
  /** the default chain's counts (each chain's own are read from its engine: host/metrics/chainMetrics.ts) */
  metrics() {
    return this.defaultEngine.metrics()
  }
  async close() {
    await Promise.all([this.defaultEngine, ...Object.values(this.named)].map((e) => e.close().catch(() => undefined)))
  }

  #of(at: RunAt): Engine {
    if (at.chain === undefined) return this.defaultEngine
    if (!Object.hasOwn(this.named, at.chain)) throw new EngineError('NOT_FOUND', `no chain named '${at.chain}'`)
    return this.named[at.chain]!
  }
}

/**
 * Whether an upstream answers at all (one eth_chainId within 2 s): a retry starts the chain's
 * engine (its worker threads) only once it does. The URL may hold a key: it is never logged.
 */
async function upstreamAnswers(url: string): Promise<boolean> {
  try {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] })
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(2000) })
    await res.body?.cancel()
    return res.ok
  } catch {
    return false
  }
}

/**
 * A chain's own key space in the shared store: every key of `store` prefixed. Fork state is keyed
 * by chain id already; the namespace keeps two chains of one id (two devnets) and their stored
 * simulations apart.
 */
export function namespacedCacheStore(store: CacheStore, namespace: string): CacheStore {
  const k = (key: string) => namespace + key
  return {
    get: (key) => store.get(k(key)),
    set: (key, value, ttl) => store.set(k(key), value, ttl),
    getMany: (keys) => store.getMany(keys.map(k)),
    setMany: (entries) => store.setMany(entries.map((e) => ({ ...e, key: k(e.key) }))),
    increment: (key, windowSeconds, by) => store.increment(k(key), windowSeconds, by),
    ping: () => store.ping(),
    // the shared store is closed by its owner, once
    close: async () => undefined,
  }
}

export interface NamedChainConfig {
  /** absent: an embedded devnet of the chain's kind */
  rpc_url?: string
  chain_id?: number
  hardfork?: string
  kind?: 'ethereum' | 'op-stack' | 'arbitrum'
}

export interface StartNamedChainsOptions {
  /** how often a chain whose upstream did not answer at start is tried again (default 5 s) */
  retryMs?: number
  logger?: PendingChainOptions['logger']
}

export const CHAIN_RETRY_MS = 5000

/**
 * Starts an engine per named chain with `start` (the deployment's engine factory, given the
 * chain's options and its cache namespace). A chain the configuration refuses (its upstream
 * answers another chain id than `chain_id`, a bad URL or fork) fails the start with an error
 * naming it; a chain whose upstream does not answer starts as unavailable and is tried again in
 * the background (host/pendingChain.ts), so it degrades alone.
 */
export async function startNamedChains(
  chains: Record<string, NamedChainConfig>,
  cache: CacheStore,
  start: (chain: {
    name: string
    rpcUrl?: string
    hardfork?: string
    chainKind?: NamedChainConfig['kind']
    expectChainId?: number
    cache: CacheStore
    cachePrefix: string
  }) => Promise<Engine>,
  opts: StartNamedChainsOptions = {},
): Promise<Record<string, Engine>> {
  const out: Record<string, Engine> = {}
  try {
    for (const [name, c] of Object.entries(chains)) {
      const cachePrefix = `chain:${name}:`
      const startChain = () =>
        start({
          name,
          ...(c.rpc_url && { rpcUrl: c.rpc_url }),
          ...(c.hardfork && { hardfork: c.hardfork }),
          ...(c.kind && { chainKind: c.kind }),
          ...(c.chain_id !== undefined && { expectChainId: c.chain_id }),
          cache: namespacedCacheStore(cache, cachePrefix),
          cachePrefix,
        })
      try {
        out[name] = await startChain()
      } catch (e) {
        // an embedded devnet has no upstream to wait for: any failure of its start is final
        if (isConfigurationError(e) || !c.rpc_url) throw new Error(`chain '${name}': ${e instanceof Error ? e.message : String(e)}`)
        const url = c.rpc_url
        opts.logger?.warn(
          { chain: name, err: e instanceof Error ? e.message : String(e) },
          `chain '${name}': its upstream does not answer; starting without it, retrying`,
        )
        out[name] = createPendingChain({
          name,
          start: startChain,
          probe: () => upstreamAnswers(url),
          retryMs: opts.retryMs ?? CHAIN_RETRY_MS,
          cause: e,
          configured: { ...(c.chain_id !== undefined && { chainId: c.chain_id }), ...(c.kind && { kind: c.kind }) },
          ...(opts.logger && { logger: opts.logger }),
        })
      }
    }
  } catch (e) {
    await Promise.all(Object.values(out).map((engine) => engine.close().catch(() => undefined)))
    throw e
  }
  return out
}
