/**
 * Readable values on asset, approval and transfer entries: the token's `name`, `symbol` and
 * `decimals` where it answers them (the metadata reader of the simulation, memoized and read
 * ahead with a cold fork's state batch), and `formatted`, the amount in token units as a decimal
 * string (`"-1.5"`). ERC-721 and ERC-1155 amounts are counts: their `formatted` is the count.
 *
 * @example
 * await readableTransfers(transfers, tokens, 'ETH')
 */
import { formatUnits, type Address } from 'viem'
import type { TokenInfo, TokenInfoReader } from '../decoding/tokenInfo.js'
import type { AssetChange, Transfer } from '../vocabulary.js'

const NATIVE_DECIMALS = 18

/** metadata, or nothing when the token does not answer (never throws) */
export function readableToken(tokens: TokenInfoReader, token: Address): Promise<TokenInfo> {
  return tokens(token).catch(() => ({}))
}

/** the amount in units of `decimals`; a count for tokens without decimals */
export function formatAmount(amount: bigint, decimals: number | undefined): string {
  return formatUnits(amount, decimals ?? 0)
}

/** name, symbol, decimals and formatted on each transfer (in place) */
export async function readableTransfers(transfers: Transfer[], tokens: TokenInfoReader, nativeSymbol?: string): Promise<void> {
  await Promise.all(
    transfers.map(async (t) => {
      const amount = BigInt(t.amount)
      if (t.type === 'native') {
        if (nativeSymbol) t.symbol = nativeSymbol
        t.decimals = NATIVE_DECIMALS
        t.formatted = formatAmount(amount, NATIVE_DECIMALS)
        return
      }
      const info = await readableToken(tokens, t.token!)
      if (info.name !== undefined) t.name = info.name
      if (info.symbol !== undefined) t.symbol = info.symbol
      if (t.type === 'erc20') {
        if (info.decimals !== undefined) {
          t.decimals = info.decimals
          t.formatted = formatAmount(amount, info.decimals)
        }
      } else t.formatted = formatAmount(amount, 0)
    }),
  )
}

/** name and formatted (of the delta) on each asset change (in place; symbol and decimals are set already) */
export async function readableAssetChanges(changes: AssetChange[], tokens: TokenInfoReader): Promise<void> {
  await Promise.all(
    changes.map(async (c) => {
      const delta = BigInt(c.delta)
      if (c.type !== 'native') {
        const info = await readableToken(tokens, c.token!)
        if (info.name !== undefined) c.name = info.name
      }
      if (c.type === 'native' || c.type === 'erc20') {
        if (c.decimals !== undefined) c.formatted = formatAmount(delta, c.decimals)
      } else c.formatted = formatAmount(delta, 0)
    }),
  )
}
