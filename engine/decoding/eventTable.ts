/**
 * The bundled table of well-known events (interface §4 `decoded`): ERC-20, ERC-721, ERC-1155,
 * WETH, Uniswap V2/V3 core, Ownable, AccessControl and ERC-1967 proxy events.
 *
 * A log is matched by its topic0 AND its topic count, because several standards share a
 * signature hash:
 * - ERC-20 and ERC-721 `Transfer`/`Approval` have the same topic0; ERC-20 indexes two arguments
 *   (3 topics, amount in data), ERC-721 indexes three (4 topics, tokenId in a topic, empty data).
 * - ERC-721 and ERC-1155 `ApprovalForAll` are the very same event: one entry serves both.
 * - Uniswap V2 and V3 `Swap`/`Mint`/`Burn` share names but not signatures: topic0 decides.
 *
 * @example
 * const entry = findEvent(log.topics[0], log.topics.length)
 */
import { parseAbiItem, toEventSelector, type AbiEvent, type Hex } from 'viem'

/** Identifies an entry; summaries are keyed by it. */
export type EventId =
  | 'erc20.Transfer'
  | 'erc20.Approval'
  | 'erc721.Transfer'
  | 'erc721.Approval'
  | 'erc721.ApprovalForAll'
  | 'erc1155.TransferSingle'
  | 'erc1155.TransferBatch'
  | 'erc1155.URI'
  | 'weth.Deposit'
  | 'weth.Withdrawal'
  | 'uniswapV2.Swap'
  | 'uniswapV2.Sync'
  | 'uniswapV2.Mint'
  | 'uniswapV2.Burn'
  | 'uniswapV2.PairCreated'
  | 'uniswapV3.Swap'
  | 'uniswapV3.Mint'
  | 'uniswapV3.Burn'
  | 'uniswapV3.Collect'
  | 'uniswapV3.PoolCreated'
  | 'ownable.OwnershipTransferred'
  | 'accessControl.RoleGranted'
  | 'accessControl.RoleRevoked'
  | 'erc1967.Upgraded'
  | 'erc1967.AdminChanged'
  | 'erc1967.BeaconUpgraded'

export interface EventEntry {
  id: EventId
  abi: AbiEvent
  /** canonical signature, e.g. `Transfer(address,address,uint256)` */
  signature: string
  topic0: Hex
  /** topic0 + one topic per indexed argument */
  topicCount: number
}

// Human-readable signatures with the argument names of the reference implementations
// (OpenZeppelin, WETH9, Uniswap v2-core/v3-core): they become the keys of `decoded.args`.
const SIGNATURES: Record<EventId, string> = {
  'erc20.Transfer': 'event Transfer(address indexed from, address indexed to, uint256 value)',
  'erc20.Approval': 'event Approval(address indexed owner, address indexed spender, uint256 value)',
  'erc721.Transfer': 'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
  'erc721.Approval': 'event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)',
  'erc721.ApprovalForAll': 'event ApprovalForAll(address indexed owner, address indexed operator, bool approved)',
  'erc1155.TransferSingle': 'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
  'erc1155.TransferBatch': 'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
  'erc1155.URI': 'event URI(string value, uint256 indexed id)',
  'weth.Deposit': 'event Deposit(address indexed dst, uint256 wad)',
  'weth.Withdrawal': 'event Withdrawal(address indexed src, uint256 wad)',
  'uniswapV2.Swap': 'event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)',
  'uniswapV2.Sync': 'event Sync(uint112 reserve0, uint112 reserve1)',
  'uniswapV2.Mint': 'event Mint(address indexed sender, uint256 amount0, uint256 amount1)',
  'uniswapV2.Burn': 'event Burn(address indexed sender, uint256 amount0, uint256 amount1, address indexed to)',
  'uniswapV2.PairCreated': 'event PairCreated(address indexed token0, address indexed token1, address pair, uint256 pairIndex)',
  'uniswapV3.Swap':
    'event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)',
  'uniswapV3.Mint':
    'event Mint(address sender, address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)',
  'uniswapV3.Burn': 'event Burn(address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)',
  'uniswapV3.Collect':
    'event Collect(address indexed owner, address recipient, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount0, uint128 amount1)',
  'uniswapV3.PoolCreated': 'event PoolCreated(address indexed token0, address indexed token1, uint24 indexed fee, int24 tickSpacing, address pool)',
  'ownable.OwnershipTransferred': 'event OwnershipTransferred(address indexed previousOwner, address indexed newOwner)',
  'accessControl.RoleGranted': 'event RoleGranted(bytes32 indexed role, address indexed account, address indexed sender)',
  'accessControl.RoleRevoked': 'event RoleRevoked(bytes32 indexed role, address indexed account, address indexed sender)',
  'erc1967.Upgraded': 'event Upgraded(address indexed implementation)',
  'erc1967.AdminChanged': 'event AdminChanged(address previousAdmin, address newAdmin)',
  'erc1967.BeaconUpgraded': 'event BeaconUpgraded(address indexed beacon)',
}

function buildEntry(id: EventId, human: string): EventEntry {
  const abi = parseAbiItem(human) as AbiEvent
  const signature = `${abi.name}(${abi.inputs.map((i) => i.type).join(',')})`
  return {
    id,
    abi,
    signature,
    topic0: toEventSelector(signature),
    topicCount: 1 + abi.inputs.filter((i) => i.indexed).length,
  }
}

export const EVENT_TABLE: readonly EventEntry[] = Object.entries(SIGNATURES).map(([id, human]) => buildEntry(id as EventId, human))

const byKey = new Map<string, EventEntry>()
for (const entry of EVENT_TABLE) {
  const key = `${entry.topic0}:${entry.topicCount}`
  // Two entries with the same topic0 AND topic count would be ambiguous; the table must not have any.
  if (byKey.has(key)) throw new Error(`eventTable: ambiguous entries ${byKey.get(key)!.id} and ${entry.id}`)
  byKey.set(key, entry)
}

/** The entry for a log's topic0 and topic count, or undefined when the event is not in the table. */
export function findEvent(topic0: Hex | undefined, topicCount: number): EventEntry | undefined {
  if (!topic0) return undefined
  return byKey.get(`${topic0.toLowerCase()}:${topicCount}`)
}

export function eventById(id: EventId): EventEntry {
  return EVENT_TABLE.find((e) => e.id === id)!
}
