/**
 * What one call of a simulation did that a wallet preview decides on, observed through the
 * tracing adapter's hooks: the approval candidates (which allowances, approvals and operators
 * are worth reading before and after), the contracts it created, the SELFDESTRUCTs it ran, the
 * contracts whose storage it could have written (a CALL's callee, a DELEGATECALL's caller), and
 * the ownership and proxy events it emitted.
 *
 * Candidates only choose what to read: the truth is read from state (approvalChanges.ts), so a
 * candidate that names no real permission (an ERC-721 seen through the ERC-20 `approve` selector,
 * a `transferFrom` on a token without allowances) reads the same before and after, or reverts, and
 * is dropped. As in the transfers tracer, what a reverted frame recorded is dropped with it.
 *
 * @example
 * const facts = createRunFactsTracer()
 * await executeTransaction(ctx, call, { tracers: [facts] })
 * facts.result().candidates // [{ kind: 'erc20', token, owner, spender }, …]
 */
import { decodeFunctionData, hexToBigInt, parseAbi, toEventSelector, toHex, type Address, type Hex } from 'viem'
import type { CallType, EnterEvent, ExitEvent, LogEvent, Tracer, TxContext } from '../../tracers/types.js'

/** a permission worth reading: `all` is an operator over every token (ERC-721 or ERC-1155 decided by reading) */
export type ApprovalCandidate =
  | { kind: 'erc20'; token: Address; owner: Address; spender: Address }
  | { kind: 'erc721'; token: Address; tokenId: Hex }
  | { kind: 'all'; token: Address; owner: Address; spender: Address }
  | { kind: 'permit2'; permit2: Address; token: Address; owner: Address; spender: Address }

export type RunEvent =
  | { kind: 'ownership'; contract: Address; previous: Address; next: Address }
  | { kind: 'upgraded' | 'beaconUpgraded'; contract: Address; target: Address }
  | { kind: 'adminChanged'; contract: Address; previous: Address; next: Address }

export interface RunFacts {
  candidates: ApprovalCandidate[]
  created: Address[]
  destructed: Address[]
  /** contracts whose storage the call may have written */
  storageContexts: Address[]
  events: RunEvent[]
}

const CALLS = parseAbi([
  'function approve(address spender, uint256 amount)',
  'function increaseAllowance(address spender, uint256 addedValue)',
  'function decreaseAllowance(address spender, uint256 subtractedValue)',
  'function transferFrom(address from, address to, uint256 amountOrId)',
  'function safeTransferFrom(address from, address to, uint256 tokenId)',
  'function safeTransferFrom(address from, address to, uint256 tokenId, bytes data)',
  'function setApprovalForAll(address operator, bool approved)',
  'function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)',
  'function permit(address holder, address spender, uint256 nonce, uint256 expiry, bool allowed, uint8 v, bytes32 r, bytes32 s)',
  // Permit2 (AllowanceTransfer)
  'function approve(address token, address spender, uint160 amount, uint48 expiration)',
  'function permit(address owner, ((address token, uint160 amount, uint48 expiration, uint48 nonce) details, address spender, uint256 sigDeadline) permitSingle, bytes signature)',
  'function permit(address owner, ((address token, uint160 amount, uint48 expiration, uint48 nonce)[] details, address spender, uint256 sigDeadline) permitBatch, bytes signature)',
  'function transferFrom(address from, address to, uint160 amount, address token)',
  'function transferFrom((address from, address to, uint160 amount, address token)[] transferDetails)',
  'function lockdown((address token, address spender)[] approvals)',
])

const topic = (signature: string) => toEventSelector(signature)
const T = {
  approval: topic('Approval(address,address,uint256)'),
  approvalForAll: topic('ApprovalForAll(address,address,bool)'),
  permit2Approval: topic('Approval(address,address,address,uint160,uint48)'),
  permit2Permit: topic('Permit(address,address,address,uint160,uint48,uint48)'),
  permit2Lockdown: topic('Lockdown(address,address,address)'),
  ownership: topic('OwnershipTransferred(address,address)'),
  upgraded: topic('Upgraded(address)'),
  beaconUpgraded: topic('BeaconUpgraded(address)'),
  adminChanged: topic('AdminChanged(address,address)'),
}

