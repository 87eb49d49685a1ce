/**
 * Counts every request answered, once, on the HTTP thread (host/metrics/serviceMetrics.ts): its
 * front door (rest, rpc, fork-rpc, viewer), its route pattern (`/v1/simulations/:id`, never the
 * path a caller sent) or, on the JSON-RPC doors, its method as the route named it (`rpcMethod`:
 * a method the endpoint serves, `batch`, or `other`), its status class, its chain's configured
 * name (`default` unprefixed, `unknown` for a name no chain has) and its duration up to the
 * answer's headers. Every label comes from a bounded set, so no caller can grow the series.
 *
 * @example
 * app.use(requestMetrics({ metrics, chains: new Set(['base']) }))
 */
import type { MiddlewareHandler } from 'hono'
import { matchedRoutes } from 'hono/route'
import type { FrontDoor, ServiceMetrics } from '../../host/metrics/serviceMetrics.js'
import { splitChainPath } from '../chainPath.js'
import type { HttpEnv } from '../httpEnv.js'
import { uiPaths } from '../routes/ui.js'

export interface RequestMetricsOptions {
  metrics: Pick<ServiceMetrics, 'recordRequest'>
  /** the named chains' names */
  chains: ReadonlySet<string>
}

/** a writable fork's JSON-RPC endpoint, on the path the routes know */
const FORK_RPC = /^\/v1\/forks\/[^/]+\/rpc(\/|$)/

export function requestMetrics(opts: RequestMetricsOptions): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const start = performance.now()
    await next()
    // c.req.path is the routed path (a chain's prefix stripped); the URL is parsed only for a chain's
    const { chain, rest } = c.req.url.includes('/v1/chains/') ? splitChainPath(new URL(c.req.url).pathname) : { chain: undefined, rest: c.req.path }
    const door: FrontDoor =
      rest === '/v1/rpc' || rest.startsWith('/v1/rpc/')
        ? 'rpc'
        : FORK_RPC.test(rest)
          ? 'fork-rpc'
          : rest === '/' || rest === uiPaths.page || rest.startsWith(uiPaths.assets)
            ? 'viewer'
            : 'rest'
    const route = door === 'rpc' || door === 'fork-rpc' ? (c.get('rpcMethod') ?? 'other') : routeOf(c)
    const chainName = chain === undefined ? 'default' : opts.chains.has(chain) ? chain : 'unknown'
    opts.metrics.recordRequest(door, route, c.res.status, chainName, (performance.now() - start) / 1000)
  }
}

/**
 * the pattern of the route the request matched (also when a middleware answered before it, a 401
 * say); `other` when none did (a 404). Middleware is registered for every method (`ALL`), routes
 * for theirs.
 */
function routeOf(c: Parameters<MiddlewareHandler<HttpEnv>>[0]): string {
  const routes = matchedRoutes(c)
  for (let i = routes.length - 1; i >= 0; i--) if (routes[i]!.method !== 'ALL') return routes[i]!.path
  return 'other'
}
