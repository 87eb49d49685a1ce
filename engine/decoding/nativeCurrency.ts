/**
 * The symbol of a chain's native currency for asset changes: POL on Polygon, xDAI on Gnosis, ETH on
 * mainnet and its L2s. viem's chain list is the maintained registry of these, read from a table
 * written from it (nativeSymbols.ts): importing viem's chain list itself loads some 700 modules,
 * most of a second of every start. A chain the table does not know is shown as ETH (the EVM
 * default, and what Anvil and the devnet use).
 *
 * @example
 * nativeSymbol(137) // 'POL'
 */
import { NATIVE_SYMBOLS } from './nativeSymbols.js'

export function nativeSymbol(chainId: number): string {
  return NATIVE_SYMBOLS[chainId] ?? 'ETH'
}
