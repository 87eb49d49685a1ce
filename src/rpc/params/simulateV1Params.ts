/**
 * JSON-RPC param readers the simv1 lane needs (eth_simulateV1, trace_*): geth's hex forms, read
 * strictly, every failure a -32602 naming where in the param it is (`invalid argument N: …`).
 * Unknown keys are refused, never dropped. The lead folds these with the other lanes' readers.
 *
 * @example
 * const r = paramReader(0)
 * r.quantity('0x1a', 'blockStateCalls[0].calls[0].gas') // 26n
 */
import type { Address, Hex } from 'viem'
import type { AccountOverride, BlockSelector, CallInput } from '../../../engine/types.js'
import { invalidArgument } from '../rpcError.js'
import { blockArgument } from './debugParams.js'

const UINT64_MAX = (1n << 64n) - 1n
const UINT256_MAX = (1n << 256n) - 1n

export type ParamReader = ReturnType<typeof paramReader>

export function paramReader(index: number) {
  const fail = (path: string, why: string) => invalidArgument(index, path ? `${path}: ${why}` : why)

  const object = (v: unknown, path: string, allowed: readonly string[]): Record<string, unknown> => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw fail(path, 'expected an object')
    for (const k of Object.keys(v)) if (!allowed.includes(k)) throw fail(path, `unknown field "${k}"`)
    return v as Record<string, unknown>
  }
  const array = (v: unknown, path: string): unknown[] => {
    if (!Array.isArray(v)) throw fail(path, 'expected an array')
    return v
  }
  const bool = (v: unknown, path: string): boolean => {
    if (v === undefined || v === null) return false
    if (typeof v !== 'boolean') throw fail(path, 'expected true or false')
    return v
  }
  /** geth hexutil.Big / Uint64: 0x-prefixed, no leading zeros */
  const quantity = (v: unknown, path: string, max = UINT256_MAX): bigint => {
    if (typeof v !== 'string') throw fail(path, 'expected a hex quantity string')
    if (!/^0x[0-9a-fA-F]+$/.test(v)) throw fail(path, `hex string "${v}" is not a 0x-prefixed quantity`)
    if (v.length > 3 && v[2] === '0') throw fail(path, 'hex number with leading zero digits')
    const n = BigInt(v)
    if (n > max) throw fail(path, `hex number > ${max === UINT64_MAX ? '64' : '256'} bits`)
    return n
  }
  const data = (v: unknown, path: string): Hex => {
    if (typeof v !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(v)) throw fail(path, 'expected 0x-prefixed hex bytes of even length')
    return v.toLowerCase() as Hex
  }
  const address = (v: unknown, path: string): Address => {
    if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(v)) throw fail(path, 'expected a 20-byte 0x-prefixed address')
    return v.toLowerCase() as Address
  }
  const hash = (v: unknown, path: string): Hex => {
    if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(v)) throw fail(path, 'expected a 32-byte 0x-prefixed hash')
    return v.toLowerCase() as Hex
  }
  /** a storage key or value: 32 bytes (geth common.Hash), left-padded when shorter */
  const word = (v: unknown, path: string): Hex => {
    if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(v)) throw fail(path, 'expected a hex word of at most 32 bytes')
    return `0x${v.slice(2).toLowerCase().padStart(64, '0')}` as Hex
  }

  return { fail, object, array, bool, quantity, data, address, hash, word, UINT64_MAX }
}

/** a block tag or number (`latest` when absent); a block hash is refused by name */
export function blockParam(v: unknown, index: number): BlockSelector {
  return blockArgument(v, index, '', { hash: false }) as BlockSelector
}

const CALL_FIELDS = [
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
  'maxFeePerBlobGas',
  'blobVersionedHashes',
  'authorizationList',
] as const

/**
 * geth's TransactionArgs. `from` defaults to the zero address (eth_simulateV1); `input` wins over
 * `data` and both given must agree; `chainId`, when given, must be the chain's; `type`, when
 * given, is checked against the fee fields (the type follows them, as geth derives it).
 */
