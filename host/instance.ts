/**
 * One instance of the service as processes and threads: how many HTTP processes and engine
 * threads, how the memory budget is shared out between them, which cache store each uses, the
 * engine (in process or a pool of worker threads), the HTTP server, and a graceful stop on
 * SIGTERM/SIGINT (readiness 503, stop accepting, finish in-flight requests within
 * `server.shutdown_grace_ms`, close the engine and the cache, exit 0). The HTTP app itself is the caller's (src/main.ts hands src/app.ts in): the host knows
 * nothing of routes.
 *
 * With `server.processes` above 1 the process that runs this is the cluster's primary
 * (host/cluster/primary.ts), which forks the HTTP processes; each of them runs the entry point
 * again and serves.
 *
 * @example
 * await runInstance({ config, logger, app: (parts) => createApp({ config, ...parts }) })
 */
import cluster from 'node:cluster'
import type { ServiceConfig } from '../config/loadConfig.js'
import type { CacheStore, Engine } from '../engine/types.js'
import { createCacheStore, isSharedCacheUrl } from './cache/createCacheStore.js'
import { splitMemoryBudget } from './cache/memoryBudget.js'
import { createLeasedCounter } from './cluster/leasedCounter.js'
import { PROCESS_INDEX_ENV, runPrimary } from './cluster/primary.js'
import { createProcessCacheStore } from './cluster/processCacheStore.js'
import { stopRequested } from './cluster/stopRequest.js'
import { createDrainFlag, listen, type DrainFlag, type Listening, type ListeningAhead, type ServedApp } from './server.js'
import { createWorkerPoolEngine, defaultWorkerCount } from './workers/index.js'
import { createChainSet, startNamedChains, type ChainSet } from './chains.js'
import type { HostLogger } from './logger.js'
import { createServiceMetrics, type ServiceMetrics } from './metrics/serviceMetrics.js'
import { metricsThroughPrimary } from './cluster/metricsGather.js'

export type { HostLogger } from './logger.js'

/** what the host builds for the HTTP app of one process */
export interface HostedParts {
  /** the default chain's engine */
  engine: Engine
  /** the named chains (`[chains.<name>]`), each served under /v1/chains/{name}/; absent when none */
  chains?: ChainSet
  cache: CacheStore
  /** where the rate limit of every route but a fork's JSON-RPC endpoint counts, when not `cache` (one HTTP process of several on memory://) */
  rateLimitCounter?: Pick<CacheStore, 'increment'>
  /** where the fork JSON-RPC endpoints' own rate limit counts, when not `cache`: blocks sized by that limit */
  forkRpcRateLimitCounter?: Pick<CacheStore, 'increment'>
  logger: HostLogger
  /** the instance's metrics (GET /metrics), every thread and process of it */
  metrics?: ServiceMetrics
  /** true once this process drains (SIGTERM): readiness answers 503 (GET /v1/health/ready) */
  drain?: DrainFlag
}

export interface InstanceOptions {
  config: ServiceConfig
  logger: HostLogger
  /** the HTTP app of one process over what the host built */
  app(parts: HostedParts): ServedApp
  /** run once the requests in flight are answered on a stop, before the engines close (a development node's `--state` dump) */
  beforeClose?: () => Promise<void>
  /** a server already listening (host/server.ts `listenAhead`) that the app takes over, instead of listening once the engine is up */
  listening?: ListeningAhead
}

/** what a caller holds of a started instance */
export interface RunningInstance {
  /** where the server listens, e.g. `http://127.0.0.1:8545` */
  url: string
  port: number
}

