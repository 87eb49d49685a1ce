/**
 * The provider convention for tools that cannot set headers: the API token as the last path
 * segment, `POST /v1/rpc/<token>`. The token is read here and nowhere else, and every path that
 * is logged or echoed goes through `maskRpcPath` first, so a token in a URL never reaches a log
 * line or a response (a wrong token is masked too: it may be a near-miss of the real one).
 *
 * @example
 * rpcPathToken('/v1/rpc/s3cret') // 's3cret'
 * maskRpcPath('/v1/rpc/s3cret')  // '/v1/rpc/[token]'
 * maskRpcPath('/v1/rpc//s3cretx') // '/v1/rpc/[token]'
 */
import { routePath } from '../chainPath.js'

export const RPC_PATH = '/v1/rpc'

/** the token segment, after an optional chain prefix (`/v1/chains/{name}[/v1]/rpc/<token>`) */
const withToken = /^((?:\/v1\/chains\/[^/]+)?(?:\/v1)?)\/rpc\/([^/]+)/

export const isRpcPath = (path: string) => {
  const p = routePath(path)
  return p === RPC_PATH || p.startsWith(`${RPC_PATH}/`)
}

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
 * everything after `/v1/rpc` is masked: `/v1/rpc//<token>x`, `/v1/rpc/a/<token>`, `/v1/rpc%2F<token>`
 * or `/V1/RPC/<token>` may each carry a near-miss of the token
 */
const afterRpc = /^((?:\/v1\/chains\/[^/]+)?(?:\/v1)?)\/rpc(?!$)[\s\S]*$/i

export function maskRpcPath(path: string): string {
  return path.replace(afterRpc, '$1/rpc/[token]')
}
