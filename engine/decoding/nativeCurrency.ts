/**
 * The symbol of a chain's native currency for asset changes: POL on Polygon, xDAI on Gnosis, ETH on
 * mainnet and its L2s. viem's chain list is the maintained registry of these; a chain it does not
 * know is shown as ETH (the EVM default, and what Anvil and the devnet use).
 *
 * @example
 * nativeSymbol(137) // 'POL'
 */
import * as chains from 'viem/chains'

let byId: Map<number, string> | undefined

export function nativeSymbol(chainId: number): string {
  if (!byId) {
    byId = new Map()
    for (const chain of Object.values(chains) as { id?: number; nativeCurrency?: { symbol?: string } }[]) {
      const symbol = chain.nativeCurrency?.symbol
      // a few ids appear twice (renamed chains); the first entry wins
      if (typeof chain.id === 'number' && symbol && !byId.has(chain.id)) byId.set(chain.id, symbol)
    }
  }
  return byId.get(chainId) ?? 'ETH'
}