export function callParam(r: ParamReader, v: unknown, path: string): CallInput & { chainId?: bigint } {
  const o = r.object(v, path, CALL_FIELDS)
  const call: CallInput & { chainId?: bigint } = {
    from: o.from === undefined || o.from === null ? '0x0000000000000000000000000000000000000000' : r.address(o.from, `${path}.from`),
    data: '0x',
  }
  if (o.to !== undefined && o.to !== null) call.to = r.address(o.to, `${path}.to`)
  if (
    o.input !== undefined &&
    o.input !== null &&
    o.data !== undefined &&
    o.data !== null &&
    (o.input as string).toLowerCase() !== (o.data as string).toLowerCase()
  ) {
    throw r.fail(path, 'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data')
  }
  const input = o.input ?? o.data
  if (input !== undefined && input !== null) call.data = r.data(input, `${path}.input`)
  if (o.gas !== undefined) call.gas = r.quantity(o.gas, `${path}.gas`, r.UINT64_MAX)
  if (o.gasPrice !== undefined) call.gasPrice = r.quantity(o.gasPrice, `${path}.gasPrice`)
  if (o.maxFeePerGas !== undefined) call.maxFeePerGas = r.quantity(o.maxFeePerGas, `${path}.maxFeePerGas`)
  if (o.maxPriorityFeePerGas !== undefined) call.maxPriorityFeePerGas = r.quantity(o.maxPriorityFeePerGas, `${path}.maxPriorityFeePerGas`)
  if (o.value !== undefined) call.value = r.quantity(o.value, `${path}.value`)
  if (o.nonce !== undefined) call.nonce = r.quantity(o.nonce, `${path}.nonce`, r.UINT64_MAX)
  if (o.accessList !== undefined && o.accessList !== null) {
    call.accessList = r.array(o.accessList, `${path}.accessList`).map((e, i) => {
      const p = `${path}.accessList[${i}]`
      const entry = r.object(e, p, ['address', 'storageKeys'])
      return {
        address: r.address(entry.address, `${p}.address`),
        storageKeys: r.array(entry.storageKeys ?? [], `${p}.storageKeys`).map((k, j) => r.hash(k, `${p}.storageKeys[${j}]`)),
      }
    })
  }
  // geth reads maxFeePerBlobGas only for a blob transaction: without blob hashes it has no effect
  if (o.maxFeePerBlobGas !== undefined && o.maxFeePerBlobGas !== null) {
    const cap = r.quantity(o.maxFeePerBlobGas, `${path}.maxFeePerBlobGas`)
    if (o.blobVersionedHashes !== undefined && o.blobVersionedHashes !== null) call.maxFeePerBlobGas = cap
  }
  if (o.blobVersionedHashes !== undefined && o.blobVersionedHashes !== null) {
    const hashes = r.array(o.blobVersionedHashes, `${path}.blobVersionedHashes`).map((h, i) => r.hash(h, `${path}.blobVersionedHashes[${i}]`))
    // an empty list is no blob transaction: nothing to simulate differently
    if (hashes.length > 0) {
      if (call.to === undefined || call.to === null) throw r.fail(`${path}.to`, 'a blob transaction cannot create a contract: `to` is required')
      call.blobVersionedHashes = hashes
    }
  }
  const authorizations = o.authorizationList
  if (authorizations !== undefined && authorizations !== null && r.array(authorizations, `${path}.authorizationList`).length > 0) {
    throw r.fail(`${path}.authorizationList`, 'EIP-7702 transactions are not simulated by this endpoint yet')
  }
  // the engine checks it against the chain's
  if (o.chainId !== undefined && o.chainId !== null) call.chainId = r.quantity(o.chainId, `${path}.chainId`)
  if (o.type !== undefined && o.type !== null) {
    const type = r.quantity(o.type, `${path}.type`)
    const implied = call.blobVersionedHashes ? [3n] : call.gasPrice !== undefined ? [0n, 1n] : [2n]
    if (!implied.includes(type))
      throw r.fail(
        `${path}.type`,
        `type ${type} is not supported here (the type follows the fee fields: blob hashes → blob, gasPrice → legacy, otherwise EIP-1559)`,
      )
  }
  return call
}

/** geth's OverrideAccount, with eth_simulateV1's movePrecompileToAddress */
export function accountOverridesParam(r: ParamReader, v: unknown, path: string): Record<Address, AccountOverride & { movePrecompileToAddress?: Address }> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw r.fail(path, 'expected an object keyed by address')
  const out: Record<Address, AccountOverride & { movePrecompileToAddress?: Address }> = {}
  for (const [key, value] of Object.entries(v)) {
    const addr = r.address(key, `${path} key`)
    const p = `${path}.${key}`
    const o = r.object(value, p, ['balance', 'nonce', 'code', 'state', 'stateDiff', 'movePrecompileToAddress'])
    if (addr in out) throw r.fail(p, 'address given twice')
    const acc: AccountOverride & { movePrecompileToAddress?: Address } = {}
    if (o.balance !== undefined && o.balance !== null) acc.balance = r.quantity(o.balance, `${p}.balance`)
    if (o.nonce !== undefined && o.nonce !== null) acc.nonce = r.quantity(o.nonce, `${p}.nonce`, r.UINT64_MAX)
    if (o.code !== undefined && o.code !== null) acc.code = r.data(o.code, `${p}.code`)
    for (const kind of ['state', 'stateDiff'] as const) {
      const slots = o[kind]
      if (slots === undefined || slots === null) continue
      if (typeof slots !== 'object' || Array.isArray(slots)) throw r.fail(`${p}.${kind}`, 'expected an object of slot → value')
      acc[kind] = Object.fromEntries(Object.entries(slots).map(([k, val]) => [r.word(k, `${p}.${kind} key`), r.word(val, `${p}.${kind}.${k}`)]))
    }
    if (acc.state && acc.stateDiff) throw r.fail(p, `account ${addr} has both 'state' and 'stateDiff'`)
    if (o.movePrecompileToAddress !== undefined && o.movePrecompileToAddress !== null) {
      acc.movePrecompileToAddress = r.address(o.movePrecompileToAddress, `${p}.movePrecompileToAddress`)
    }
    out[addr] = acc
  }
  return out
}
