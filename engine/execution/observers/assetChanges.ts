/**
 * Truthful asset changes (interface §4 `assetChanges`): net balance changes computed from
 * balances READ from state before and after the simulation — native balance, ERC-20
 * `balanceOf(account)`, ERC-721 `ownerOf(id)`, ERC-1155 `balanceOf(account, id)` — never summed
 * from events. A fee-on-transfer token whose `Transfer` says 100 but credits 99 reports 99; a
 * rebasing token reports what the holder really has.
 *
 * Events only choose WHAT to read: the (account, token, id) candidates come from the transfers
 * seen (plus WETH `Deposit`/`Withdrawal`, since WETH9 emits no `Transfer` when wrapping), and the
 * account's native balance is always a candidate.
 *
 * @example
 * const changes = await computeAssetChanges({ account, transfers, logs, readBefore, readAfter, tokens })
 * // [{ account, type: 'erc20', token, symbol: 'DEMO', decimals: 18, before: '0x…', after: '0x…', delta: '-990000000000000000' }]
 */
import { decodeAbiParameters, encodeFunctionData, hexToBigInt, parseAbi, size, slice, toHex, type Address, type Hex } from 'viem'
import { EngineError, isEngineError } from '../../platform/errors.js'
import type { AssetChange, Transfer } from '../../vocabulary.js'
import { eventById } from '../../decoding/eventTable.js'
import type { RawLog } from '../../decoding/decodeLogs.js'
import type { TokenInfoReader } from '../../decoding/tokenInfo.js'

/** Reads balances from one fixed state (before or after the simulation). */
export interface BalanceReader {
  nativeBalance(address: Address): Promise<bigint>
  /** static call: return data, or undefined when it reverted or halted */
  call(to: Address, data: Hex): Promise<Hex | undefined>
}

export interface AssetChangesInput {
  /** the account to report (params.account); absent: every account whose balance changed */
  account?: Address
  /** the transfers of every call of the simulation (createTransfersTracer) */
  transfers: readonly Transfer[]
  /** the simulation's successful logs: WETH Deposit/Withdrawal add ERC-20 candidates */
  logs?: readonly RawLog[]
  /** extra native-balance candidates, e.g. the senders (gas fees move their balance too) */
  accounts?: readonly Address[]
  readBefore: BalanceReader
  readAfter: BalanceReader
  tokens: TokenInfoReader
  /** symbol of the chain's native currency, when known (e.g. 'ETH') */
  nativeSymbol?: string
}

interface Candidate {
  account: Address
  type: AssetChange['type']
  token: Address | null
  tokenId?: Hex
}

const TOKEN_ABI = parseAbi([
  'function balanceOf(address owner) view returns (uint256)',
  'function ownerOf(uint256 tokenId) view returns (address)',
  'function balanceOf(address account, uint256 id) view returns (uint256)',
])
const DEPOSIT_TOPIC = eventById('weth.Deposit').topic0
const WITHDRAWAL_TOPIC = eventById('weth.Withdrawal').topic0
const NATIVE_DECIMALS = 18

const lower = (a: string) => a.toLowerCase() as Address

/** The (account, asset) pairs whose balances are worth reading, in first-seen order. */
function collectCandidates(input: AssetChangesInput): Candidate[] {
  const only = input.account && lower(input.account)
  const seen = new Map<string, Candidate>()
  const add = (c: Candidate) => {
    if (only && c.account !== only) return
    const key = `${c.type}:${c.account}:${c.token ?? ''}:${c.tokenId ?? ''}`
    if (!seen.has(key)) seen.set(key, c)
  }
  if (only) add({ account: only, type: 'native', token: null })
  for (const a of input.accounts ?? []) add({ account: lower(a), type: 'native', token: null })
  for (const t of input.transfers) {
    for (const account of [lower(t.from), lower(t.to)]) {
      if (t.type === 'native') add({ account, type: 'native', token: null })
      else if (t.type === 'erc20') add({ account, type: 'erc20', token: lower(t.token!) })
      else add({ account, type: t.type, token: lower(t.token!), tokenId: t.tokenId })
    }
  }
  for (const log of input.logs ?? []) {
    const topic0 = log.topics[0]?.toLowerCase()
    if ((topic0 !== DEPOSIT_TOPIC && topic0 !== WITHDRAWAL_TOPIC) || log.topics.length !== 2) continue
    const holder = log.topics[1]!.toLowerCase()
    if (!/^0x0{24}[0-9a-f]{40}$/.test(holder)) continue
    add({ account: `0x${holder.slice(26)}` as Address, type: 'erc20', token: lower(log.address) })
  }
  return [...seen.values()]
}

