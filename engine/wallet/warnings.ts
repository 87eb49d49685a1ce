/**
 * Warnings of a wallet preview (docs/wallet-preview.md holds the one table of codes, severities
 * and rules): each decided from what the run did — the approval changes read from state, the
 * asset changes, the contracts the calls created or destroyed, the events they emitted, the
 * ERC-1967 and ERC-7201 slots and the code they wrote — never from lists of names.
 *
 * @example
 * const warnings = await decideWarnings({ calls, approvals, assetChanges, facts, writes, codeAt, accounts })
 */
import type { Address, Hex } from 'viem'
import type { ExecutionStatus } from '../execution/types.js'
import type { AssetChange, Transfer } from '../vocabulary.js'
import type { ApprovalChange, PreviewWarning, WarningSeverity } from './types.js'
import type { RunFacts } from './runFacts.js'
import { isUnlimited } from './approvalChanges.js'

/** ERC-1967 slots (keccak256('eip1967.proxy.*') − 1) and OpenZeppelin's ERC-7201 Ownable slot */
export const WATCHED_SLOTS = {
  implementation: '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc',
  admin: '0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103',
  beacon: '0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50',
  ownable: '0x9016d09d72d40fdae2fd8ceac6b6234c7706214fd39c1cd1e609a0528c199300',
} as const satisfies Record<string, Hex>
export type WatchedSlot = keyof typeof WATCHED_SLOTS

/** the severity of each code: the table of docs/wallet-preview.md */
export const WARNING_SEVERITY = {
  UNLIMITED_APPROVAL: 'warning',
  APPROVAL_TO_EOA: 'danger',
  APPROVAL_FOR_ALL: 'warning',
  PERMIT2_APPROVAL: 'warning',
  OWNERSHIP_TRANSFERRED: 'warning',
  PROXY_UPGRADED: 'danger',
  ADMIN_CHANGED: 'danger',
  EIP7702_DELEGATION: 'danger',
  ASSETS_OUT_NOTHING_IN: 'warning',
  CONTRACT_CREATED: 'info',
  SELFDESTRUCT: 'warning',
  REVERTED: 'warning',
  SIGNATURE_EXPIRED: 'info',
  WRONG_CHAIN: 'danger',
  NONCE_USED: 'info',
  SIGNER_MISMATCH: 'danger',
} as const satisfies Record<string, WarningSeverity>
export type WarningCode = keyof typeof WARNING_SEVERITY

export function warning(
  code: WarningCode,
  message: string,
  callIndex: number,
  about: Pick<PreviewWarning, 'account' | 'token' | 'spender'> = {},
): PreviewWarning {
  return { code, severity: WARNING_SEVERITY[code], message, callIndex, ...about }
}

export interface WarningsInput {
  /** each call's status, in order */
  statuses: readonly ExecutionStatus[]
  /** each successful call's facts (runFacts.ts), by call index */
  facts: readonly (RunFacts | undefined)[]
  approvals: readonly ApprovalChange[]
  assetChanges: readonly AssetChange[]
  /** the simulation's surviving transfers, with the call each came from */
  transfers: readonly (Transfer & { callIndex: number })[]
  /** the accounts a preview is for: params.account, else the calls' senders */
  accounts: readonly Address[]
  /** watched slots the run changed (value before ≠ after) */
  slotChanges: readonly { contract: Address; slot: WatchedSlot }[]
  /** accounts whose code the run set to an EIP-7702 delegation (0xef0100 ‖ address) */
  delegations: readonly { account: Address; delegate: Address }[]
  /** each call's EIP-7702 authorities (whatever its status), by call index */
  authorities?: readonly (readonly Address[])[]
  /** code at an address after the run ('0x': none) */
  codeAt(address: Address): Promise<Hex>
}

