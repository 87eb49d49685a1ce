/**
 * The engine's request vocabulary: the words the lower folders (chain sources, state, the way into
 * a run, observers, decoding) and the public surface (engine/types.ts) share. It imports nothing
 * of the engine but the block grammar, so no type loop runs through the public surface: the lower
 * folders import this, never engine/types.ts.
 */
import type { Address, Hex } from 'viem'

export {
  BLOCK_TAGS,
  FORK_POINT_TAGS,
  BlockRefError,
  isBlockTag,
  parseBlockRef,
  type BlockRef,
  type BlockRefOptions,
  type BlockSelector,
  type BlockTag,
  type ForkPointTag,
} from './platform/blockRef.js'

/** interface §9, normalized to a map keyed by lowercase address */
export interface AccountOverride {
  balance?: bigint
  nonce?: bigint
  code?: Hex
  /** replace all storage (geth `state`); slot/value 32-byte 0x-hex */
  state?: Record<Hex, Hex>
  /** patch the given slots (geth `stateDiff`); slot/value 32-byte 0x-hex */
  stateDiff?: Record<Hex, Hex>
  /** set variables by Solidity path (`balances[0x…]`, `owner`), written with the contract's storage layout after the slots */
  variables?: Record<string, unknown>
}
export type StateOverrides = Record<Address, AccountOverride>

export interface BlockOverrides {
  number?: bigint
  time?: bigint
  baseFee?: bigint
  gasLimit?: bigint
  coinbase?: Address
  prevRandao?: Hex
  blobBaseFee?: bigint
}

export interface DecodedEvent {
  name: string
  signature: string
  args: Record<string, unknown>
  summary: string
}

export interface Transfer {
  type: 'native' | 'erc20' | 'erc721' | 'erc1155'
  token: Address | null
  from: Address
  to: Address
  amount: Hex
  tokenId?: Hex
  /** with traceAssetChanges: the token's metadata where it answers, and the amount in its units */
  name?: string
  symbol?: string
  decimals?: number
  formatted?: string
}

export interface AssetChange {
  account: Address
  type: 'native' | 'erc20' | 'erc721' | 'erc1155'
  token: Address | null
  tokenId?: Hex
  symbol?: string
  decimals?: number
  before: Hex
  after: Hex
  /** signed decimal string */
  delta: string
  name?: string
  /** delta in token units, e.g. "-1.5" (a count for ERC-721/1155) */
  formatted?: string
}