/** The first 32-byte word as an integer; 0 when the call reverted or returned too little. */
function uintResult(data: Hex | undefined): bigint {
  return data && size(data) >= 32 ? hexToBigInt(slice(data, 0, 32)) : 0n
}

/** 1 when `ownerOf(id)` names the account, else 0 (nonexistent tokens revert: not owned). */
function ownsResult(data: Hex | undefined, account: Address): bigint {
  if (!data || size(data) < 32) return 0n
  try {
    const [owner] = decodeAbiParameters([{ type: 'address' }], slice(data, 0, 32))
    return lower(owner) === account ? 1n : 0n
  } catch {
    return 0n
  }
}

async function readAmount(reader: BalanceReader, c: Candidate): Promise<bigint> {
  switch (c.type) {
    case 'native':
      return reader.nativeBalance(c.account)
    case 'erc20':
      return uintResult(await reader.call(c.token!, encodeFunctionData({ abi: TOKEN_ABI, functionName: 'balanceOf', args: [c.account] })))
    case 'erc721':
      return ownsResult(
        await reader.call(c.token!, encodeFunctionData({ abi: TOKEN_ABI, functionName: 'ownerOf', args: [hexToBigInt(c.tokenId!)] })),
        c.account,
      )
    case 'erc1155':
      return uintResult(
        await reader.call(c.token!, encodeFunctionData({ abi: TOKEN_ABI, functionName: 'balanceOf', args: [c.account, hexToBigInt(c.tokenId!)] })),
      )
  }
}

async function toAssetChange(c: Candidate, before: bigint, after: bigint, input: AssetChangesInput): Promise<AssetChange> {
  const change: AssetChange = {
    account: c.account,
    type: c.type,
    token: c.token,
    before: toHex(before),
    after: toHex(after),
    delta: (after - before).toString(),
  }
  if (c.tokenId !== undefined) change.tokenId = c.tokenId
  if (c.type === 'native') {
    if (input.nativeSymbol) change.symbol = input.nativeSymbol
    change.decimals = NATIVE_DECIMALS
    return change
  }
  const info = await input.tokens(c.token!).catch(() => ({}) as { symbol?: string; decimals?: number })
  if (info.symbol !== undefined) change.symbol = info.symbol
  // decimals only mean something for fungible ERC-20 amounts
  if (c.type === 'erc20' && info.decimals !== undefined) change.decimals = info.decimals
  return change
}

/** Net balance changes, unchanged balances omitted, in the order the assets were first seen. */
export async function computeAssetChanges(input: AssetChangesInput): Promise<AssetChange[]> {
  const candidates = collectCandidates(input)
  try {
    const rows = await Promise.all(
      candidates.map(async (c) => {
        const [before, after] = await Promise.all([readAmount(input.readBefore, c), readAmount(input.readAfter, c)])
        return before === after ? undefined : toAssetChange(c, before, after, input)
      }),
    )
    return rows.filter((r): r is AssetChange => r !== undefined)
  } catch (e) {
    if (isEngineError(e)) throw e
    // The reader's own message may carry the upstream URL (a secret): say what failed, not how.
    throw new EngineError('STATE_ACCESS_ERROR', 'reading balances for asset changes failed', {
      cause: e instanceof Error ? e.name : typeof e,
    })
  }
}