const granted = (c: ApprovalChange) => BigInt(c.after) > BigInt(c.before) || (c.type === 'permit2' && BigInt(c.after) > 0n)
/** Permit2's expiration 0 means the block the allowance is set in (Allowance.sol) */
const until = (expiration: Hex | undefined) =>
  !expiration || BigInt(expiration) === 0n ? 'within this block' : `until ${new Date(Number(BigInt(expiration)) * 1000).toISOString()}`
const short = (a: string) => `${a.slice(0, 6)}…${a.slice(-4)}`
const what = (c: ApprovalChange) => c.symbol ?? short(c.token)

/** the last call whose frames could write the contract's storage (the last call otherwise) */
function callTouching(input: WarningsInput, contract: Address): number {
  for (let i = input.facts.length - 1; i >= 0; i--) if (input.facts[i]?.storageContexts.includes(contract)) return i
  return Math.max(0, input.statuses.length - 1)
}

/**
 * The warnings of a run, each said once (by its code and what it is about), in this order: calls
 * that fail, approvals granted, what the calls did (contracts made or destroyed, owners, admins,
 * code), watched slots written, EIP-7702 delegations, and accounts that lose assets for nothing.
 */
export async function decideWarnings(input: WarningsInput): Promise<PreviewWarning[]> {
  const list = new WarningList()
  failedCalls(input, list)
  await grantedApprovals(input, list)
  runFacts(input, list)
  writtenSlots(input, list)
  delegations(input, list)
  assetsForNothing(input, list)
  return list.out
}

/** warnings each said once: a second one with the same code about the same thing is dropped */
class WarningList {
  readonly out: PreviewWarning[] = []
  private readonly seen = new Set<string>()
  add(w: PreviewWarning, key: string): void {
    if (this.seen.has(`${w.code}:${key}`)) return
    this.seen.add(`${w.code}:${key}`)
    this.out.push(w)
  }
}

function failedCalls(input: WarningsInput, list: WarningList): void {
  input.statuses.forEach((status, i) => {
    if (status !== 'success')
      list.add(warning('REVERTED', `call ${i} ${status === 'reverted' ? 'reverts' : 'fails'}: its effects are not applied and its gas is spent`, i), `${i}`)
  })
}

/** approvals the run grants: unlimited, to an account without code, for all tokens, through Permit2 */
async function grantedApprovals(input: WarningsInput, list: WarningList): Promise<void> {
  const codes = await Promise.all(input.approvals.map((c) => (granted(c) ? input.codeAt(c.spender) : Promise.resolve('0x1' as Hex))))
  input.approvals.forEach((c, i) => {
    if (!granted(c)) return
    const about = { account: c.owner, token: c.token, spender: c.spender }
    const key = `${c.owner}:${c.token}:${c.spender}:${c.tokenId ?? ''}`
    if (c.unlimited && !isUnlimited(c.type, BigInt(c.before)) && (c.type === 'erc20' || c.type === 'permit2'))
      list.add(warning('UNLIMITED_APPROVAL', `${short(c.spender)} may spend all of ${short(c.owner)}'s ${what(c)}, now and in future`, c.callIndex, about), key)
    if (codes[i] === '0x')
      list.add(
        warning(
          'APPROVAL_TO_EOA',
          `${what(c)} approved to ${short(c.spender)}, an account without code: no contract, a person holds this permission`,
          c.callIndex,
          about,
        ),
        key,
      )
    if (c.type === 'erc721-all' || c.type === 'erc1155-all')
      list.add(warning('APPROVAL_FOR_ALL', `${short(c.spender)} may move every token of ${what(c)} that ${short(c.owner)} holds`, c.callIndex, about), key)
    if (c.type === 'permit2')
      list.add(
        warning(
          'PERMIT2_APPROVAL',
          `${short(c.spender)} may move ${c.unlimited ? 'all' : (c.formatted ?? BigInt(c.after).toString())} ${what(c)} of ${short(c.owner)} through Permit2 ${until(c.expiration)}`,
          c.callIndex,
          about,
        ),
        key,
      )
  })
}

