/**
 * The service's entry point: configuration → logger → cache store → engine → HTTP server, and a
 * graceful stop on SIGTERM/SIGINT (stop accepting, finish in-flight requests, close the engine
 * and the cache, exit 0). A configuration error (e.g. production without an auth token) is one
 * line on stderr and exit code 1.
 *
 * With `server.processes` above 1 this file runs as the cluster's primary (src/cluster/primary.ts),
 * which forks the HTTP processes; each of them runs this file again and serves.
 */
import cluster from 'node:cluster'
import { ConfigError, loadConfig, type ServiceConfig } from '../config/loadConfig.js'
import { createCacheStore, isSharedCacheUrl } from '../engine/cache/createCacheStore.js'
import { splitMemoryBudget } from '../engine/cache/memoryBudget.js'
import { createWorkerPoolEngine, defaultWorkerCount } from '../engine/workers/index.js'
import { createApp } from './app.js'
import { PROCESS_INDEX_ENV, runPrimary } from './cluster/primary.js'
import { createLeasedCounter } from './cluster/leasedCounter.js'
import { createProcessCacheStore } from './cluster/processCacheStore.js'
import { stopRequested } from './cluster/stopRequest.js'
import { createLogger } from './logger.js'
import { listen } from './server.js'

function configOrExit(): ServiceConfig {
  try {
    return loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`evm-sim-service: ${err.message}\n`)
      process.exit(1)
    }
    throw err
  }
}

/** secrets of the running config, for the last-resort error line */
let secrets: string[] = []

async function main(): Promise<void> {
  const config = configOrExit()
  secrets = [config.chain.rpc_url, config.api.auth_token].filter((s) => s.length >= 4)
  const root = createLogger({ level: config.log.level, secrets: [config.chain.rpc_url, config.api.auth_token] })
  // one of several HTTP processes (src/cluster/): its index on every line it logs
  const forked = cluster.isWorker
  const logger = forked ? root.child({ process: Number(process.env[PROCESS_INDEX_ENV]) }) : root
  const processes = config.server.processes === 0 ? defaultWorkerCount() : config.server.processes
  // workers = 0: one engine per core for the instance, so each of several processes takes its share
  const workers = config.server.workers === 0 ? Math.max(1, Math.floor(defaultWorkerCount() / processes)) : config.server.workers
  // cache.max_memory_mb bounds every in-process cache together, however many processes and engines run
  const memory = splitMemoryBudget(config.cache.max_memory_mb, processes * workers)
  // several processes on memory://: the store's half of the budget, half for the primary's store,
  // half for the simulations each process keeps (src/cluster/processCacheStore.ts)
  if (processes > 1 && cluster.isPrimary) return runPrimary({ config, processes, storeBytes: Math.floor(memory.storeBytes / 2), logger })

  // one of several HTTP processes: the instance's memory store is the primary's; Redis is shared anyway
  const primaryStop = forked ? stopRequested() : undefined
  const cache =
    forked && !isSharedCacheUrl(config.cache.url)
      ? createProcessCacheStore({ localBytes: memory.workerCacheBytes, simulationBytes: Math.floor(memory.storeBytes / 2 / processes) })
      : createCacheStore(config.cache.url, { logger, memoryMaxBytes: Math.floor(memory.storeBytes / (forked ? processes : 1)) })
  const engine = await createWorkerPoolEngine({
    workers,
    cache,
    cacheUrl: config.cache.url,
    ...(config.chain.rpc_url !== '' && { rpcUrl: config.chain.rpc_url }),
    ...(config.chain.hardfork !== '' && { hardfork: config.chain.hardfork }),
    gasCap: BigInt(config.chain.gas_cap),
    rpcTimeoutMs: config.chain.rpc_timeout_ms,
    headMaxAgeMs: config.chain.head_max_age_ms,
    maxStructLogSteps: config.limits.max_struct_log_steps,
    // long struct logs go to temporary files and are streamed (engine/spill, src/respond)
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
    logger,
  })

  // several processes on memory://: each reserves blocks of counts far from the limit (src/cluster/leasedCounter.ts)
  const rateLimitCounter =
    forked && !isSharedCacheUrl(config.cache.url) ? createLeasedCounter(cache, { limit: config.api.rate_limit_requests, processes }) : undefined
  const app = createApp({ config, engine, cache, logger, rateLimitCounter })
  const server = await listen(app, { host: config.server.host, port: config.server.port })
  logger.info(
    { env: config.env, url: server.url, workers, chain: config.chain.rpc_url === '' ? 'embedded devnet' : 'upstream RPC', auth: config.api.auth_token !== '' },
    'listening',
  )

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info({ signal }, 'stopping: finishing in-flight requests')
    await server.close(config.server.request_timeout_ms + 1_000)
    await engine.close().catch((err: unknown) => logger.warn({ err: (err as Error).name }, 'engine close failed'))
    await cache.close().catch((err: unknown) => logger.warn({ err: (err as Error).name }, 'cache close failed'))
    logger.info({}, 'stopped')
    // the log destination is asynchronous: let the last lines out before leaving
    await new Promise<void>((resolve) => logger.flush(() => resolve()))
    process.exit(0)
  }
  const onSignal = (signal: string) => {
    // a second signal while stopping: the operator wants out now
    if (stopping) process.exit(1)
    void stop(signal)
  }
  process.on('SIGTERM', () => onSignal('SIGTERM'))
  process.on('SIGINT', () => onSignal('SIGINT'))
  void primaryStop?.then((why) => stop(why))
}

main().catch((err: unknown) => {
  // start-up failed (engine could not start, port taken, ...): one line, no stack with secrets
  const message = err instanceof Error ? err.message : String(err)
  process.stderr.write(`evm-sim-service: failed to start: ${secrets.reduce((m, s) => m.split(s).join('[redacted]'), message)}\n`)
  process.exit(1)
})
