/**
 * Prints engine/decoding/nativeSymbols.ts: the native currency symbol of each chain in viem's
 * chain list whose symbol is not ETH, so the engine knows them without loading viem's ~700 chain
 * modules (most of a second of every start). test/engine/decoding/nativeCurrency.test.ts checks the table
 * against the installed viem.
 *
 *   node scripts/native-symbols.mjs > engine/decoding/nativeSymbols.ts && npx biome format --write engine/decoding/nativeSymbols.ts
 */
import * as chains from 'viem/chains'

const byId = new Map()
for (const chain of Object.values(chains)) {
  const symbol = chain.nativeCurrency?.symbol
  // a few ids appear twice (renamed chains): the first entry wins
  if (typeof chain.id === 'number' && symbol && !byId.has(chain.id)) byId.set(chain.id, symbol)
}
const rows = [...byId].filter(([, symbol]) => symbol !== 'ETH').sort(([a], [b]) => a - b)
process.stdout.write(`/**
 * The native currency symbol of each chain of viem's chain list whose symbol is not ETH, by chain
 * id: written by scripts/native-symbols.mjs from the installed viem, checked against it by
 * test/engine/decoding/nativeCurrency.test.ts.
 */
export const NATIVE_SYMBOLS: Readonly<Record<number, string>> = {
${rows.map(([id, symbol]) => `  ${id}: ${JSON.stringify(symbol)},`).join('\n')}
}
`)
