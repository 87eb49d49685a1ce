/**
 * Approval changes read from state (docs/decisions/0059-wallet-preview-approval-changes.md): for every candidate the
 * run's calls and events named (runFacts.ts), the permission is read by a static call on the
 * state before and after the simulation — ERC-20 `allowance(owner, spender)`, ERC-721
 * `getApproved(id)` with `ownerOf(id)`, `isApprovedForAll(owner, operator)`, Permit2's
 * `allowance(owner, token, spender)` — with the same reader as the balances of asset changes, so
 * on a cold fork they go out with those reads (and the calls' own reads warmed most slots).
 * A candidate whose read reverts on either side names no permission and is dropped; one that reads
 * the same is unchanged and dropped. A token that approves without an event is caught by its call;
 * a spent allowance shows its real remainder.
 *
 * @example
 * const changes = await computeApprovalChanges({ candidates, readBefore, readAfter, tokens })
 */
import { decodeAbiParameters, encodeFunctionData, formatUnits, parseAbi, size, slice, toHex, type Address, type Hex } from 'viem'
import type { ApprovalChange } from './types.js'
import type { BalanceReader } from '../execution/observers/assetChanges.js'
import type { TokenInfoReader } from '../decoding/tokenInfo.js'
import type { ApprovalCandidate } from './runFacts.js'
import { readableToken } from './readable.js'

const ABI = parseAbi([
  'function allowance(address owner, address spender) view returns (uint256)',
  'function getApproved(uint256 tokenId) view returns (address)',
  'function ownerOf(uint256 tokenId) view returns (address)',
  'function isApprovedForAll(address owner, address operator) view returns (bool)',
  'function allowance(address owner, address token, address spender) view returns (uint160 amount, uint48 expiration, uint48 nonce)',
  'function supportsInterface(bytes4 interfaceId) view returns (bool)',
])
const ERC1155_INTERFACE = '0xd9b67a26'
const MAX_UINT160 = (1n << 160n) - 1n
const UNLIMITED_FROM = 1n << 255n
const ZERO: Address = '0x0000000000000000000000000000000000000000'

/** a candidate seen in call `callIndex` (the last call that named it) */
export type IndexedCandidate = ApprovalCandidate & { callIndex: number }

export interface ApprovalChangesInput {
  candidates: readonly IndexedCandidate[]
  /** the account to report (params.account); absent: every owner */
  account?: Address
  readBefore: BalanceReader
  readAfter: BalanceReader
  tokens: TokenInfoReader
}

/** 2^256−1 and anything ≥ 2^255 for ERC-20; Permit2 amounts are uint160, whose "infinite" is 2^160−1 */
export function isUnlimited(type: ApprovalChange['type'], value: bigint): boolean {
  if (type === 'permit2') return value >= MAX_UINT160
  if (type === 'erc20') return value >= UNLIMITED_FROM
  return type !== 'erc721' && value === 1n
}

const word = (data: Hex | undefined, i = 0): bigint | undefined => (data && size(data) >= 32 * (i + 1) ? BigInt(slice(data, 32 * i, 32 * (i + 1))) : undefined)
const address = (data: Hex | undefined): Address | undefined => {
  if (!data || size(data) < 32) return undefined
  try {
    return (decodeAbiParameters([{ type: 'address' }], slice(data, 0, 32))[0] as string).toLowerCase() as Address
  } catch {
    return undefined
  }
}

const keyOf = (c: ApprovalCandidate) =>
  c.kind === 'erc721'
    ? `721:${c.token}:${c.tokenId}`
    : c.kind === 'permit2'
      ? `p2:${c.permit2}:${c.owner}:${c.token}:${c.spender}`
      : `${c.kind}:${c.token}:${c.owner}:${c.spender}`

/** one candidate per permission, the last call that named it kept */
function unique(candidates: readonly IndexedCandidate[]): IndexedCandidate[] {
  const seen = new Map<string, IndexedCandidate>()
  for (const c of candidates) {
    const key = keyOf(c)
    const first = seen.get(key)
    seen.set(key, first ? { ...first, callIndex: c.callIndex } : c)
  }
  return [...seen.values()]
}

async function readBoth<T>(input: ApprovalChangesInput, read: (r: BalanceReader) => Promise<T>): Promise<[T, T]> {
  return Promise.all([read(input.readBefore), read(input.readAfter)])
}

