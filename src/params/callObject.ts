/**
 * The call object, geth's TransactionArgs, read once for every method that takes one: eth_call
 * and its kin, debug_traceCall(Many), eth_simulateV1 and trace_call(Many), a fork's
 * eth_sendTransaction and the REST API's `calls`. What each method reads of it (`CallRules`)
 * differs, as the methods differ in what they can run: the blob and EIP-7702 fields, whether a
 * chain id is checked or carried, how strict quantities and storage keys are. The fields, their
 * bounds and their order of checks are the same for all.
 *
 * - `from` defaults to the zero address; `to` absent or null is a creation;
 * - `input` and `data` are one field: both given and different is refused (geth's words);
 * - gas and nonce are 64-bit, the fees and value 256-bit;
 * - gasPrice with the EIP-1559 fee fields is refused where the rules say so.
 *
 * @example
 * parseCall(argReader(0, ETH), params[0], '', ETH_CALL, { chainId: 1 })
 */
import type { Address } from 'viem'
import type { Authorization, CallInput } from '../../engine/types.js'
import { absent, at, optional, type QuantityRule, type Reader, UINT64_MAX, type WordForm, ZERO_ADDRESS } from './grammar.js'

/** what a method reads of a call object */
export interface CallRules {
  /** the fields read; any other key is refused (`'any'`: other keys are left unread) */
  fields: readonly string[] | 'any'
  /** fields refused by name with the method's reason (`unlessEmpty`: null or an empty list is accepted as not given) */
  refused?: { fields: readonly string[]; why: string; unlessEmpty?: boolean }
  /** `from` must be given (a sender that signs) rather than default to the zero address */
  fromRequired?: boolean
  /** `to` absent: null (a creation, default) or left out of the call */
  toAbsent?: 'null' | 'omit'
  /** quantities as geth reads them, or with leading zeros (Anvil, the REST API) */
  leadingZeros?: boolean
  /** the 64-bit bound of gas and nonce is not applied (a fork's eth_sendTransaction) */
  noGasBound?: boolean
  /** access-list storage keys and the keys of an access-list entry */
  accessList: { keys: WordForm; strictEntries: boolean }
  /** the fee checks: gasPrice with EIP-1559 fees (`feeMix`), and a tip above the fee cap (`all`) */
  feeChecks: 'none' | 'feeMix' | 'all'
  /** `chainId`: checked against the chain's (`check`), read and carried to the engine (`carry`), read only (`read`), not read */
  chainId?: 'check' | 'carry' | 'read'
  /** `type`: read as a byte (`read`), or checked against the fee fields (`byFees`) */
  type?: 'read' | 'byFees'
  /** the blob fields (blobVersionedHashes, maxFeePerBlobGas) are read */
  blobs?: boolean
  /** authorizationList: read (`read`, `readChecked` also refusing a creation and an empty list), or refused when not empty */
  authorizations?: 'read' | 'readChecked' | { refuseNonEmpty: string }
}

/** what the method knows that the call is checked against */
export interface CallContext {
  /** the chain's id (`chainId: 'check'`) */
  chainId?: number
}

export type ParsedCall = CallInput & { chainId?: bigint }

const COMMON = ['from', 'to', 'gas', 'gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas', 'value', 'nonce', 'data', 'input', 'accessList'] as const
/** TransactionArgs fields of blob transactions */
export const BLOB_FIELDS = ['blobVersionedHashes', 'maxFeePerBlobGas', 'blobs', 'commitments', 'proofs'] as const

/** every field of geth's TransactionArgs but the blob sidecar's */
export const CALL_FIELDS = [...COMMON, 'chainId', 'type'] as const

