/**
 * Parsing of JSON-RPC positional params for the engine-served eth_ methods (eth_call, eth_estimateGas,
 * eth_createAccessList), with geth's rules and wording: hex quantities without leading zeros,
 * 20-byte addresses, 0x data of even length, geth's BlockNumberOrHash (tag, number, hash or the
 * EIP-1898 object), geth's TransactionArgs, StateOverride and BlockOverrides objects. Every
 * failure is -32602 `invalid argument N: …` naming the field; a field geth knows but the engine
 * cannot honour, or a field nobody knows, is refused by name rather than dropped.
 *
 * @example
 * const call = callArgs(params[0], 0)            // CallInput
 * const block = blockArg(params[1], 1) // { tag: 'latest' } when absent
 */
import type { Address, Hex } from 'viem'
import type { AccountOverride, BlockRef, CallInput, StateOverrides } from '../../../engine/types.js'
import { invalidArgument, RpcError } from '../rpcError.js'
import { blockArgument } from './debugParams.js'

const UINT64_MAX = 2n ** 64n - 1n
const UINT256_MAX = 2n ** 256n - 1n
const ZERO_ADDRESS: Address = '0x0000000000000000000000000000000000000000'

type Obj = Record<string, unknown>

const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v)
const at = (field: string | undefined, why: string) => (field ? `${field}: ${why}` : why)

/** refuses more params than the method takes (geth: `too many arguments, want at most N`) */
export function atMost(params: unknown[], n: number): void {
  if (params.length > n) throw new RpcError(-32602, `too many arguments, want at most ${n}`)
}

/** a required param (geth: `missing value for required argument N`) */
export function required(params: unknown[], index: number): unknown {
  const v = params[index]
  if (v === undefined || v === null) throw new RpcError(-32602, `missing value for required argument ${index}`)
  return v
}

export function quantity(v: unknown, index: number, field?: string, max = UINT256_MAX): bigint {
  if (typeof v !== 'string') throw invalidArgument(index, at(field, 'hex quantity expected as a string'))
  if (!/^0x/i.test(v)) throw invalidArgument(index, at(field, 'hex string without 0x prefix'))
  if (v.length === 2) throw invalidArgument(index, at(field, 'hex string "0x"'))
  if (!/^0x[0-9a-fA-F]+$/.test(v)) throw invalidArgument(index, at(field, 'invalid hex string'))
  if (/^0x0[0-9a-fA-F]/.test(v)) throw invalidArgument(index, at(field, 'hex number with leading zero digits'))
  const n = BigInt(v)
  if (n > max) throw invalidArgument(index, at(field, `hex number > ${max === UINT64_MAX ? 64 : 256} bits`))
  return n
}

export function address(v: unknown, index: number, field?: string): Address {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(v)) throw invalidArgument(index, at(field, 'hex string of 20 bytes expected'))
  return v.toLowerCase() as Address
}

export function data(v: unknown, index: number, field?: string): Hex {
  if (typeof v !== 'string' || !/^0x/i.test(v)) throw invalidArgument(index, at(field, 'hex string with 0x prefix expected'))
  if (!/^0x([0-9a-fA-F]{2})*$/.test(v)) throw invalidArgument(index, at(field, 'hex string of odd length or with invalid characters'))
  return v.toLowerCase() as Hex
}

export function word(v: unknown, index: number, field?: string): Hex {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(v)) throw invalidArgument(index, at(field, 'hex string of at most 32 bytes expected'))
  return `0x${v.slice(2).toLowerCase().padStart(64, '0')}` as Hex
}

/** geth BlockNumberOrHash (the engine's block grammar; a hash is resolved by the engine); `latest` when absent */
export function blockArg(v: unknown, index: number): BlockRef {
  return blockArgument(v, index, '')
}

