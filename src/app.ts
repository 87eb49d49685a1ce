/**
 * The app factory: the OpenAPIHono app with every middleware and route, over an Engine and a
 * CacheStore given by the caller (host/instance.ts builds real ones; tests may pass their own), so tests
 * start it on a free port with @hono/node-server.
 *
 * Middleware order and why:
 *   requestId → logger and metrics (see every answer, errors included) → CORS (preflights answered before
 *   auth) → rate limits (before auth, so token guessing is limited too; a fork's JSON-RPC endpoint
 *   counted apart from the rest) → auth → timeout →
 *   body size → content type → routes. The JSON-RPC endpoint (src/rpc/) sits behind the same
 *   chain; its failures, middleware ones included, leave as JSON-RPC error objects.
 *
 * @example
 * const app = createApp({ config, engine, cache, logger })
 * serve({ fetch: app.fetch, port: 0 })
 */
import { OpenAPIHono } from '@hono/zod-openapi'
import { packageVersion } from '../config/projectRoot.js'
import type { ServiceConfig } from '../config/loadConfig.js'
import type { CacheStore } from '../engine/types.js'
import type { Engine } from '../engine/types.js'
import type { ChainSet } from '../host/chains.js'
import { routePath, splitChainPath } from './chainPath.js'
import { ApiError } from './errors/apiError.js'
import { createErrorHandler } from './errors/errorHandler.js'
import type { HttpEnv, HttpLogger } from './httpEnv.js'
import type { MiddlewareHandler } from 'hono'
import { tokenAuth } from './middleware/auth.js'
import { limitBody } from './middleware/bodyLimit.js'
import { corsFromConfig } from './middleware/cors.js'
import { jsonContentType } from './middleware/jsonContentType.js'
import { rateLimit } from './middleware/rateLimit.js'
import { requestId } from './middleware/requestId.js'
import { requestLogger } from './middleware/requestLogger.js'
import { requestTimeout } from './middleware/requestTimeout.js'
import { registerAccessList } from './routes/accessList.js'
import { registerBatch } from './routes/batch.js'
import type { RouteContext } from './routes/context.js'
import { explorerPaths, registerExplorer } from './routes/explorer.js'
import { registerChains } from './routes/chains.js'
import { healthPaths, registerHealth } from './routes/health.js'
import { registerSimulate } from './routes/simulate.js'
import { registerSignature } from './routes/signature.js'
import { registerSimulations } from './routes/simulations.js'
import { registerTrace } from './routes/trace.js'
import { isForkRpcPath, isRpcPath, maskRpcPath, rpcPathToken } from './rpc/pathToken.js'
import { registerRpc, rpcHttpError, scrubber } from './rpc/route.js'
import { registerUi, uiPaths } from './routes/ui.js'
import { registerForks } from './routes/forks.js'
import { registerSources, SOURCES_PATH } from './routes/sources.js'
import { registerForkRest } from './routes/forkRest.js'
import { registerForkRpc } from './rpc/forkRoute.js'
import { requestMetrics } from './middleware/requestMetrics.js'
import { registerMetrics } from './routes/metrics.js'
import { createServiceMetrics, type ServiceMetrics } from '../host/metrics/serviceMetrics.js'
import { isSharedCacheUrl } from '../host/cache/createCacheStore.js'
import { registerRpcDocument } from './routes/rpcDocument.js'
import { createDrainFlag, type DrainFlag } from '../host/server.js'

export interface CreateAppOptions {
  config: ServiceConfig
  /** the default chain's engine; with `chains`, ignored for `chains.engine` */
  engine: Engine
  /** the named chains (host/chains.ts), each served under /v1/chains/{name}/ */
  chains?: ChainSet
  cache: CacheStore
  logger: HttpLogger
  /** where the rate limit of every route but a fork's JSON-RPC endpoint counts (default: `cache`; an HTTP process of several: host/cluster/leasedCounter.ts) */
  rateLimitCounter?: Pick<CacheStore, 'increment'>
  /** where the fork JSON-RPC endpoints' rate limit counts (default: `cache`), sized for its own limit */
  forkRpcRateLimitCounter?: Pick<CacheStore, 'increment'>
  /** the instance's metrics (host/instance.ts gathers every thread and process); default: this app's engines */
  metrics?: ServiceMetrics
  /** true once the process drains (host/server.ts): readiness answers 503 `draining` */
  drain?: DrainFlag
}