export function parseCall(r: Reader, v: unknown, path: string, rules: CallRules, ctx: CallContext = {}): ParsedCall {
  const o = r.object(v, path, 'call')
  for (const key of Object.keys(o)) {
    const refused = rules.refused
    if (refused?.fields.includes(key)) {
      const given = o[key]
      if (refused.unlessEmpty && (given === null || (Array.isArray(given) && given.length === 0))) continue
      r.said(at(path, key), refused.why)
    }
    if (rules.fields !== 'any' && !rules.fields.includes(key)) r.fail(path, { kind: 'unknownField', key, accepted: rules.fields })
  }
  if (rules.fromRequired && o.from === undefined) r.said(path, 'from is required')
  const q = (key: string, bound?: bigint): bigint | undefined => {
    const rule: QuantityRule = { leadingZeros: rules.leadingZeros, ...(bound !== undefined && !rules.noGasBound && { max: bound }) }
    return optional(o[key], (x) => r.quantity(x, at(path, key), rule))
  }

  const input = optional(o.input, (x) => r.data(x, at(path, 'input')))
  const data = optional(o.data, (x) => r.data(x, at(path, 'data')))
  if (input !== undefined && data !== undefined && input !== data) r.fail(path, { kind: 'conflict', conflict: 'dataInput' })
  const call: ParsedCall = {
    from: optional(o.from, (x) => r.address(x, at(path, 'from'))) ?? ZERO_ADDRESS,
    data: input ?? data ?? '0x',
  }
  const to = optional(o.to, (x) => r.address(x, at(path, 'to')))
  if (to !== undefined || rules.toAbsent !== 'omit') call.to = to ?? null

  const gas = q('gas', UINT64_MAX)
  if (gas !== undefined) call.gas = gas
  const value = q('value')
  if (value !== undefined) call.value = value
  const gasPrice = q('gasPrice')
  const maxFee = q('maxFeePerGas')
  const maxTip = q('maxPriorityFeePerGas')
  if (rules.feeChecks !== 'none' && gasPrice !== undefined && (maxFee !== undefined || maxTip !== undefined)) {
    r.fail(path, { kind: 'conflict', conflict: 'feeMix' })
  }
  if (rules.feeChecks === 'all' && maxFee !== undefined && maxTip !== undefined && maxTip > maxFee) {
    r.fail(path, { kind: 'conflict', conflict: 'tipAboveCap', have: maxTip, want: maxFee })
  }
  if (gasPrice !== undefined) call.gasPrice = gasPrice
  if (maxFee !== undefined) call.maxFeePerGas = maxFee
  if (maxTip !== undefined) call.maxPriorityFeePerGas = maxTip
  const nonce = q('nonce', UINT64_MAX)
  if (nonce !== undefined) call.nonce = nonce

  if (rules.chainId) {
    const chainId = q('chainId')
    if (rules.chainId === 'check' && chainId !== undefined && chainId !== BigInt(ctx.chainId!)) {
      r.fail(path, { kind: 'conflict', conflict: 'chainId', have: chainId, want: BigInt(ctx.chainId!) })
    }
    if (rules.chainId === 'carry' && chainId !== undefined) call.chainId = chainId
  }
  if (rules.type === 'read') q('type', 0xffn)
  const accessList = optional(o.accessList, (x) => parseAccessList(r, x, at(path, 'accessList'), rules))
  if (accessList !== undefined) call.accessList = accessList
  if (rules.blobs) readBlobFields(r, o, path, call)
  if (rules.authorizations) readAuthorizations(r, o, path, call, rules)
  if (rules.type === 'byFees' && !absent(o.type)) {
    const type = r.quantity(o.type, at(path, 'type'))
    const implied = call.blobVersionedHashes ? [3n] : call.gasPrice !== undefined ? [0n, 1n] : [2n]
    if (!implied.includes(type)) {
      r.said(
        at(path, 'type'),
        `type ${type} is not supported here (the type follows the fee fields: blob hashes → blob, gasPrice → legacy, otherwise EIP-1559)`,
      )
    }
  }
  return call
}

function parseAccessList(r: Reader, v: unknown, path: string, rules: CallRules): NonNullable<CallInput['accessList']> {
  return r.array(v, path).map((e, i) => {
    const p = at(path, i)
    const entry = r.object(e, p, 'accessListEntry')
    if (rules.accessList.strictEntries) r.onlyKeys(entry, ['address', 'storageKeys'], p)
    const keys = absent(entry.storageKeys) ? [] : r.array(entry.storageKeys, at(p, 'storageKeys'))
    return {
      address: r.address(entry.address, at(p, 'address')),
      storageKeys: keys.map((k, j) => r.word(k, at(at(p, 'storageKeys'), j), rules.accessList.keys)),
    }
  })
}

/** eth_simulateV1's blob transaction: its versioned hashes (a fee cap without them means nothing, as in geth) */
function readBlobFields(r: Reader, o: Record<string, unknown>, path: string, call: ParsedCall): void {
  const cap = optional(o.maxFeePerBlobGas, (x) => r.quantity(x, at(path, 'maxFeePerBlobGas')))
  const hashes = optional(o.blobVersionedHashes, (x) =>
    r.array(x, at(path, 'blobVersionedHashes')).map((h, i) => r.hash(h, at(at(path, 'blobVersionedHashes'), i))),
  )
  if (hashes === undefined) return
  if (cap !== undefined) call.maxFeePerBlobGas = cap
  // an empty list is no blob transaction: nothing to simulate differently
  if (hashes.length === 0) return
  if (absent(call.to)) r.said(at(path, 'to'), 'a blob transaction cannot create a contract: `to` is required')
  call.blobVersionedHashes = hashes
}

const AUTHORIZATION_FIELDS = ['chainId', 'address', 'nonce', 'yParity', 'r', 's']

/** geth's SetCodeAuthorization JSON list; the engine checks each as geth's preCheck does */
function readAuthorizations(r: Reader, o: Record<string, unknown>, path: string, call: ParsedCall, rules: CallRules): void {
  const p = at(path, 'authorizationList')
  const rule = rules.authorizations!
  if (absent(o.authorizationList)) return
  const list = r.array(o.authorizationList, p)
  if (typeof rule === 'object') {
    if (list.length > 0) r.said(p, rule.refuseNonEmpty)
    return
  }
  if (rule === 'readChecked') {
    // geth's message checks (ErrSetCodeTxCreate, ErrEmptyAuthList), answered at the field
    if (absent(call.to)) r.said(p, 'an EIP-7702 transaction cannot create a contract: `to` is required')
    if (list.length === 0)
      r.said(p, 'an EIP-7702 authorization list must hold at least one authorization', 'leave authorizationList out for a call without delegations')
  }
  const lenient = { leadingZeros: rules.leadingZeros }
  call.authorizationList = list.map((e, i): Authorization => {
    const ep = at(p, i)
    const a = r.object(e, ep)
    r.onlyKeys(a, AUTHORIZATION_FIELDS, ep)
    const yParity = r.quantity(a.yParity, at(ep, 'yParity'), { ...lenient, max: 0xffn })
    return {
      chainId: r.quantity(a.chainId, at(ep, 'chainId'), lenient),
      address: r.address(a.address, at(ep, 'address')) as Address,
      nonce: r.quantity(a.nonce, at(ep, 'nonce'), { ...lenient, max: UINT64_MAX }),
      yParity: Number(yParity),
      r: r.quantity(a.r, at(ep, 'r'), lenient),
      s: r.quantity(a.s, at(ep, 's'), lenient),
    }
  })
}
