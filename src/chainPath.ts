/**
 * Routes of a named chain: every route of the service under `/v1/chains/{name}` (the JSON-RPC
 * endpoint, the REST endpoints, the viewer's requests), with unchanged bodies. The app routes on
 * the path without the prefix (Hono's `getPath`) and picks the chain's engine from it
 * (host/chains.ts).
 *
 * @example
 * splitChainPath('/v1/chains/base/v1/rpc') // { chain: 'base', rest: '/v1/rpc' }
 * splitChainPath('/v1/chains/base/simulate') // { chain: 'base', rest: '/v1/simulate' }
 */
const PREFIX = /^\/v1\/chains\/([^/]+)(\/.*)?$/

export interface ChainPath {
  /** the chain named by the path; undefined: the default chain */
  chain?: string
  /** the path the routes know */
  rest: string
}

/**
 * `/v1/chains/{name}/v1/...` and `/v1/chains/{name}/...` both name the route `/v1/...` (a client
 * may swap its base URL `/v1` for `/v1/chains/{name}` or prepend the prefix to a whole path).
 * `/v1/chains` itself (the list) and anything else is left as it is.
 */
export function splitChainPath(path: string): ChainPath {
  const m = PREFIX.exec(path)
  if (!m) return { rest: path }
  const tail = m[2] ?? ''
  const rest = tail.startsWith('/v1/') || tail === '/v1' ? tail : `/v1${tail}`
  return { chain: decodeSegment(m[1]!), rest }
}

/** the path the routes know, for checks written against the unprefixed routes */
export const routePath = (path: string): string => splitChainPath(path).rest

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}
