/**
 * JSON-RPC params of the debug_* methods → engine inputs, strictly, with geth's rules and words:
 * quantities are 0x-hex without leading zeros, data is 0x-hex of whole bytes, a block is a tag, a
 * number or an EIP-1898 object, and a key nobody reads is refused (never silently dropped). Every
 * failure is RpcError -32602 `invalid argument N: …` naming the field.
 *
 * Only what the debug lane needs lives here (call object, state and block overrides, block refs,
 * hashes); the other lanes keep theirs in their own files until they are folded together.
 *
 * @example
 * const call = parseCallObject(params[0], 0)
 * const block = parseBlockRef(params[1] ?? 'latest', 1)
 */
import type { Address, Hex } from 'viem'
import {
  BlockRefError,
  parseBlockRef as parseEngineBlockRef,
  type AccountOverride,
  type BlockRef,
  type BlockRefOptions,
  type BlockSelector,
  type CallInput,
  type StateOverrides,
} from '../../../engine/types.js'
import { invalidArgument, RpcError } from '../rpcError.js'

const UINT64_MAX = (1n << 64n) - 1n
const UINT256_MAX = (1n << 256n) - 1n

/** a field path for messages: `call.gas`, `stateOverrides.0xab….balance` */
const at = (path: string, key: string) => (path ? `${path}.${key}` : key)

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** refuses keys nobody reads (geth would ignore them silently; we say so instead) */
export function onlyKeys(obj: Record<string, unknown>, allowed: readonly string[], index: number, path: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) throw invalidArgument(index, `${at(path, key)}: unknown field (accepted: ${allowed.join(', ')})`)
  }
}

/** geth hexutil.Big / Uint64: `0x`-prefixed, no leading zeros, within `max` */
export function parseQuantity(v: unknown, index: number, path: string, max = UINT256_MAX): bigint {
  if (typeof v !== 'string') throw invalidArgument(index, `${path}: expected a hex quantity string, got ${typeName(v)}`)
  if (!/^0[xX]/.test(v)) throw invalidArgument(index, `${path}: hex string without 0x prefix`)
  const digits = v.slice(2)
  if (digits.length === 0) throw invalidArgument(index, `${path}: hex string "0x"`)
  if (!/^[0-9a-fA-F]+$/.test(digits)) throw invalidArgument(index, `${path}: invalid hex string`)
  if (digits.length > 1 && digits[0] === '0') throw invalidArgument(index, `${path}: hex number with leading zero digits`)
  const n = BigInt(v)
  if (n > max) throw invalidArgument(index, `${path}: hex number > ${max === UINT64_MAX ? 64 : 256} bits`)
  return n
}

/** geth hexutil.Bytes: `0x`-prefixed, an even number of hex digits */
export function parseData(v: unknown, index: number, path: string): Hex {
  if (typeof v !== 'string') throw invalidArgument(index, `${path}: expected a hex data string, got ${typeName(v)}`)
  if (!/^0[xX]/.test(v)) throw invalidArgument(index, `${path}: hex string without 0x prefix`)
  if (!/^[0-9a-fA-F]*$/.test(v.slice(2))) throw invalidArgument(index, `${path}: invalid hex string`)
  if (v.length % 2 !== 0) throw invalidArgument(index, `${path}: hex string of odd length`)
  return v.toLowerCase() as Hex
}

function parseFixed(v: unknown, bytes: number, index: number, path: string, what: string): Hex {
  const data = parseData(v, index, path)
  if (data.length !== 2 + bytes * 2) throw invalidArgument(index, `${path}: ${what} must be ${bytes} bytes, got ${(data.length - 2) / 2}`)
  return data
}

export const parseAddress = (v: unknown, index: number, path: string): Address => parseFixed(v, 20, index, path, 'an address') as Address
export const parseHash = (v: unknown, index: number, path: string): Hex => parseFixed(v, 32, index, path, 'a hash')