/** the health routes: no token, no rate limit (a load balancer probes them as often as it likes) */
const isHealthPath = (path: string) => (healthPaths as readonly string[]).includes(path)

/** no token needed: health, the schema, the explorer and the trace viewer page (interface §11), of any chain */
export const isPublicPath = (fullPath: string) => {
  const path = routePath(fullPath)
  return isHealthPath(path) || path === explorerPaths.schema || isPageFile(fullPath)
}

/**
 * The pages of the explorer and the trace viewer and the files they load: fixed files, cheap to
 * serve and loaded whole by every visit, so not counted by the rate limit (a visit would otherwise
 * spend a dozen requests of a development limit before it traces anything).
 */
const isPageFile = (fullPath: string) => {
  const path = routePath(fullPath)
  return path === explorerPaths.docs || path.startsWith(explorerPaths.assets) || path === '/' || path === uiPaths.page || path.startsWith(uiPaths.assets)
}

export function createApp({
  config,
  engine: defaultEngine,
  chains,
  cache,
  logger,
  rateLimitCounter,
  forkRpcRateLimitCounter,
  metrics: given,
  drain,
}: CreateAppOptions): OpenAPIHono<HttpEnv> {
  // a named chain's routes are the same routes: matched on the path without /v1/chains/{name}
  const app = new OpenAPIHono<HttpEnv>({ getPath: (req) => routePath(new URL(req.url).pathname) })
  const engine = chains?.engine ?? defaultEngine
  const secrets = [config.chain.rpc_url, ...Object.values(config.chains).flatMap((c) => (c.rpc_url ? [c.rpc_url] : [])), config.api.auth_token]
  const errors = createErrorHandler({ logger, secrets })
  const scrub = scrubber(secrets)
  // on the JSON-RPC paths every failure is a JSON-RPC error object (src/rpc/route.ts)
  app.onError((err, c) => {
    if (!isRpcPath(c.req.path)) return errors.onError(err, c)
    if (!(err instanceof ApiError)) errors.toErrorBody(err, c.get('requestId')) // logs the bug under the request id
    return rpcHttpError(err, c, scrub)
  })
  // the path is echoed masked: a token in a JSON-RPC URL never appears in a response
  app.notFound((c) =>
    errors.onError(
      new ApiError('NOT_FOUND', `no route ${c.req.method} ${maskRpcPath(c.req.path)}`, undefined, `the routes are listed in ${explorerPaths.schema}`),
      c,
    ),
  )

  app.use(requestId())
  app.use(requestLogger({ logger }))
  const metrics =
    given ??
    createServiceMetrics({
      chains: [{ name: 'default', engine: defaultEngine }, ...(chains?.names() ?? []).map((name) => ({ name, engine: chains!.get(name)! }))],
      sharedForks: isSharedCacheUrl(config.cache.url),
    })
  app.use(requestMetrics({ metrics, chains: new Set(chains?.names() ?? []) }))
  app.use(corsFromConfig(config.api.cors))
  app.use(refuseWhileDraining(drain))
  app.use(...rateLimits(config, { api: rateLimitCounter ?? cache, forkRpc: forkRpcRateLimitCounter ?? cache }, logger))
  app.use(tokenAuth({ token: config.api.auth_token, isExempt: isPublicPath, tokenFromPath: rpcPathToken }))
  app.use(chainOfPath(chains))
  app.use(requestTimeout({ ms: config.server.request_timeout_ms }))
  // a build-info is often several MiB: its route has a limit of its own (sources.max_mb)
  app.use(
    limitBody({ maxBytes: config.server.max_body_bytes, routes: { [SOURCES_PATH]: { maxBytes: config.sources.max_mb * 2 ** 20, setting: 'sources.max_mb' } } }),
  )
  app.use(jsonContentType())

  const version = packageVersion()
  const ctx: RouteContext = { engine, config, logger, toErrorBody: errors.toErrorBody }
  registerHealth(app, { ...ctx, version, startedAt: Date.now(), chains, drain: drain ?? createDrainFlag() })
  if (chains) registerChains(app, { ...ctx, chains })
  registerSimulate(app, ctx)
  registerSignature(app, ctx)
  registerBatch(app, ctx)
  registerAccessList(app, ctx)
  registerSimulations(app, ctx)
  registerTrace(app, ctx)
  registerRpc(app, { engine, config, logger })
  registerForks(app, ctx)
  registerSources(app, ctx)
  registerForkRest(app, ctx, errors.onError)
  registerForkRpc(app, { engine, config, logger })
  registerRpcDocument(app)
  registerExplorer(app, { version, chains: chains?.names() ?? [] })
  registerUi(app)
  registerMetrics(app, { metrics })
  return app
}