/** what the calls did: contracts created or destroyed, ownership, proxy admins and upgrades */
function runFacts(input: WarningsInput, list: WarningList): void {
  for (const [i, facts] of input.facts.entries()) {
    if (!facts) continue
    for (const created of facts.created) list.add(warning('CONTRACT_CREATED', `call ${i} deploys a contract at ${created}`, i, { account: created }), created)
    for (const gone of facts.destructed) list.add(warning('SELFDESTRUCT', `${gone} runs SELFDESTRUCT: its balance leaves it`, i, { account: gone }), gone)
    for (const e of facts.events) {
      if (e.kind === 'ownership')
        list.add(warning('OWNERSHIP_TRANSFERRED', `ownership of ${e.contract} passes from ${e.previous} to ${e.next}`, i, { account: e.contract }), e.contract)
      else if (e.kind === 'adminChanged')
        list.add(warning('ADMIN_CHANGED', `the proxy admin of ${e.contract} becomes ${e.next}`, i, { account: e.contract }), e.contract)
      else
        list.add(
          warning('PROXY_UPGRADED', `${e.contract} now runs the code of ${e.target}${e.kind === 'beaconUpgraded' ? "'s implementation (beacon)" : ''}`, i, {
            account: e.contract,
          }),
          e.contract,
        )
    }
  }
}

/** watched slots the run wrote: an Ownable owner, a proxy's admin, implementation or beacon */
function writtenSlots(input: WarningsInput, list: WarningList): void {
  for (const { contract, slot } of input.slotChanges) {
    const i = callTouching(input, contract)
    if (slot === 'ownable')
      list.add(warning('OWNERSHIP_TRANSFERRED', `the owner of ${contract} changes (its ERC-7201 Ownable slot is written)`, i, { account: contract }), contract)
    else if (slot === 'admin')
      list.add(warning('ADMIN_CHANGED', `the proxy admin of ${contract} changes (its ERC-1967 admin slot is written)`, i, { account: contract }), contract)
    else list.add(warning('PROXY_UPGRADED', `${contract} now runs other code (its ERC-1967 ${slot} slot is written)`, i, { account: contract }), contract)
  }
}

/** accounts whose code becomes an EIP-7702 delegation, at the call that authorized it */
function delegations(input: WarningsInput, list: WarningList): void {
  for (const { account, delegate } of input.delegations) {
    const authorizing = (input.authorities ?? []).findLastIndex((list) => list.includes(account))
    const i = authorizing >= 0 ? authorizing : callTouching(input, account)
    list.add(warning('EIP7702_DELEGATION', `${account} delegates its code to ${delegate}: that contract may act as the account`, i, { account }), account)
  }
}

/** an account the preview is for that loses assets and receives none in return */
function assetsForNothing(input: WarningsInput, list: WarningList): void {
  for (const account of input.accounts) {
    const mine = input.assetChanges.filter((c) => c.account === account)
    const moved = input.transfers.filter((t) => t.type === 'native' && (t.from === account || t.to === account))
    // native: value sent and received (gas fees are no asset leaving to someone)
    const nativeNet = moved.reduce((n, t) => n + (t.to === account ? BigInt(t.amount) : 0n) - (t.from === account ? BigInt(t.amount) : 0n), 0n)
    const tokenOut = mine.some((c) => c.type !== 'native' && BigInt(c.delta) < 0n)
    const tokenIn = mine.some((c) => c.type !== 'native' && BigInt(c.delta) > 0n)
    if ((tokenOut || nativeNet < 0n) && !tokenIn && nativeNet <= 0n) {
      const last = [...input.transfers].reverse().find((t) => t.from === account)
      list.add(
        warning(
          'ASSETS_OUT_NOTHING_IN',
          `${short(account)} loses assets and receives none in return`,
          last?.callIndex ?? Math.max(0, input.statuses.length - 1),
          { account },
        ),
        account,
      )
    }
  }
}