export async function runInstance(opts: InstanceOptions): Promise<RunningInstance | undefined> {
  const { config, logger: root } = opts
  // one of several HTTP processes (host/cluster/): its index on every line it logs
  const forked = cluster.isWorker
  const logger = forked ? root.child({ process: Number(process.env[PROCESS_INDEX_ENV]) }) : root
  const shape = instanceShape(config)
  const { processes, memory } = shape
  // several processes on memory://: the store's half of the budget, half for the primary's store,
  // half for the simulations each process keeps (host/cluster/processCacheStore.ts)
  if (processes > 1 && cluster.isPrimary) return void (await runPrimary({ config, processes, storeBytes: Math.floor(memory.storeBytes / 2), logger }))

  // one of several HTTP processes: the instance's memory store is the primary's; Redis is shared anyway
  const primaryStop = forked ? stopRequested() : undefined
  const onMemory = forked && !isSharedCacheUrl(config.cache.url)
  const cache = onMemory
    ? createProcessCacheStore({ localBytes: memory.workerCacheBytes, simulationBytes: Math.floor(memory.storeBytes / 2 / processes) })
    : createCacheStore(config.cache.url, { logger, memoryMaxBytes: Math.floor(memory.storeBytes / (forked ? processes : 1)) })
  const { engine, named, chains } = await startEngines(config, cache, engineOptions(config, shape, onMemory, logger), shape.chainCount)
  // several processes on memory://: each reserves blocks of counts far from the limit (host/cluster/leasedCounter.ts),
  // one counter per rate limit, since a block's size follows its limit
  const leased = (limit: number) => (onMemory ? createLeasedCounter(cache, { limit, processes }) : undefined)
  const counters = { rateLimitCounter: leased(config.api.rate_limit_requests), forkRpcRateLimitCounter: leased(config.api.fork_rpc_rate_limit_requests) }
  const metrics = serviceMetrics(config, engine, named, forked)
  const drain = opts.listening?.drainFlag ?? createDrainFlag()
  const app = opts.app({ engine, cache, logger, ...counters, metrics, drain, ...(chains && { chains }) })
  const server = opts.listening ?? (await listen(app, { host: config.server.host, port: config.server.port, drain }))
  opts.listening?.serve(app)
  logger.info(
    {
      env: config.env,
      url: server.url,
      workers: shape.workers,
      chain: config.chain.rpc_url === '' ? 'embedded devnet' : 'upstream RPC',
      chains: chains?.names() ?? [],
      auth: config.api.auth_token !== '',
    },
    'listening',
  )
  stopOnSignals({ config, logger, server, engines: chains ?? engine, cache, primaryStop, beforeClose: opts.beforeClose })
  return { url: server.url, port: server.port }
}

/** how many HTTP processes and engine threads the instance runs, and the memory each may use */
function instanceShape(config: ServiceConfig) {
  const processes = config.server.processes === 0 ? defaultWorkerCount() : config.server.processes
  // workers = 0: one engine per core for the instance, so each of several processes takes its share
  const workers = config.server.workers === 0 ? Math.max(1, Math.floor(defaultWorkerCount() / processes)) : config.server.workers
  // cache.max_memory_mb bounds every in-process cache together, however many processes and engines run
  // every chain runs engines of its own: the budget is shared by all of them
  const chainCount = 1 + Object.keys(config.chains).length
  const memory = splitMemoryBudget(config.cache.max_memory_mb, processes * workers * chainCount)
  return { processes, workers, chainCount, memory }
}

type InstanceShape = ReturnType<typeof instanceShape>

/** the engine options every chain's pool shares; `onMemory`: one of several processes on memory:// */
function engineOptions(config: ServiceConfig, { workers, processes, memory }: InstanceShape, onMemory: boolean, logger: HostLogger) {
  return {
    workers,
    cacheUrl: config.cache.url,
    gasCap: BigInt(config.chain.gas_cap),
    rpcTimeoutMs: config.chain.rpc_timeout_ms,
    headMaxAgeMs: config.chain.head_max_age_ms,
    maxStructLogSteps: config.limits.max_struct_log_steps,
    // long struct logs go to temporary files and are streamed (engine/platform/spill, host/spill, src/respond)
    spill: { maxBytes: config.limits.max_struct_log_mb * 2 ** 20 },
    simulationTtlSeconds: config.cache.simulation_ttl_seconds,
    forkCacheBytes: memory.forkCacheBytes,
    workerCacheBytes: memory.workerCacheBytes,
    callTimeoutMs: config.server.request_timeout_ms,
    forkLimits: {
      maxForks: config.forks.max_forks,
      defaultTtlSeconds: config.forks.default_ttl_seconds,
      maxBlocks: config.forks.max_blocks,
      maxStateBytes: config.forks.max_state_mb * 2 ** 20,
    },
    sources: { maxBytes: config.sources.max_mb * 2 ** 20, sourcifyUrl: config.sources.sourcify_url },
    // several processes on memory://: each would hold forks of its own, unknown to the others
    ...(onMemory && {
      forksUnavailable: `writable forks need a shared cache store with ${processes} HTTP processes (PROCESSES): on memory:// each process would hold forks the others cannot see`,
    }),
    logger,
  }
}

