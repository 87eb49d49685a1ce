/**
 * The provider convention for tools that cannot set headers: the API token as the last path
 * segment, `POST /v1/rpc/<token>`. The token is read here and nowhere else, and every path that
 * is logged or echoed goes through `maskRpcPath` first, so a token in a URL never reaches a log
 * line or a response (a wrong token is masked too: it may be a near-miss of the real one).
 *
 * @example
 * rpcPathToken('/v1/rpc/s3cret') // 's3cret'
 * maskRpcPath('/v1/rpc/s3cret')  // '/v1/rpc/[token]'
 */
export const RPC_PATH = '/v1/rpc'

const withToken = /^\/v1\/rpc\/([^/]+)/
/** a writable fork's endpoint: /v1/forks/<forkId>/rpc[/<token>] */
const forkRpc = /^\/v1\/forks\/[^/]+\/rpc(\/|$)/
const forkWithToken = /^(\/v1\/forks\/[^/]+\/rpc)\/([^/]+)/

export const isRpcPath = (path: string) => path === RPC_PATH || path.startsWith(`${RPC_PATH}/`) || forkRpc.test(path)

export function rpcPathToken(path: string): string | undefined {
  const m = withToken.exec(path)
  const f = m ? undefined : forkWithToken.exec(path)
  const raw = m?.[1] ?? f?.[2]
  if (raw === undefined) return undefined
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}

export function maskRpcPath(path: string): string {
  return path.replace(withToken, `${RPC_PATH}/[token]`).replace(forkWithToken, '$1/[token]')
}