/** a 32-byte storage slot or value (geth common.Hash: exactly 32 bytes) */
const parseWord = (v: unknown, index: number, path: string): Hex => parseHash(v, index, path)

/** the engine's block grammar for every JSON-RPC param: absent is `latest`, a failure `invalid argument N: <path>: <why>` */
export function blockArgument(v: unknown, index: number, path: string, opts: BlockRefOptions = {}): BlockRef {
  try {
    return parseEngineBlockRef(v, opts)
  } catch (e) {
    if (e instanceof BlockRefError) throw invalidArgument(index, path ? `${path}: ${e.message}` : e.message)
    throw e
  }
}

/** geth rpc.BlockNumber: a tag or a hex number */
export function parseBlockNumber(v: unknown, index: number, path = 'block'): BlockSelector {
  if (v === undefined || v === null) throw invalidArgument(index, `${path}: expected a block number or tag string, got ${typeName(v)}`)
  return blockArgument(v, index, path, { hash: false }) as BlockSelector
}

/** geth rpc.BlockNumberOrHash: a tag, a hex number, a block hash, or `{blockNumber}` / `{blockHash, requireCanonical}` */
export function parseBlockRef(v: unknown, index: number, path = 'block'): BlockRef {
  if (v === undefined || v === null) throw invalidArgument(index, `${path}: expected a block number or tag string, got ${typeName(v)}`)
  return blockArgument(v, index, path)
}

const CALL_KEYS = [
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
] as const
/** TransactionArgs fields geth reads that the engine cannot run: refused, not dropped */
const CALL_UNSUPPORTED = ['maxFeePerBlobGas', 'blobVersionedHashes', 'blobs', 'commitments', 'proofs', 'authorizationList']

/** geth ethapi.TransactionArgs → CallInput (from defaults to the zero address; gas to the engine's per-operation default) */
export function parseCallObject(v: unknown, index: number, path = 'call'): CallInput {
  if (!isObject(v)) throw invalidArgument(index, `${path}: expected a transaction call object, got ${typeName(v)}`)
  for (const key of Object.keys(v)) {
    if (CALL_UNSUPPORTED.includes(key))
      throw invalidArgument(index, `${at(path, key)}: not supported by this endpoint (blob and EIP-7702 calls cannot be traced here)`)
  }
  onlyKeys(v, CALL_KEYS, index, path)
  const q = (key: string, max?: bigint) => (v[key] === undefined || v[key] === null ? undefined : parseQuantity(v[key], index, at(path, key), max))
  const data = v.data === undefined || v.data === null ? undefined : parseData(v.data, index, at(path, 'data'))
  const input = v.input === undefined || v.input === null ? undefined : parseData(v.input, index, at(path, 'input'))
  if (data !== undefined && input !== undefined && data !== input) {
    // geth's own text (TransactionArgs.data)
    throw invalidArgument(index, 'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data')
  }
  const gasPrice = q('gasPrice')
  const maxFeePerGas = q('maxFeePerGas')
  const maxPriorityFeePerGas = q('maxPriorityFeePerGas')
  if (gasPrice !== undefined && (maxFeePerGas !== undefined || maxPriorityFeePerGas !== undefined)) {
    throw invalidArgument(index, 'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified')
  }
  if (v.type !== undefined && v.type !== null) parseQuantity(v.type, index, at(path, 'type'), 0xffn)
  if (v.chainId !== undefined && v.chainId !== null) parseQuantity(v.chainId, index, at(path, 'chainId'))
  const call: CallInput = {
    from: v.from === undefined || v.from === null ? (`0x${'0'.repeat(40)}` as Address) : parseAddress(v.from, index, at(path, 'from')),
    to: v.to === undefined || v.to === null ? null : parseAddress(v.to, index, at(path, 'to')),
    data: input ?? data ?? '0x',
  }
  const gas = q('gas', UINT64_MAX)
  if (gas !== undefined) call.gas = gas
  const value = q('value')
  if (value !== undefined) call.value = value
  if (gasPrice !== undefined) call.gasPrice = gasPrice
  if (maxFeePerGas !== undefined) call.maxFeePerGas = maxFeePerGas
  if (maxPriorityFeePerGas !== undefined) call.maxPriorityFeePerGas = maxPriorityFeePerGas
  const nonce = q('nonce', UINT64_MAX)
  if (nonce !== undefined) call.nonce = nonce
  if (v.accessList !== undefined && v.accessList !== null) call.accessList = parseAccessList(v.accessList, index, at(path, 'accessList'))
  return call
}

