/**
 * One human line per decoded event (interface §4 `decoded.summary`), in human units: token
 * amounts are scaled by the token's `decimals()` and named by its `symbol()`, read from the
 * simulated state. A token without them falls back to the raw amount and its short address, so a
 * summary never shows a wrong unit.
 *
 * @example
 * await summarize('erc20.Transfer', log.address, args, tokens)
 * // 'Transfer 1.5 DEMO from 0xf39f…2266 to 0x7099…79c8'
 */
import { formatUnits, keccak256, maxUint256, toHex, type Address, type Hex } from 'viem'
import type { EventId } from './eventTable.js'
import type { TokenInfo, TokenInfoReader } from './tokenInfo.js'

/** `0xf39f…2266`: the first 4 and last 4 hex digits. */
export function shortAddress(address: string): string {
  const a = address.toLowerCase()
  return `${a.slice(0, 6)}…${a.slice(-4)}`
}

/** An amount in the token's units when its decimals are known, else the raw integer. */
export function formatAmount(value: bigint, info: TokenInfo): string {
  return info.decimals === undefined ? value.toString() : formatUnits(value, info.decimals)
}

/** The token's symbol, else its short address. */
export function tokenLabel(token: string, info: TokenInfo): string {
  return info.symbol ?? shortAddress(token)
}

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000'

// Roles of OpenZeppelin AccessControl that are common enough to name; others print as short hex.
const ROLE_NAMES = new Map<string, string>([
  [toHex(0n, { size: 32 }), 'DEFAULT_ADMIN_ROLE'],
  ...['MINTER_ROLE', 'PAUSER_ROLE', 'BURNER_ROLE', 'UPGRADER_ROLE', 'ADMIN_ROLE', 'OPERATOR_ROLE', 'SNAPSHOT_ROLE'].map(
    (name) => [keccak256(toHex(name)), name] as [string, string],
  ),
])

function roleName(role: Hex): string {
  return ROLE_NAMES.get(role.toLowerCase()) ?? shortAddress(role)
}

/** Raw amounts of a pool's two sides, e.g. `1000 token0 and 5 token1`, skipping zero sides. */
function poolSides(amount0: bigint, amount1: bigint): string {
  const sides = [amount0 !== 0n ? `${amount0} token0` : undefined, amount1 !== 0n ? `${amount1} token1` : undefined]
  return sides.filter(Boolean).join(' and ') || 'nothing'
}

type Args = Record<string, unknown>
const addr = (v: unknown) => shortAddress(String(v))
const big = (v: unknown) => v as bigint

type TokenEvent = Extract<EventId, `erc20.${string}` | `erc721.${string}` | `erc1155.${string}` | `weth.${string}`>
type PoolEvent = Extract<EventId, `uniswapV2.${string}` | `uniswapV3.${string}`>
type AdminEvent = Exclude<EventId, TokenEvent | PoolEvent>

const isPoolEvent = (id: EventId): id is PoolEvent => id.startsWith('uniswapV')
const isAdminEvent = (id: EventId): id is AdminEvent => id.startsWith('ownable.') || id.startsWith('accessControl.') || id.startsWith('erc1967.')

export async function summarize(id: EventId, emitter: Address, args: Args, tokens: TokenInfoReader): Promise<string> {
  if (isPoolEvent(id)) return poolSummary(id, emitter, args, tokens)
  if (isAdminEvent(id)) return adminSummary(id, emitter, args)
  return tokenSummary(id, emitter, args, tokens)
}

/** a token's decimals and symbol as the reader finds them; none when it cannot say */
async function infoOf(tokens: TokenInfoReader, token: Address): Promise<TokenInfo> {
  try {
    // viem decodes addresses checksummed; readers and caches key on lowercase
    return await tokens(token.toLowerCase() as Address)
  } catch {
    return {}
  }
}

/** transfers and approvals of ERC-20, ERC-721 and ERC-1155 tokens, and WETH's wrapping */
async function tokenSummary(id: TokenEvent, emitter: Address, args: Args, tokens: TokenInfoReader): Promise<string> {
  const info = (token: Address) => infoOf(tokens, token)
  const amountOf = async (token: Address, value: bigint) => {
    const i = await info(token)
    return `${formatAmount(value, i)} ${tokenLabel(token, i)}`
  }
  const nft = async (token: Address, tokenId: bigint) => `${tokenLabel(token, await info(token))} #${tokenId}`

  switch (id) {
    case 'erc20.Transfer':
      return `Transfer ${await amountOf(emitter, big(args.value))} from ${addr(args.from)} to ${addr(args.to)}`
    case 'erc20.Approval': {
      const value = big(args.value)
      const token = await info(emitter)
      const amount = value === maxUint256 ? `unlimited ${tokenLabel(emitter, token)}` : `${formatAmount(value, token)} ${tokenLabel(emitter, token)}`
      return `Approve ${addr(args.spender)} to spend ${amount} of ${addr(args.owner)}`
    }
    case 'erc721.Transfer':
      return `Transfer ${await nft(emitter, big(args.tokenId))} from ${addr(args.from)} to ${addr(args.to)}`
    case 'erc721.Approval':
      return String(args.approved).toLowerCase() === ZERO_ADDRESS
        ? `Clear approval of ${await nft(emitter, big(args.tokenId))} of ${addr(args.owner)}`
        : `Approve ${addr(args.approved)} to transfer ${await nft(emitter, big(args.tokenId))} of ${addr(args.owner)}`
    case 'erc721.ApprovalForAll': {
      const label = tokenLabel(emitter, await info(emitter))
      return args.approved
        ? `Approve ${addr(args.operator)} to manage all ${label} of ${addr(args.owner)}`
        : `Revoke ${addr(args.operator)} from managing all ${label} of ${addr(args.owner)}`
    }
    case 'erc1155.TransferSingle':
      return `Transfer ${big(args.value)} of ${await nft(emitter, big(args.id))} from ${addr(args.from)} to ${addr(args.to)}`
    case 'erc1155.TransferBatch': {
      const ids = args.ids as readonly bigint[]
      const values = args.values as readonly bigint[]
      const label = tokenLabel(emitter, await info(emitter))
      const shown = ids.slice(0, 5).map((tokenId, i) => `${values[i]} of #${tokenId}`)
      const more = ids.length > 5 ? ` and ${ids.length - 5} more` : ''
      return `Transfer ${label} ${shown.join(', ')}${more} from ${addr(args.from)} to ${addr(args.to)}`
    }
    case 'erc1155.URI':
      return `Set URI of ${await nft(emitter, big(args.id))} to ${String(args.value)}`
    case 'weth.Deposit':
      return `Deposit ${await amountOf(emitter, big(args.wad))} to ${addr(args.dst)}`
    case 'weth.Withdrawal':
      return `Withdraw ${await amountOf(emitter, big(args.wad))} from ${addr(args.src)}`
  }
}

