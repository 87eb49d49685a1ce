/**
 * Decoded logs (interface §4 `decoded`): the bundled event table, the strict decoder with its
 * one-line summaries, and token metadata read from the simulated state.
 */
export { EVENT_TABLE, findEvent, eventById, type EventEntry, type EventId } from './eventTable.js'
export { decodeLog, decodeLogs, type RawLog } from './decodeLogs.js'
export { summarize, shortAddress, formatAmount, tokenLabel } from './summaries.js'
export {
  createTokenInfoReader,
  rememberTokenInfo,
  keptTokenInfo,
  tokenInfoOf,
  TOKEN_INFO_SELECTORS,
  decodeSymbol,
  decodeDecimals,
  type TokenInfo,
  type TokenInfoReader,
  type ReadCall,
  type TokenInfoCacheOptions,
} from './tokenInfo.js'
export { nativeSymbol } from './nativeCurrency.js'