/**
 * The two rate limits, per client IP, each request counted by exactly one: a fork's JSON-RPC
 * endpoint (`/v1/forks/{id}/rpc[/<token>]`) in a bucket of its own, every other route but health
 * in the other. A test runner pointed at a fork (forge, cast) reads state one account and slot a
 * request, thousands of requests a command, which the REST limit would refuse within seconds; in
 * a bucket of its own that traffic neither needs the REST limit raised nor spends it
 * (docs/decisions/0102-fork-endpoint-rate-limit.md). A JSON-RPC batch is one HTTP request: one count.
 */
function rateLimits(
  config: ServiceConfig,
  counters: Record<'api' | 'forkRpc', Pick<CacheStore, 'increment'>>,
  logger: HttpLogger,
): MiddlewareHandler<HttpEnv>[] {
  const trustProxy = config.server.trust_proxy
  return [
    rateLimit({
      cache: counters.api,
      limit: config.api.rate_limit_requests,
      windowSeconds: config.api.rate_limit_duration,
      trustProxy,
      isExempt: (path) => isHealthPath(routePath(path)) || isPageFile(path) || isForkRpcPath(path),
      logger,
    }),
    rateLimit({
      cache: counters.forkRpc,
      limit: config.api.fork_rpc_rate_limit_requests,
      windowSeconds: config.api.fork_rpc_rate_limit_duration,
      trustProxy,
      isExempt: (path) => !isForkRpcPath(path),
      logger,
      prefix: 'ratelimit-forkrpc:',
      name: 'fork JSON-RPC',
    }),
  ]
}

/** the chain a path names (`/v1/chains/{name}/…`), set for the request's address (src/runAt.ts); an unknown one is 404 CHAIN_NOT_FOUND */
function chainOfPath(chains: ChainSet | undefined): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    // c.req.path is the routed path (prefix stripped): the chain is in the URL's own path
    const { chain } = splitChainPath(new URL(c.req.url).pathname)
    if (chain === undefined) return next()
    if (!chains?.has(chain)) {
      throw new ApiError(
        'CHAIN_NOT_FOUND',
        `no chain named '${chain}'`,
        { chain, chains: chains?.names() ?? [] },
        'GET /v1/chains lists the chains this deployment serves',
      )
    }
    c.set('chain', chain)
    return next()
  }
}

/**
 * A draining process (SIGTERM, host/server.ts) answers what arrives meanwhile 503 SERVICE_DRAINING,
 * before it counts against the rate limit or runs: only the requests in flight when the drain
 * began run on. The health routes still answer (readiness: 503 `draining`).
 */
function refuseWhileDraining(drain: DrainFlag | undefined): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    if (!drain?.draining || isHealthPath(routePath(new URL(c.req.url).pathname))) return next()
    throw new ApiError('SERVICE_DRAINING', 'this instance is stopping', undefined, 'retry: another instance takes the request', undefined, {
      'Retry-After': '1',
    })
  }
}
