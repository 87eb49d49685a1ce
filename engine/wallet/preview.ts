/**
 * The wallet preview of a simulation (docs/wallet-preview.md): approval changes, readable values
 * and warnings, as a thin layer over what the run observed and the state before and after it.
 * Every read goes through the simulation's own readers, side by side with the balances of its
 * asset changes, so a cold fork sends them in the same upstream batches.
 *
 * @example
 * const facts = createRunFactsTracer()        // one per call, beside the transfers tracer
 * ...run the calls...
 * const preview = await previewRun({ facts, statuses, transfers, assetChanges, ... })
 */
import { bytesToHex, createAddressFromString } from '@ethereumjs/util'
import type { Address, Hex } from 'viem'
import type { OverlayStateManager } from '../state/index.js'
import { slotKeyFromHex } from '../state/index.js'
import type { ExecutionStatus } from '../execution/types.js'
import type { BalanceReader } from '../execution/observers/assetChanges.js'
import type { TokenInfoReader } from '../decoding/tokenInfo.js'
import type { AssetChange, Transfer } from '../vocabulary.js'
import type { ApprovalChange, PreviewWarning } from './types.js'
import { candidatesOfCall, type RunFacts } from './runFacts.js'
import { computeApprovalChanges, type IndexedCandidate } from './approvalChanges.js'
import { decideWarnings, WATCHED_SLOTS, type WatchedSlot } from './warnings.js'

export interface PreviewInput {
  /** each call's facts (undefined for a call that did not succeed) */
  facts: readonly (RunFacts | undefined)[]
  statuses: readonly ExecutionStatus[]
  /** each call's EIP-7702 authorities, by call index */
  authorities?: readonly (readonly Address[])[]
  transfers: readonly (Transfer & { callIndex: number })[]
  assetChanges: readonly AssetChange[]
  account?: Address
  senders: readonly Address[]
  before: OverlayStateManager
  after: OverlayStateManager
  readBefore: BalanceReader
  readAfter: BalanceReader
  tokens: TokenInfoReader
}

const DELEGATION_PREFIX = '0xef0100'

/** the approval changes of the run (read before the warnings, which decide on them) */
export function approvalsOf(input: Pick<PreviewInput, 'facts' | 'account' | 'readBefore' | 'readAfter' | 'tokens'>): Promise<ApprovalChange[]> {
  const candidates: IndexedCandidate[] = input.facts.flatMap((f, callIndex) => (f?.candidates ?? []).map((c) => ({ ...c, callIndex })))
  return computeApprovalChanges({ candidates, account: input.account, readBefore: input.readBefore, readAfter: input.readAfter, tokens: input.tokens })
}

export async function warningsOf(input: PreviewInput, approvals: ApprovalChange[]): Promise<PreviewWarning[]> {
  const codeAt = async (state: OverlayStateManager, address: Address) => bytesToHex(await state.getCode(createAddressFromString(address))) as Hex
  return decideWarnings({
    statuses: input.statuses,
    facts: input.facts,
    approvals,
    assetChanges: input.assetChanges,
    transfers: input.transfers,
    accounts: input.account ? [input.account.toLowerCase() as Address] : [...new Set(input.senders.map((s) => s.toLowerCase() as Address))],
    slotChanges: await watchedSlotChanges(input.before, input.after),
    delegations: await delegations(input.before, input.after, codeAt),
    ...(input.authorities && { authorities: input.authorities }),
    codeAt: (address) => codeAt(input.after, address),
  })
}

/** watched slots the run wrote to another value (only written slots are read: no cold reads) */
async function watchedSlotChanges(before: OverlayStateManager, after: OverlayStateManager) {
  const written = after.flatten().storage
  const keys = Object.entries(WATCHED_SLOTS).map(([name, slot]) => [name as WatchedSlot, slotKeyFromHex(slot)] as const)
  const found: { contract: Address; slot: WatchedSlot }[] = []
  for (const [contract, writes] of written) {
    for (const [name, key] of keys) {
      if (!writes.slots.has(key)) continue
      const [b, a] = await Promise.all([before.storageAt(contract, key), after.storageAt(contract, key)])
      if (bytesToHex(b) !== bytesToHex(a)) found.push({ contract: contract.toLowerCase() as Address, slot: name })
    }
  }
  return found
}

/** accounts whose code the run set to an EIP-7702 delegation designator */
async function delegations(before: OverlayStateManager, after: OverlayStateManager, codeAt: (s: OverlayStateManager, a: Address) => Promise<Hex>) {
  const out: { account: Address; delegate: Address }[] = []
  for (const account of after.codeWritten() as Address[]) {
    const [b, a] = await Promise.all([codeAt(before, account), codeAt(after, account)])
    if (a !== b && a.startsWith(DELEGATION_PREFIX) && a.length === 2 + 46)
      out.push({ account: account.toLowerCase() as Address, delegate: `0x${a.slice(8)}` as Address })
  }
  return out
}

/**
 * Spenders and operators the calls approve at their top level: their code (an account without
 * code raises APPROVAL_TO_EOA) is read with a cold fork's state, not in a round trip after it.
 */
export function approvedAccountsOf(calls: readonly { from: Address; to?: Address | null; data: Hex }[]): Address[] {
  const out = new Set<Address>()
  for (const c of calls) {
    if (!c.to) continue
    for (const k of candidatesOfCall(c.from, c.to, c.data)) if (k.kind !== 'erc721') out.add(k.spender)
  }
  return [...out]
}
