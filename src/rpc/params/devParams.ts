/**
 * The params of a writable fork's development methods (src/rpc/methods/dev.ts) → the engine's
 * typed `ForkDevRequest`, checked before the fork is touched, in one phrase per kind (TERSE:
 * `invalid argument N: hex string of 20 bytes expected`). Quantities are read as Anvil reads them:
 * leading zeros accepted, and for times and counts a JSON number or a decimal string as well
 * (Hardhat and Anvil take both).
 *
 * @example
 * setBalanceParams(['0xf39f…', '0x1']) // { method: 'setBalance', address: '0xf39f…', balance: 1n }
 */
import { gunzipSync } from 'node:zlib'
import type { Address, Hex } from 'viem'
import type { ForkDevRequest, SendCall, StateOverrides } from '../../../engine/types.js'
import { type CallRules, parseCall } from '../../params/callObject.js'
import { absent, dataOf, isObject, optional, type QuantityRule, quantityOf, wordFromQuantity } from '../../params/grammar.js'
import { invalidArgument } from '../rpcError.js'
import { type ArgReader, argReader, required, TERSE } from './argReader.js'

/** a request of one variant */
type Request<M extends ForkDevRequest['method']> = Extract<ForkDevRequest, { method: M }>

/** Anvil's U256: hex, leading zeros and all */
const HEX: QuantityRule = { leadingZeros: true }
/** a time or a count: hex, a JSON integer or decimal digits */
const TIME: QuantityRule = { leadingZeros: true, numbers: true, signed: true, decimals: true }

const arg = (index: number): ArgReader => argReader(index, TERSE)
const address = (params: unknown[], index: number): Address => arg(index).address(params[index], '')
const hex = (params: unknown[], index: number): bigint => arg(index).quantity(required(params, index), '', HEX)
const time = (params: unknown[], index: number): bigint => arg(index).quantity(required(params, index), '', TIME)
const optTime = (v: unknown, index: number): bigint | undefined => optional(v, (x) => arg(index).quantity(x, '', TIME))
const bool = (params: unknown[], index: number): boolean => arg(index).bool(params[index], '')

/** eth_sendTransaction's call object: `from` required, every other field filled by the fork when absent */
export const SEND_CALL: CallRules = {
  fields: 'any',
  fromRequired: true,
  leadingZeros: true,
  noGasBound: true,
  accessList: { keys: 'padded', strictEntries: false },
  feeChecks: 'none',
}

/** a variant without params */
export const none =
  <M extends 'getAutomine' | 'snapshot' | 'dumpState'>(method: M) =>
  (): Request<M> =>
    ({ method }) as Request<M>

export function sendRawTransactionParams(params: unknown[]): Request<'sendRawTransaction'> {
  const r = arg(0)
  const raw = r.data(required(params, 0), '')
  if (raw === '0x') r.fail('', { kind: 'scalar', scalar: 'data', fault: 'empty', value: raw })
  return { method: 'sendRawTransaction', raw }
}

export function sendTransactionParams(params: unknown[]): Request<'sendTransaction'> {
  const { chainId: _c, ...call } = parseCall(arg(0), required(params, 0), '', SEND_CALL)
  return { method: 'sendTransaction', call: call as SendCall }
}

/** eth_getTransactionCount at `pending`: the pool's view of the sender */
export function pendingNonceParams(params: unknown[]): Request<'pendingNonce'> {
  return { method: 'pendingNonce', address: address(params, 0) }
}

/** evm_mine: `[timestamp?]` or `[{ timestamp? }]`, one block */
export function evmMineParams(params: unknown[]): Request<'mine'> {
  const first = params[0]
  const timestamp = optTime(typeof first === 'object' && first !== null ? (first as { timestamp?: unknown }).timestamp : first, 0)
  return { method: 'mine', blocks: 1n, ...(timestamp !== undefined && { timestamp }) }
}

/** anvil_mine / hardhat_mine: `[blocks?, interval?]` */
export function mineParams(params: unknown[]): Request<'mine'> {
  const blocks = optTime(params[0], 0) ?? 1n
  const interval = optTime(params[1], 1)
  if (blocks < 1n) throw invalidArgument(0, 'the number of blocks must be at least 1')
  return { method: 'mine', blocks, ...(interval !== undefined && { interval }) }
}

export const automineParams = (params: unknown[]): Request<'setAutomine'> => ({ method: 'setAutomine', enabled: bool(params, 0) })
export const revertParams = (params: unknown[]): Request<'revert'> => ({ method: 'revert', id: hex(params, 0) })
export const increaseTimeParams = (params: unknown[]): Request<'increaseTime'> => ({ method: 'increaseTime', seconds: time(params, 0) })
export const nextTimestampParams = (params: unknown[]): Request<'setNextBlockTimestamp'> => ({
  method: 'setNextBlockTimestamp',
  timestamp: time(params, 0),
})
export const baseFeeParams = (params: unknown[]): Request<'setNextBlockBaseFee'> => ({ method: 'setNextBlockBaseFee', baseFee: hex(params, 0) })

