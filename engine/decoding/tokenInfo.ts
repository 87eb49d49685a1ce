/**
 * Token metadata for summaries and asset changes: `symbol()` and `decimals()` read by a static
 * call on the state the caller chooses (the simulated state, for /simulate).
 *
 * Tokens in the wild are not all well-behaved, so decoding is defensive: `symbol()` may return a
 * string (ERC-20) or a bytes32 (MKR, SAI), `decimals()` may be missing, revert or return garbage.
 * Whatever does not decode cleanly is left out (`{}` for a contract that is no token at all), so
 * a summary falls back to the raw amount and the token's short address.
 *
 * @example
 * const tokens = createTokenInfoReader((to, data) => staticCall(to, data), { store, scope: `1:${block}` })
 * const { symbol, decimals } = await tokens('0x6b17…1d0f')
 */
import { decodeAbiParameters, hexToBytes, hexToBigInt, size, slice, type Address, type Hex } from 'viem'
import type { CacheStore } from '../state/store/cacheStore.js'

export interface TokenInfo {
  symbol?: string
  decimals?: number
  name?: string
}

/** Reads a token's metadata; never throws (unknown fields are simply absent). */
export type TokenInfoReader = (token: Address) => Promise<TokenInfo>

/**
 * A static call: the return data, or undefined when the call reverted, halted or hit no code.
 * May throw (e.g. an upstream failure); such a read is treated as unknown and not cached.
 */
export type ReadCall = (to: Address, data: Hex) => Promise<Hex | undefined>

export interface TokenInfoCacheOptions {
  store: CacheStore
  /**
   * Identifies the state the reads run on, e.g. `${chainId}:${blockNumber}`. Share a scope only
   * between reads of the same state: a simulation with state overrides, or whose calls changed code
   * at some address (OverlayStateManager.codeWritten: creations at any depth, self-destructs,
   * EIP-7702 delegations), may see other code there than the block does, and must not share.
   */
  scope: string
  ttlSeconds?: number
}

/** the calls metadata is read with: keccak256('symbol()'), keccak256('decimals()') and keccak256('name()'), [0:4] */
export const TOKEN_INFO_SELECTORS = { symbol: '0x95d89b41', decimals: '0x313ce567', name: '0x06fdde03' } as const satisfies Record<string, Hex>
/** symbols longer than this are junk or an attack on the summary line */
const MAX_SYMBOL_LENGTH = 64

const utf8 = new TextDecoder('utf-8', { fatal: true })
const encoder = new TextEncoder()
// one decoder for the module: making one per read cost microseconds on every warm simulation
const lenientUtf8 = new TextDecoder()

/** Printable text or undefined: control characters would corrupt a one-line summary. */
function cleanText(text: string): string | undefined {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a token symbol is cleaned of control characters
  const cleaned = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim()
  if (cleaned.length === 0 || cleaned.length > MAX_SYMBOL_LENGTH) return undefined
  return cleaned
}

/** `symbol()` return data as a string (ABI `string`) or a right-padded bytes32 (MKR-style). */
export function decodeSymbol(data: Hex | undefined): string | undefined {
  if (!data || size(data) < 32) return undefined
  if (size(data) >= 64) {
    try {
      const [text] = decodeAbiParameters([{ type: 'string' }], data)
      return cleanText(text)
    } catch {
      // not an ABI string: maybe a bytes32 followed by junk; fall through
    }
  }
  if (size(data) !== 32) return undefined
  const bytes = hexToBytes(data)
  let end = bytes.length
  while (end > 0 && bytes[end - 1] === 0) end--
  // A zero byte before the end means this is not text (e.g. a number returned by mistake).
  if (end === 0 || bytes.subarray(0, end).includes(0)) return undefined
  try {
    return cleanText(utf8.decode(bytes.subarray(0, end)))
  } catch {
    return undefined
  }
}

