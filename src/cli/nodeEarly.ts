/**
 * What a development node answers while its engine still loads (a couple of seconds of module
 * loading on a cold start): `eth_chainId`, the question every client asks first, when the chain id
 * is known without the engine — `--chain-id`, the embedded devnet's, or the forked chain's, asked
 * of `--fork-url` once. Everything else, and everything once a token or a rate limit is asked for,
 * waits for the engine (docs/decisions/0126-node-listens-before-its-engine-loads.md).
 */
// the quantity encoder from the lowest layer: it imports nothing, so the early answer loads no engine
import { toQuantity } from '../../tracers/evmWords.js'
import type { NodeFlags } from './nodeFlags.js'

/** the embedded devnet's chain id (engine/chains/memory/accounts.ts), without loading the engine */
export const DEVNET_CHAIN_ID = 31337

/** how long the forked chain's id may take to come before the question waits for the engine */
const UPSTREAM_CHAIN_ID_TIMEOUT_MS = 5_000

export function earlyAnswers(flags: NodeFlags): (req: Request) => Promise<Response | undefined> {
  if (flags.authToken !== undefined || flags.rateLimit !== undefined) return async () => undefined
  let chainId: Promise<number | undefined> | undefined
  const known = () =>
    (chainId ??= flags.chainId !== undefined || !flags.forkUrl ? Promise.resolve(flags.chainId ?? DEVNET_CHAIN_ID) : upstreamChainId(flags.forkUrl))
  return async (req) => {
    if (req.method !== 'POST' || new URL(req.url).pathname !== '/') return undefined
    const call = await req
      .clone()
      .json()
      .catch(() => undefined)
    if (!isChainIdCall(call)) return undefined
    const id = await known()
    if (id === undefined) return undefined
    return Response.json({ jsonrpc: '2.0', id: call.id, result: toQuantity(id) })
  }
}

function isChainIdCall(call: unknown): call is { id: string | number | null } {
  if (typeof call !== 'object' || call === null || Array.isArray(call)) return false
  const c = call as Record<string, unknown>
  const params = c.params === undefined || (Array.isArray(c.params) && c.params.length === 0)
  const id = c.id === null || typeof c.id === 'string' || typeof c.id === 'number'
  return c.jsonrpc === '2.0' && c.method === 'eth_chainId' && params && id
}

/** the forked chain's id; undefined when the upstream does not tell it (the engine then says why) */
async function upstreamChainId(url: string): Promise<number | undefined> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(UPSTREAM_CHAIN_ID_TIMEOUT_MS),
    })
    const { result } = (await res.json()) as { result?: unknown }
    return typeof result === 'string' && /^0x[0-9a-f]{1,13}$/i.test(result) ? Number(result) : undefined
  } catch {
    return undefined
  }
}