const lower = (a: string) => a.toLowerCase() as Address
/** an indexed address topic or an ABI word holding an address; undefined when it is not one */
function wordAddress(word: Hex | undefined): Address | undefined {
  if (!word || !/^0x0{24}[0-9a-fA-F]{40}$/.test(word)) return undefined
  return lower(`0x${word.slice(26)}`)
}
const dataWord = (data: Hex, i: number) => `0x${data.slice(2 + i * 64, 2 + (i + 1) * 64)}` as Hex

/** what a call's input asks for, as candidates: the caller is the owner of what it approves */
export function candidatesOfCall(from: Address, to: Address, input: Hex): ApprovalCandidate[] {
  if (input.length < 10) return []
  let decoded: { functionName: string; args: readonly unknown[] }
  try {
    decoded = decodeFunctionData({ abi: CALLS, data: input }) as typeof decoded
  } catch {
    return []
  }
  const token = lower(to)
  const owner = lower(from)
  const a = decoded.args as readonly never[]
  const asAddress = (v: unknown) => lower(v as string)
  switch (decoded.functionName) {
    case 'approve':
      if (a.length === 4) return [{ kind: 'permit2', permit2: token, token: asAddress(a[0]), owner, spender: asAddress(a[1]) }]
      // one selector for ERC-20 approve(spender, amount) and ERC-721 approve(to, tokenId): read both
      return [
        { kind: 'erc20', token, owner, spender: asAddress(a[0]) },
        { kind: 'erc721', token, tokenId: toHex(a[1] as bigint) },
      ]
    case 'increaseAllowance':
    case 'decreaseAllowance':
      return [{ kind: 'erc20', token, owner, spender: asAddress(a[0]) }]
    case 'transferFrom':
      if (a.length === 1) {
        const details = a[0] as readonly { from: string; token: string }[]
        return details.map((d) => ({ kind: 'permit2' as const, permit2: token, token: asAddress(d.token), owner: asAddress(d.from), spender: owner }))
      }
      if (decoded.args.length === 4 && typeof a[3] === 'string') {
        return [{ kind: 'permit2', permit2: token, token: asAddress(a[3]), owner: asAddress(a[0]), spender: owner }]
      }
      // ERC-20 spends the caller's allowance; ERC-721 clears the token's approval
      return [
        { kind: 'erc20', token, owner: asAddress(a[0]), spender: owner },
        { kind: 'erc721', token, tokenId: toHex(a[2] as bigint) },
      ]
    case 'safeTransferFrom':
      return [{ kind: 'erc721', token, tokenId: toHex(a[2] as bigint) }]
    case 'setApprovalForAll':
      return [{ kind: 'all', token, owner, spender: asAddress(a[0]) }]
    case 'permit': {
      if (typeof a[1] === 'object') {
        const p = a[1] as { details: { token: string } | readonly { token: string }[]; spender: string }
        const details = Array.isArray(p.details) ? p.details : [p.details as { token: string }]
        return details.map((d) => ({
          kind: 'permit2' as const,
          permit2: token,
          token: asAddress(d.token),
          owner: asAddress(a[0]),
          spender: asAddress(p.spender),
        }))
      }
      return [{ kind: 'erc20', token, owner: asAddress(a[0]), spender: asAddress(a[1]) }]
    }
    case 'lockdown':
      return (a[0] as readonly { token: string; spender: string }[]).map((d) => ({
        kind: 'permit2' as const,
        permit2: token,
        token: asAddress(d.token),
        owner,
        spender: asAddress(d.spender),
      }))
  }
  return []
}