function parseAccessList(v: unknown, index: number, path: string): NonNullable<CallInput['accessList']> {
  if (!Array.isArray(v)) throw invalidArgument(index, `${path}: expected an array`)
  return v.map((entry, i) => {
    const p = `${path}[${i}]`
    if (!isObject(entry)) throw invalidArgument(index, `${p}: expected {address, storageKeys}`)
    onlyKeys(entry, ['address', 'storageKeys'], index, p)
    const keys = entry.storageKeys ?? []
    if (!Array.isArray(keys)) throw invalidArgument(index, `${p}.storageKeys: expected an array`)
    return { address: parseAddress(entry.address, index, `${p}.address`), storageKeys: keys.map((k, j) => parseHash(k, index, `${p}.storageKeys[${j}]`)) }
  })
}

/** geth override.StateOverride: `{address: {balance, nonce, code, state | stateDiff}}` */
export function parseStateOverrides(v: unknown, index: number, path = 'stateOverrides'): StateOverrides | undefined {
  if (v === undefined || v === null) return undefined
  if (!isObject(v)) throw invalidArgument(index, `${path}: expected an object keyed by address`)
  const out: StateOverrides = {}
  for (const [key, fields] of Object.entries(v)) {
    const p = at(path, key)
    const address = parseAddress(key, index, p)
    if (out[address]) throw invalidArgument(index, `${p}: address overridden twice (keys differ only in case)`)
    if (!isObject(fields)) throw invalidArgument(index, `${p}: expected an account override object`)
    if (fields.movePrecompileToAddress !== undefined) throw invalidArgument(index, `${p}.movePrecompileToAddress: not supported by debug_* methods here`)
    onlyKeys(fields, ['balance', 'nonce', 'code', 'state', 'stateDiff'], index, p)
    if (fields.state != null && fields.stateDiff != null) {
      // geth override.StateOverride.Apply
      throw new RpcError(-32602, `account ${address} has both 'state' and 'stateDiff'`)
    }
    const o: AccountOverride = {}
    if (fields.balance != null) o.balance = parseQuantity(fields.balance, index, `${p}.balance`)
    if (fields.nonce != null) o.nonce = parseQuantity(fields.nonce, index, `${p}.nonce`, UINT64_MAX)
    if (fields.code != null) o.code = parseData(fields.code, index, `${p}.code`)
    if (fields.state != null) o.state = parseSlots(fields.state, index, `${p}.state`)
    if (fields.stateDiff != null) o.stateDiff = parseSlots(fields.stateDiff, index, `${p}.stateDiff`)
    out[address] = o
  }
  return out
}

function parseSlots(v: unknown, index: number, path: string): Record<Hex, Hex> {
  if (!isObject(v)) throw invalidArgument(index, `${path}: expected an object of 32-byte slot → 32-byte value`)
  const out: Record<Hex, Hex> = {}
  for (const [slot, value] of Object.entries(v)) out[parseWord(slot, index, `${path}.${slot}`)] = parseWord(value, index, `${path}.${slot}`)
  return out
}

/** a JSON-RPC positional integer that geth reads as hexutil.Uint (or a plain JSON number, as Erigon/reth take) */
export function parseIndex(v: unknown, index: number, path: string): number {
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v) || v < 0) throw invalidArgument(index, `${path}: expected a non-negative integer`)
    return v
  }
  return Number(parseQuantity(v, index, path, 0xffffffffn))
}

export function typeName(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  return typeof v
}