/** `decimals()` return data: a uint8 in the first word, anything above 255 is rejected. */
export function decodeDecimals(data: Hex | undefined): number | undefined {
  if (!data || size(data) < 32) return undefined
  const value = hexToBigInt(slice(data, 0, 32))
  return value <= 255n ? Number(value) : undefined
}

function encodeInfo(info: TokenInfo): Uint8Array {
  return encoder.encode(JSON.stringify(info))
}

function decodeInfo(bytes: Uint8Array): TokenInfo | undefined {
  try {
    const raw = JSON.parse(lenientUtf8.decode(bytes)) as TokenInfo
    const info: TokenInfo = {}
    if (typeof raw.symbol === 'string') info.symbol = raw.symbol
    if (typeof raw.decimals === 'number') info.decimals = raw.decimals
    if (typeof raw.name === 'string') info.name = raw.name
    return info
  } catch {
    return undefined
  }
}

// `tokenMeta`: entries kept before `name` was read lack it, and must not be taken for complete
const tokenInfoKey = (scope: string, token: Address) => `tokenMeta:${scope}:${token.toLowerCase()}`

/** what `symbol()`, `decimals()` and `name()` returned (undefined: reverted, halted, no code) as metadata */
export function tokenInfoOf(symbolData: Hex | undefined, decimalsData: Hex | undefined, nameData?: Hex): TokenInfo {
  const info: TokenInfo = {}
  const symbol = decodeSymbol(symbolData)
  const decimals = decodeDecimals(decimalsData)
  const name = decodeSymbol(nameData)
  if (symbol !== undefined) info.symbol = symbol
  if (decimals !== undefined) info.decimals = decimals
  if (name !== undefined) info.name = name
  return info
}

/** keeps metadata where a reader of the same scope finds it (read here, or read ahead upstream) */
export async function rememberTokenInfo(cache: TokenInfoCacheOptions, token: Address, info: TokenInfo): Promise<void> {
  await cache.store.set(tokenInfoKey(cache.scope, token), encodeInfo(info), cache.ttlSeconds).catch(() => undefined)
}

/** which of `tokens` have metadata kept in the scope already (a read ahead need not ask for those) */
export async function keptTokenInfo(cache: TokenInfoCacheOptions, tokens: Address[]): Promise<boolean[]> {
  if (tokens.length === 0) return []
  const hits = await cache.store.getMany(tokens.map((t) => tokenInfoKey(cache.scope, t))).catch(() => tokens.map(() => undefined))
  return hits.map((hit) => hit !== undefined && decodeInfo(hit) !== undefined)
}

/**
 * A reader that memoizes per token for its own lifetime (one simulation) and, with `cache`,
 * shares results through the cache store under `tokenInfo:<scope>:<token>`.
 */
export function createTokenInfoReader(readCall: ReadCall, cache?: TokenInfoCacheOptions): TokenInfoReader {
  const memo = new Map<Address, Promise<TokenInfo>>()

  const load = async (token: Address): Promise<TokenInfo> => {
    const key = cache ? tokenInfoKey(cache.scope, token) : undefined
    if (cache && key) {
      const hit = await cache.store.get(key).catch(() => undefined)
      const info = hit && decodeInfo(hit)
      if (info) return info
    }
    let failed = false
    const read = (data: Hex) =>
      readCall(token, data).catch(() => {
        failed = true
        return undefined
      })
    const [symbolData, decimalsData, nameData] = await Promise.all([
      read(TOKEN_INFO_SELECTORS.symbol),
      read(TOKEN_INFO_SELECTORS.decimals),
      read(TOKEN_INFO_SELECTORS.name),
    ])
    const info = tokenInfoOf(symbolData, decimalsData, nameData)
    // A failed read (upstream down) says nothing about the token: do not remember it.
    if (cache && !failed) await rememberTokenInfo(cache, token, info)
    return info
  }

  return (token: Address) => {
    const address = token.toLowerCase() as Address
    let pending = memo.get(address)
    if (!pending) {
      pending = load(address)
      memo.set(address, pending)
    }
    return pending
  }
}