async function changesOf(c: IndexedCandidate, input: ApprovalChangesInput): Promise<ApprovalChange[]> {
  const call = (r: BalanceReader, to: Address, fn: string, args: unknown[]) =>
    r.call(to, encodeFunctionData({ abi: ABI, functionName: fn as 'allowance', args: args as never }))
  const base = (type: ApprovalChange['type'], owner: Address, spender: Address) => ({ owner, type, token: c.token, spender, callIndex: c.callIndex })
  // callIndex last in the JSON, after the values (withToken re-adds it)
  switch (c.kind) {
    case 'erc20': {
      const [b, a] = (await readBoth(input, (r) => call(r, c.token, 'allowance', [c.owner, c.spender]))).map((d) => word(d))
      if (b === undefined || a === undefined || b === a) return []
      return [await withToken({ ...base('erc20', c.owner, c.spender), before: toHex(b), after: toHex(a), unlimited: isUnlimited('erc20', a) }, input, true)]
    }
    case 'all': {
      const [[b, a], is1155] = await Promise.all([
        readBoth(input, (r) => call(r, c.token, 'isApprovedForAll', [c.owner, c.spender])).then((x) => x.map((d) => word(d))),
        input.readAfter.call(c.token, encodeFunctionData({ abi: ABI, functionName: 'supportsInterface', args: [ERC1155_INTERFACE] })),
      ])
      if (b === undefined || a === undefined || b === a) return []
      const type = word(is1155) === 1n ? 'erc1155-all' : 'erc721-all'
      return [await withToken({ ...base(type, c.owner, c.spender), before: toHex(b), after: toHex(a), unlimited: isUnlimited(type, a) }, input, false)]
    }
    case 'erc721': {
      const id = BigInt(c.tokenId)
      const [[approvedBefore, approvedAfter], [ownerBefore, ownerAfter]] = await Promise.all([
        readBoth(input, (r) => call(r, c.token, 'getApproved', [id])).then((x) => x.map(address)),
        readBoth(input, (r) => call(r, c.token, 'ownerOf', [id])).then((x) => x.map(address)),
      ])
      // a token minted or burned by the run has no approval on the side it does not exist
      const before = approvedBefore ?? (ownerBefore === undefined ? ZERO : undefined)
      const after = approvedAfter ?? (ownerAfter === undefined ? ZERO : undefined)
      if (before === undefined || after === undefined || before === after) return []
      const out: ApprovalChange[] = []
      const entry = (owner: Address | undefined, spender: Address, b: bigint, a: bigint) =>
        withToken({ ...base('erc721', owner ?? ZERO, spender), tokenId: c.tokenId, before: toHex(b), after: toHex(a), unlimited: false }, input, false)
      if (before !== ZERO) out.push(await entry(ownerBefore, before, 1n, 0n))
      if (after !== ZERO) out.push(await entry(ownerAfter, after, 0n, 1n))
      return out
    }
    case 'permit2': {
      const [b, a] = await readBoth(input, (r) => call(r, c.permit2, 'allowance', [c.owner, c.token, c.spender]))
      const [amountBefore, expirationBefore, amountAfter, expirationAfter] = [word(b, 0), word(b, 1), word(a, 0), word(a, 1)]
      if (amountBefore === undefined || amountAfter === undefined || expirationAfter === undefined) return []
      if (amountBefore === amountAfter && expirationBefore === expirationAfter) return []
      const change: ApprovalChange = {
        ...base('permit2', c.owner, c.spender),
        before: toHex(amountBefore),
        after: toHex(amountAfter),
        unlimited: isUnlimited('permit2', amountAfter),
        expiration: toHex(expirationAfter),
        permit2: c.permit2,
      }
      return [await withToken(change, input, true)]
    }
  }
}

/** name, symbol, decimals and the amount after in token units, where the token answers them */
async function withToken(entry: ApprovalChange, input: ApprovalChangesInput, fungible: boolean): Promise<ApprovalChange> {
  const { callIndex, ...rest } = entry
  const change = rest as ApprovalChange
  const info = await readableToken(input.tokens, change.token)
  if (info.name !== undefined) change.name = info.name
  if (info.symbol !== undefined) change.symbol = info.symbol
  if (fungible && info.decimals !== undefined) {
    change.decimals = info.decimals
    change.formatted = formatUnits(BigInt(change.after), info.decimals)
  }
  change.callIndex = callIndex
  return change
}

/** Approval changes, unchanged permissions omitted, in the order the candidates were first seen. */
export async function computeApprovalChanges(input: ApprovalChangesInput): Promise<ApprovalChange[]> {
  const rows = await Promise.all(unique(input.candidates).map((c) => changesOf(c, input)))
  const only = input.account?.toLowerCase()
  return rows.flat().filter((r) => !only || r.owner === only)
}