/** what a log names: approval candidates and ownership/proxy events */
export function factsOfLog(log: { address: Address; topics: readonly Hex[]; data: Hex }): { candidates: ApprovalCandidate[]; events: RunEvent[] } {
  const [t0, t1, t2, t3] = log.topics.map((t) => t.toLowerCase() as Hex)
  const contract = lower(log.address)
  const none = { candidates: [], events: [] }
  const a1 = wordAddress(t1)
  const a2 = wordAddress(t2)
  switch (t0) {
    case T.approval:
      if (log.topics.length === 3 && a1 && a2) return { candidates: [{ kind: 'erc20', token: contract, owner: a1, spender: a2 }], events: [] }
      if (log.topics.length === 4 && t3) return { candidates: [{ kind: 'erc721', token: contract, tokenId: toHex(hexToBigInt(t3)) }], events: [] }
      return none
    case T.approvalForAll:
      return log.topics.length === 3 && a1 && a2 ? { candidates: [{ kind: 'all', token: contract, owner: a1, spender: a2 }], events: [] } : none
    case T.permit2Approval:
    case T.permit2Permit: {
      const a3 = wordAddress(t3)
      return log.topics.length === 4 && a1 && a2 && a3
        ? { candidates: [{ kind: 'permit2', permit2: contract, owner: a1, token: a2, spender: a3 }], events: [] }
        : none
    }
    case T.permit2Lockdown: {
      const token = wordAddress(dataWord(log.data, 0))
      const spender = wordAddress(dataWord(log.data, 1))
      return log.topics.length === 2 && a1 && token && spender
        ? { candidates: [{ kind: 'permit2', permit2: contract, owner: a1, token, spender }], events: [] }
        : none
    }
    case T.ownership:
      return log.topics.length === 3 && a1 && a2 ? { candidates: [], events: [{ kind: 'ownership', contract, previous: a1, next: a2 }] } : none
    case T.upgraded:
    case T.beaconUpgraded:
      return log.topics.length === 2 && a1
        ? { candidates: [], events: [{ kind: t0 === T.upgraded ? 'upgraded' : 'beaconUpgraded', contract, target: a1 }] }
        : none
    case T.adminChanged: {
      const previous = wordAddress(dataWord(log.data, 0))
      const next = wordAddress(dataWord(log.data, 1))
      return previous && next ? { candidates: [], events: [{ kind: 'adminChanged', contract, previous, next }] } : none
    }
  }
  return none
}

const CREATIONS: ReadonlySet<CallType> = new Set(['CREATE', 'CREATE2'])

interface Frame extends RunFacts {
  type: CallType
  to: Address
}

const emptyFacts = (): RunFacts => ({ candidates: [], created: [], destructed: [], storageContexts: [], events: [] })

export function createRunFactsTracer(): Tracer<RunFacts> & {
  onEnter(e: EnterEvent): void
  onExit(e: ExitEvent): void
  onLog(l: LogEvent): void
  /** the EIP-7702 authorities the call's authorization list names (kept when the call fails: delegations apply before it runs) */
  authorities(): Address[]
} {
  const frames: Frame[] = []
  let authorities: Address[] = []
  const done = emptyFacts()
  const merge = (into: RunFacts, from: RunFacts) => {
    into.candidates.push(...from.candidates)
    into.created.push(...from.created)
    into.destructed.push(...from.destructed)
    into.storageContexts.push(...from.storageContexts)
    into.events.push(...from.events)
  }
  return {
    onTxStart(ctx: TxContext) {
      authorities = ctx.authorities.map(lower)
    },
    onEnter(e) {
      const frame: Frame = { ...emptyFacts(), type: e.type, to: lower(e.to) }
      if (e.type === 'SELFDESTRUCT') frame.destructed.push(lower(e.from))
      else if (e.type === 'CALL' || CREATIONS.has(e.type)) frame.storageContexts.push(lower(e.to))
      else if (e.type === 'DELEGATECALL' || e.type === 'CALLCODE') frame.storageContexts.push(lower(e.from))
      // a call through a proxy is seen at the proxy (CALL), not at its implementation (DELEGATECALL)
      if (e.type === 'CALL') frame.candidates.push(...candidatesOfCall(e.from, e.to, e.input))
      frames.push(frame)
    },
    onExit(e) {
      const frame = frames.pop()
      if (!frame || e.reverted) return
      if (CREATIONS.has(frame.type)) frame.created.unshift(frame.to)
      merge(frames.at(-1) ?? done, frame)
    },
    onLog(log) {
      const facts = factsOfLog(log)
      const frame = frames.at(-1) ?? done
      frame.candidates.push(...facts.candidates)
      frame.events.push(...facts.events)
    },
    result: () => done,
    authorities: () => authorities,
  }
}
