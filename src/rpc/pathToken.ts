/**
 * The provider convention for tools that cannot set headers: the API token as the last path
 * segment, `POST /v1/rpc/<token>` (also under a chain's prefix, `/v1/chains/{name}/rpc/<token>`,
 * and on a writable fork, `/v1/forks/{forkId}/rpc/<token>`). The token is read here and nowhere
 * else, and every path that is logged or echoed goes through `maskRpcPath` first, so a token in a
 * URL never reaches a log line or a response (a wrong token is masked too: it may be a near-miss
 * of the real one).
 *
 * @example
 * rpcPathToken('/v1/rpc/s3cret') // 's3cret'
 * maskRpcPath('/v1/rpc/s3cret')  // '/v1/rpc/[token]'
 * maskRpcPath('/v1/rpc//s3cretx') // '/v1/rpc/[token]'
 * maskRpcPath('/v1/forks/fork_1/rpc/s3cret') // '/v1/forks/fork_1/rpc/[token]'
 */
import { routePath } from '../chainPath.js'

export const RPC_PATH = '/v1/rpc'

/** what stands before `/rpc`: an optional chain prefix, `/v1`, and a fork's segment */
const BEFORE_RPC = String.raw`((?:\/v1\/chains\/[^/]+)?(?:\/v1)?(?:\/forks\/[^/]+)?)`
const withToken = new RegExp(`^${BEFORE_RPC}\\/rpc\\/([^/]+)`)
/** a writable fork's endpoint, on the path the routes know: /v1/forks/<forkId>/rpc[/<token>] */
const forkRpc = /^\/v1\/forks\/[^/]+\/rpc(\/|$)/

export const isRpcPath = (path: string) => {
  const p = routePath(path)
  return p === RPC_PATH || p.startsWith(`${RPC_PATH}/`) || forkRpc.test(p)
}

/** a writable fork's JSON-RPC endpoint, with or without a token or a chain prefix: its rate limit counts apart (src/app.ts) */
export const isForkRpcPath = (path: string) => forkRpc.test(routePath(path))

export function rpcPathToken(path: string): string | undefined {
  if (!isRpcPath(path)) return undefined
  const m = withToken.exec(path)
  if (!m) return undefined
  try {
    return decodeURIComponent(m[2]!)
  } catch {
    return m[2]
  }
}

/**
 * everything after `/rpc` is masked: `/v1/rpc//<token>x`, `/v1/rpc/a/<token>`, `/v1/rpc%2F<token>`
 * or `/V1/RPC/<token>` may each carry a near-miss of the token
 */
const afterRpc = new RegExp(`^${BEFORE_RPC}\\/rpc(?!$)[\\s\\S]*$`, 'i')

export function maskRpcPath(path: string): string {
  return path.replace(afterRpc, '$1/rpc/[token]')
}