/** the default chain's engine, and the named chains' (an engine, a pool, each, its own key space in the store: host/chains.ts) */
async function startEngines(config: ServiceConfig, cache: CacheStore, options: ReturnType<typeof engineOptions>, chainCount: number) {
  const engine = await createWorkerPoolEngine({
    ...options,
    cache,
    ...(config.chain.rpc_url !== '' && { rpcUrl: config.chain.rpc_url }),
    ...(config.chain.hardfork !== '' && { hardfork: config.chain.hardfork }),
    ...(config.chain.kind && { chainKind: config.chain.kind }),
    ...(config.chain.chain_id !== undefined && { expectChainId: config.chain.chain_id }),
  }).catch((e: unknown) => {
    // beside named chains, say which one failed
    throw chainCount > 1 ? new Error(`chain 'default': ${e instanceof Error ? e.message : String(e)}`) : e
  })
  if (chainCount === 1) return { engine, named: {} as Record<string, Engine>, chains: undefined }
  const named = await startNamedChains(
    config.chains,
    cache,
    (c) =>
      createWorkerPoolEngine({
        ...options,
        cache: c.cache,
        // a worker on Redis reaches the store itself: the same key space by prefix
        cachePrefix: `evmsim:${c.cachePrefix}`,
        ...(c.rpcUrl && { rpcUrl: c.rpcUrl }),
        ...(c.hardfork && { hardfork: c.hardfork }),
        ...(c.chainKind && { chainKind: c.chainKind }),
        ...(c.expectChainId !== undefined && { expectChainId: c.expectChainId }),
      }),
    { logger: options.logger },
  ).catch(async (e: unknown) => {
    await engine.close().catch(() => undefined)
    throw e
  })
  return { engine, named, chains: createChainSet(engine, named) }
}

/** the instance's metrics; on one of several processes, /metrics reports them all, through the primary */
function serviceMetrics(config: ServiceConfig, engine: Engine, named: Record<string, Engine>, forked: boolean): ServiceMetrics {
  let viaPrimary: (() => Promise<object[][]>) | undefined
  const metrics = createServiceMetrics({
    chains: [{ name: 'default', engine }, ...Object.entries(named).map(([name, e]) => ({ name, engine: e }))],
    sharedForks: isSharedCacheUrl(config.cache.url),
    ...(forked && { gather: () => viaPrimary!() }),
  })
  if (forked) viaPrimary = metricsThroughPrimary(metrics.collect)
  return metrics
}

interface Stoppable {
  config: ServiceConfig
  logger: HostLogger
  server: Pick<Listening, 'drain' | 'inFlight'>
  /** the engines: the default chain's, or the chain set that closes them all */
  engines: { close(): Promise<void> }
  cache: CacheStore
  /** the primary asks this process to stop (one of several HTTP processes) */
  primaryStop: Promise<string> | undefined
  beforeClose: (() => Promise<void>) | undefined
}

/**
 * A drain on SIGTERM/SIGINT or the primary's word (docs/decisions/0101-readiness-and-drain.md):
 * readiness answers 503 at once and every other request arriving meanwhile 503 `SERVICE_DRAINING`
 * (host/server.ts, src/app.ts), the requests in flight run to their end within
 * `server.shutdown_grace_ms`, the server closes, then the engines (worker threads) and the cache
 * close and the process exits 0. A second signal, or the grace passing, exits at once with 1,
 * logging how many requests were cut.
 */
function stopOnSignals(s: Stoppable): void {
  const graceMs = s.config.server.shutdown_grace_ms
  let stopping = false
  let leaving = false
  const leave = async (code: number, entry: object, msg: string) => {
    if (leaving) return
    leaving = true
    s.logger[code === 0 ? 'info' : 'error'](entry, msg)
    // the log destination is asynchronous: let the last lines out before leaving, briefly
    await Promise.race([new Promise<void>((resolve) => s.logger.flush(() => resolve())), new Promise((resolve) => setTimeout(resolve, 500))])
    process.exit(code)
  }
  const cutNow = (reason: string, cut = s.server.inFlight()) => void leave(1, { reason, cut }, 'stopping now: the requests in flight are cut')
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    s.logger.info({ signal, inFlight: s.server.inFlight(), graceMs }, 'draining: finishing the requests in flight')
    const overdue = setTimeout(() => cutNow('the shutdown grace passed'), graceMs)
    const { cut } = await s.server.drain(graceMs)
    if (cut > 0) return cutNow('the shutdown grace passed', cut)
    await s.beforeClose?.().catch((err: unknown) => s.logger.error({ err: (err as Error).message }, 'the last action before closing failed'))
    await s.engines.close().catch((err: unknown) => s.logger.warn({ err: (err as Error).name }, 'engine close failed'))
    await s.cache.close().catch((err: unknown) => s.logger.warn({ err: (err as Error).name }, 'cache close failed'))
    clearTimeout(overdue)
    await leave(0, {}, 'stopped')
  }
  const onSignal = (signal: string) => {
    // a second signal while draining: the operator wants out now
    if (stopping) return cutNow(`a second ${signal}`)
    void stop(signal)
  }
  process.on('SIGTERM', () => onSignal('SIGTERM'))
  process.on('SIGINT', () => onSignal('SIGINT'))
  void s.primaryStop?.then((why) => stop(why))
}