/** geth TransactionArgs fields this endpoint reads; the blob fields are refused by name */
const CALL_FIELDS = new Set([
  'from',
  'to',
  'gas',
  'gasPrice',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'value',
  'nonce',
  'data',
  'input',
  'accessList',
  'chainId',
  'type',
  'authorizationList',
])
const UNSUPPORTED_CALL_FIELDS = new Set(['blobVersionedHashes', 'maxFeePerBlobGas', 'blobs', 'commitments', 'proofs'])

/**
 * geth TransactionArgs → CallInput. `from` defaults to the zero address, `input` wins over `data`
 * only when they agree (geth: both set and different is an error), legacy and EIP-1559 fees are
 * not mixed, `chainId` must be this chain's (geth's check), `type` is read by geth only to pick
 * defaults and is accepted.
 */
export function callArgs(v: unknown, index: number, chainId: number): CallInput {
  if (!isObject(v)) throw invalidArgument(index, 'transaction object expected')
  for (const k of Object.keys(v)) {
    if (UNSUPPORTED_CALL_FIELDS.has(k)) {
      if (v[k] === null || (Array.isArray(v[k]) && (v[k] as unknown[]).length === 0)) continue
      throw invalidArgument(index, `${k}: blob transaction fields are not supported by this endpoint`)
    }
    if (!CALL_FIELDS.has(k)) throw invalidArgument(index, `unknown field ${JSON.stringify(k)}`)
  }
  const opt = <T>(k: string, parse: (x: unknown) => T): T | undefined => (v[k] === undefined || v[k] === null ? undefined : parse(v[k]))
  const input = opt('input', (x) => data(x, index, 'input'))
  const dataField = opt('data', (x) => data(x, index, 'data'))
  if (input !== undefined && dataField !== undefined && input !== dataField) {
    throw invalidArgument(index, 'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data')
  }
  const call: CallInput = {
    from: opt('from', (x) => address(x, index, 'from')) ?? ZERO_ADDRESS,
    to: opt('to', (x) => address(x, index, 'to')) ?? null,
    data: input ?? dataField ?? '0x',
  }
  const gas = opt('gas', (x) => quantity(x, index, 'gas', UINT64_MAX))
  if (gas !== undefined) call.gas = gas
  const value = opt('value', (x) => quantity(x, index, 'value'))
  if (value !== undefined) call.value = value
  const gasPrice = opt('gasPrice', (x) => quantity(x, index, 'gasPrice'))
  const maxFee = opt('maxFeePerGas', (x) => quantity(x, index, 'maxFeePerGas'))
  const maxTip = opt('maxPriorityFeePerGas', (x) => quantity(x, index, 'maxPriorityFeePerGas'))
  if (gasPrice !== undefined && (maxFee !== undefined || maxTip !== undefined)) {
    throw new RpcError(-32000, 'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified')
  }
  if (maxFee !== undefined && maxTip !== undefined && maxTip > maxFee) {
    throw new RpcError(-32000, `maxFeePerGas (${maxFee}) < maxPriorityFeePerGas (${maxTip})`)
  }
  if (gasPrice !== undefined) call.gasPrice = gasPrice
  if (maxFee !== undefined) call.maxFeePerGas = maxFee
  if (maxTip !== undefined) call.maxPriorityFeePerGas = maxTip
  const nonce = opt('nonce', (x) => quantity(x, index, 'nonce', UINT64_MAX))
  if (nonce !== undefined) call.nonce = nonce
  const chain = opt('chainId', (x) => quantity(x, index, 'chainId'))
  if (chain !== undefined && chain !== BigInt(chainId)) throw new RpcError(-32000, `chainId does not match node's (have=${chain}, want=${chainId})`)
  opt('type', (x) => quantity(x, index, 'type', 0xffn))
  const list = opt('accessList', (x) => accessList(x, index))
  if (list !== undefined) call.accessList = list
  const auths = opt('authorizationList', (x) => authorizationList(x, index))
  if (auths !== undefined) call.authorizationList = auths
  return call
}

const AUTHORIZATION_FIELDS = new Set(['chainId', 'address', 'nonce', 'yParity', 'r', 's'])