/** swaps, liquidity and new pools of Uniswap v2 pairs and v3 pools, in raw amounts of each side */
async function poolSummary(id: PoolEvent, emitter: Address, args: Args, tokens: TokenInfoReader): Promise<string> {
  const info = (token: Address) => infoOf(tokens, token)
  switch (id) {
    case 'uniswapV2.Swap': {
      const paid = poolSides(big(args.amount0In), big(args.amount1In))
      const got = poolSides(big(args.amount0Out), big(args.amount1Out))
      return `Swap ${paid} for ${got} on pair ${shortAddress(emitter)} to ${addr(args.to)}`
    }
    case 'uniswapV2.Sync':
      return `Sync reserves of pair ${shortAddress(emitter)} to ${big(args.reserve0)} token0 and ${big(args.reserve1)} token1`
    case 'uniswapV2.Mint':
      return `Add liquidity ${poolSides(big(args.amount0), big(args.amount1))} to pair ${shortAddress(emitter)} by ${addr(args.sender)}`
    case 'uniswapV2.Burn':
      return `Remove liquidity ${poolSides(big(args.amount0), big(args.amount1))} from pair ${shortAddress(emitter)} to ${addr(args.to)}`
    case 'uniswapV2.PairCreated': {
      const [a, b] = await Promise.all([info(args.token0 as Address), info(args.token1 as Address)])
      return `Create pair ${addr(args.pair)} for ${tokenLabel(args.token0 as Address, a)}/${tokenLabel(args.token1 as Address, b)}`
    }
    case 'uniswapV3.Swap': {
      // Pool deltas: positive = paid into the pool, negative = taken out of it.
      const a0 = big(args.amount0)
      const a1 = big(args.amount1)
      const abs = (v: bigint) => (v < 0n ? -v : v)
      const paid = poolSides(a0 > 0n ? a0 : 0n, a1 > 0n ? a1 : 0n)
      const got = poolSides(a0 < 0n ? abs(a0) : 0n, a1 < 0n ? abs(a1) : 0n)
      return `Swap ${paid} for ${got} on pool ${shortAddress(emitter)} to ${addr(args.recipient)}`
    }
    case 'uniswapV3.Mint':
      return `Add liquidity ${big(args.amount)} in ticks [${args.tickLower}, ${args.tickUpper}] of pool ${shortAddress(emitter)} for ${addr(args.owner)}: ${poolSides(big(args.amount0), big(args.amount1))}`
    case 'uniswapV3.Burn':
      return `Remove liquidity ${big(args.amount)} in ticks [${args.tickLower}, ${args.tickUpper}] of pool ${shortAddress(emitter)} for ${addr(args.owner)}: ${poolSides(big(args.amount0), big(args.amount1))}`
    case 'uniswapV3.Collect':
      return `Collect ${poolSides(big(args.amount0), big(args.amount1))} from pool ${shortAddress(emitter)} to ${addr(args.recipient)}`
    case 'uniswapV3.PoolCreated': {
      const [a, b] = await Promise.all([info(args.token0 as Address), info(args.token1 as Address)])
      // fee is in hundredths of a basis point: 3000 = 0.3%
      const fee = formatUnits(BigInt(args.fee as number), 4)
      return `Create pool ${addr(args.pool)} for ${tokenLabel(args.token0 as Address, a)}/${tokenLabel(args.token1 as Address, b)} with fee ${fee}%`
    }
  }
}

/** ownership, roles and proxy upgrades */
function adminSummary(id: AdminEvent, emitter: Address, args: Args): string {
  switch (id) {
    case 'ownable.OwnershipTransferred':
      return `Transfer ownership of ${shortAddress(emitter)} from ${addr(args.previousOwner)} to ${addr(args.newOwner)}`
    case 'accessControl.RoleGranted':
      return `Grant ${roleName(args.role as Hex)} on ${shortAddress(emitter)} to ${addr(args.account)} by ${addr(args.sender)}`
    case 'accessControl.RoleRevoked':
      return `Revoke ${roleName(args.role as Hex)} on ${shortAddress(emitter)} from ${addr(args.account)} by ${addr(args.sender)}`
    case 'erc1967.Upgraded':
      return `Upgrade proxy ${shortAddress(emitter)} to implementation ${addr(args.implementation)}`
    case 'erc1967.AdminChanged':
      return `Change admin of proxy ${shortAddress(emitter)} from ${addr(args.previousAdmin)} to ${addr(args.newAdmin)}`
    case 'erc1967.BeaconUpgraded':
      return `Upgrade proxy ${shortAddress(emitter)} to beacon ${addr(args.beacon)}`
  }
}