export const setBalanceParams = (params: unknown[]): Request<'setBalance'> => ({ method: 'setBalance', address: address(params, 0), balance: hex(params, 1) })
export const setNonceParams = (params: unknown[]): Request<'setNonce'> => ({ method: 'setNonce', address: address(params, 0), nonce: hex(params, 1) })
export function setCodeParams(params: unknown[]): Request<'setCode'> {
  const at = address(params, 0)
  return { method: 'setCode', address: at, code: arg(1).data(required(params, 1), '') }
}
export function setStorageAtParams(params: unknown[]): Request<'setStorageAt'> {
  const at = address(params, 0)
  const slot = arg(1).word(required(params, 1), '', 'padded')
  return { method: 'setStorageAt', address: at, slot, value: arg(2).word(required(params, 2), '', 'padded') }
}

export const impersonateParams = (params: unknown[]): Request<'impersonate'> => ({ method: 'impersonate', address: address(params, 0) })
export const stopImpersonatingParams = (params: unknown[]): Request<'stopImpersonating'> => ({ method: 'stopImpersonating', address: address(params, 0) })
export const autoImpersonateParams = (params: unknown[]): Request<'autoImpersonate'> => ({ method: 'autoImpersonate', enabled: bool(params, 0) })

/** anvil_reset / hardhat_reset: `[{ forking: { jsonRpcUrl?, blockNumber? } }?]`; a fork resets onto its own upstream only */
export function resetParams(params: unknown[]): Request<'reset'> {
  const v = params[0]
  if (absent(v)) return { method: 'reset' }
  if (!isObject(v)) throw invalidArgument(0, 'reset options object expected')
  const forking = v.forking as { jsonRpcUrl?: unknown; blockNumber?: unknown } | undefined
  if (!forking) return { method: 'reset' }
  if (!absent(forking.jsonRpcUrl)) throw invalidArgument(0, 'a fork resets onto its own upstream only: jsonRpcUrl is not accepted')
  const blockNumber = optTime(forking.blockNumber, 0)
  return { method: 'reset', ...(blockNumber !== undefined && { blockNumber }) }
}

/**
 * anvil_loadState: Anvil's `SerializableState` (foundry crates/anvil/src/eth/backend/db.rs) as
 * hex of its gzipped JSON (what anvil_dumpState answers, Anvil's or this service's), hex of the
 * plain JSON, or the JSON object itself → the overrides that set each account's nonce, balance,
 * code and listed slots.
 */
export function loadStateParams(params: unknown[]): Request<'loadState'> {
  return { method: 'loadState', state: anvilState(required(params, 0), 0) }
}

function anvilState(v: unknown, i: number): StateOverrides {
  const bad = (why: string) => invalidArgument(i, why)
  let o: unknown = v
  if (typeof v === 'string') {
    const hex = dataOf(v)
    if (typeof hex !== 'string') throw bad('hex of a state dump expected')
    let bytes = Buffer.from(hex.slice(2), 'hex')
    try {
      if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes, { maxOutputLength: 256 * 2 ** 20 })
      o = JSON.parse(bytes.toString('utf8'))
    } catch {
      throw bad('Failed to decode state dump')
    }
  }
  const accounts = (o as { accounts?: unknown } | null)?.accounts
  if (!isObject(accounts)) throw bad('Failed to decode state dump: no accounts')
  const quantity = (x: unknown, at: string): bigint => {
    const n = quantityOf(x, { leadingZeros: true, numbers: true })
    if (typeof n !== 'bigint') throw bad(`${at}: a number or hex quantity expected`)
    return n
  }
  const out: StateOverrides = {}
  for (const [key, raw] of Object.entries(accounts)) {
    if (typeof dataOf(key, 20) !== 'string') throw bad(`accounts: ${key} is not an address`)
    if (raw === null || typeof raw !== 'object') throw bad(`accounts.${key}: object expected`)
    const a = raw as Record<string, unknown>
    const at = `accounts.${key}`
    const account: StateOverrides[Address] = {}
    if (a.nonce !== undefined) account.nonce = quantity(a.nonce, `${at}.nonce`)
    if (a.balance !== undefined) account.balance = quantity(a.balance, `${at}.balance`)
    if (a.code !== undefined) {
      const code = dataOf(a.code)
      if (typeof code !== 'string') throw bad(`${at}.code: hex expected`)
      account.code = code
    }
    if (!absent(a.storage)) {
      if (typeof a.storage !== 'object') throw bad(`${at}.storage: object expected`)
      const diff: Record<Hex, Hex> = {}
      for (const [slot, value] of Object.entries(a.storage as Record<string, unknown>)) {
        diff[wordFromQuantity(quantity(slot, `${at}.storage`))] = wordFromQuantity(quantity(value, `${at}.storage.${slot}`))
      }
      account.stateDiff = diff
    }
    out[key.toLowerCase() as Address] = account
  }
  return out
}