/** geth's SetCodeAuthorization JSON ({ chainId, address, nonce, yParity, r, s }); the engine checks the list as geth's preCheck does */
function authorizationList(v: unknown, index: number): NonNullable<CallInput['authorizationList']> {
  if (!Array.isArray(v)) throw invalidArgument(index, 'authorizationList: array expected')
  return v.map((e, i) => {
    const field = `authorizationList[${i}]`
    if (!isObject(e)) throw invalidArgument(index, `${field}: object expected`)
    for (const k of Object.keys(e)) if (!AUTHORIZATION_FIELDS.has(k)) throw invalidArgument(index, `${field}: unknown field ${JSON.stringify(k)}`)
    const yParity = quantity(e.yParity, index, `${field}.yParity`, 0xffn)
    return {
      chainId: quantity(e.chainId, index, `${field}.chainId`),
      address: address(e.address, index, `${field}.address`),
      nonce: quantity(e.nonce, index, `${field}.nonce`, UINT64_MAX),
      yParity: Number(yParity),
      r: quantity(e.r, index, `${field}.r`),
      s: quantity(e.s, index, `${field}.s`),
    }
  })
}

function accessList(v: unknown, index: number): NonNullable<CallInput['accessList']> {
  if (!Array.isArray(v)) throw invalidArgument(index, 'accessList: array expected')
  return v.map((e, i) => {
    if (!isObject(e)) throw invalidArgument(index, `accessList[${i}]: object expected`)
    const keys = e.storageKeys ?? []
    if (!Array.isArray(keys)) throw invalidArgument(index, `accessList[${i}].storageKeys: array expected`)
    return {
      address: address(e.address, index, `accessList[${i}].address`),
      storageKeys: keys.map((k, j) => word(k, index, `accessList[${i}].storageKeys[${j}]`)),
    }
  })
}

const OVERRIDE_FIELDS = new Set(['balance', 'nonce', 'code', 'state', 'stateDiff'])

/** geth StateOverride: `{address: {balance, nonce, code, state | stateDiff}}` */
export function stateOverridesArg(v: unknown, index: number): StateOverrides | undefined {
  if (v === undefined || v === null) return undefined
  if (!isObject(v)) throw invalidArgument(index, 'state override object expected')
  const out: StateOverrides = {}
  for (const [key, o] of Object.entries(v)) {
    const addr = address(key, index, `key ${key}`)
    if (out[addr]) throw invalidArgument(index, `${addr} is overridden twice`)
    if (!isObject(o)) throw invalidArgument(index, `${addr}: account override object expected`)
    for (const k of Object.keys(o)) {
      if (k === 'movePrecompileToAddress')
        throw invalidArgument(index, `${addr}.movePrecompileToAddress: not supported by eth_call here (eth_simulateV1 takes it)`)
      if (!OVERRIDE_FIELDS.has(k)) throw invalidArgument(index, `${addr}: unknown field ${JSON.stringify(k)}`)
    }
    if (o.state != null && o.stateDiff != null) throw new RpcError(-32000, `account ${addr} has both 'state' and 'stateDiff'`)
    const acc: AccountOverride = {}
    if (o.balance != null) acc.balance = quantity(o.balance, index, `${addr}.balance`)
    if (o.nonce != null) acc.nonce = quantity(o.nonce, index, `${addr}.nonce`, UINT64_MAX)
    if (o.code != null) acc.code = data(o.code, index, `${addr}.code`)
    if (o.state != null) acc.state = slots(o.state, index, `${addr}.state`)
    if (o.stateDiff != null) acc.stateDiff = slots(o.stateDiff, index, `${addr}.stateDiff`)
    out[addr] = acc
  }
  return out
}

function slots(v: unknown, index: number, field: string): Record<Hex, Hex> {
  if (!isObject(v)) throw invalidArgument(index, `${field}: object of slot → value expected`)
  const out: Record<Hex, Hex> = {}
  for (const [k, val] of Object.entries(v)) out[word(k, index, `${field} key ${k}`)] = word(val, index, `${field}[${k}]`)
  return out
}
