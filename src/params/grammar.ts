/**
 * The grammar of a request's values, one reader per kind, shared by both front doors: the
 * JSON-RPC params (src/rpc/params/) and REST's normalization (src/normalize/). A reader takes what
 * the client sent and gives the engine's canonical value (lowercase hex, bigint quantities,
 * 32-byte words), or names what is wrong with it as a `Problem`. It never words the problem: the
 * `Reader` it is given does, in its dialect (JSON-RPC: -32602 `invalid argument N: path: why`,
 * REST: VALIDATION_ERROR at the body path), so each dialect keeps its own error shape while the
 * grammar exists once.
 *
 * @example
 * r.quantity('0x1a', 'call.gas', { max: UINT64_MAX }) // 26n
 * r.word('0x1', 'slot', 'padded')                    // '0x00…01'
 */
import type { Address, Hex } from 'viem'

export const UINT64_MAX = (1n << 64n) - 1n
export const UINT256_MAX = (1n << 256n) - 1n
export const ZERO_ADDRESS: Address = '0x0000000000000000000000000000000000000000'

/** what a scalar reader reads */
export type Scalar = 'quantity' | 'data' | 'address' | 'hash' | 'word' | 'bool'

/**
 * What is wrong with a scalar, in geth's hexutil terms: not the JSON type at all, no `0x`, only
 * `0x`, a character that is no hex digit, a leading zero digit, beyond the bound, an odd number of
 * digits, or bytes of another length than the kind's.
 */
export type Fault = 'type' | 'prefix' | 'empty' | 'syntax' | 'leadingZero' | 'range' | 'oddLength' | 'length'

/** a JSON value's type as a message names it */
export function typeName(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  return typeof v
}

/** what is wrong with a value, for the dialect to word */
export type Problem =
  /** a scalar that does not read; `max` is the quantity's bound, `size` the bytes a fixed-size value must have */
  | { kind: 'scalar'; scalar: Scalar; fault: Fault; value: unknown; max?: bigint; size?: number; leadingZeros?: boolean }
  /** not the JSON shape the place takes */
  | { kind: 'shape'; shape: Shape; value: unknown }
  /** a key nobody reads (refused rather than dropped) */
  | { kind: 'unknownField'; key: string; accepted: readonly string[] }
  /** two fields that contradict each other, or one account given twice; `have`/`want` the values at odds */
  | { kind: 'conflict'; conflict: Conflict; address?: Address; have?: bigint; want?: bigint }
  /** anything else, in the reader's own words (the same in every dialect); `suggestion` for REST */
  | { kind: 'said'; why: string; suggestion?: string }

/** the object and array shapes a place takes */
export type Shape = 'object' | 'array' | 'call' | 'accessListEntry' | 'stateOverrides' | 'accountOverride' | 'slots' | 'blockOverrides'

/**
 * `dataInput`: data and input both given and different; `feeMix`: gasPrice with the EIP-1559 fee
 * fields; `tipAboveCap`: maxPriorityFeePerGas (`have`) above maxFeePerGas (`want`); `chainId`: a
 * chain id (`have`) other than the chain's (`want`); `stateAndStateDiff`: both storage forms of
 * one account; `twice`: one account overridden twice (keys differing only in case)
 */
export type Conflict = 'dataInput' | 'feeMix' | 'tipAboveCap' | 'chainId' | 'stateAndStateDiff' | 'twice'

export interface QuantityRule {
  /** the largest value (default: 256 bits) */
  max?: bigint
  /** `0x01` is 1 (Anvil's and the REST API's reading); geth refuses leading zero digits */
  leadingZeros?: boolean
  /** a non-negative JSON integer is accepted as well */
  numbers?: boolean
  /** a negative JSON integer too (a clock moved back) */
  signed?: boolean
  /** a string of decimal digits is accepted as well (Hardhat's and Anvil's times and counts) */
  decimals?: boolean
}

/**
 * how a storage slot or value reads: exactly 32 bytes (geth's common.Hash), up to 32 bytes
 * left-padded, or any quantity below 2^256 left-padded (the REST API's reading, leading zeros and all)
 */
export type WordForm = 'exact' | 'padded' | 'quantity'

/** `path` + a member: `call` + `gas` → `call.gas`, `calls` + 0 → `calls[0]` */
export function at(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`
  return path === '' ? key : `${path}.${key}`
}

export const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)
/** absent in JSON terms: not sent, or sent as null (geth reads both as "not given") */
export const absent = (v: unknown): v is undefined | null => v === undefined || v === null

const HEX = /^[0-9a-fA-F]*$/

/** a quantity's digits after the prefix, or the fault of a string that has none */
function hexDigits(v: string): string | Fault {
  if (!/^0[xX]/.test(v)) return 'prefix'
  const digits = v.slice(2)
  if (digits.length === 0) return 'empty'
  if (!HEX.test(digits)) return 'syntax'
  return digits
}

/** a quantity, or what is wrong with it */
export function quantityOf(v: unknown, rule: QuantityRule = {}): bigint | { fault: Fault } {
  const max = rule.max ?? UINT256_MAX
  let n: bigint
  if (typeof v === 'number' && rule.numbers) {
    if (!Number.isSafeInteger(v) || (v < 0 && !rule.signed)) return { fault: 'type' }
    n = BigInt(v)
  } else if (typeof v === 'string' && rule.decimals && /^[0-9]+$/.test(v)) {
    n = BigInt(v)
  } else {
    if (typeof v !== 'string') return { fault: 'type' }
    const digits = hexDigits(v)
    if (digits === 'prefix' || digits === 'empty' || digits === 'syntax') return { fault: digits }
    if (!rule.leadingZeros && digits.length > 1 && digits[0] === '0') return { fault: 'leadingZero' }
    n = BigInt(`0x${digits}`)
  }
  return n > max ? { fault: 'range' } : n
}

/** bytes (`0x` and an even number of hex digits), lowercase; `size` bytes exactly when given */
export function dataOf(v: unknown, size?: number): Hex | { fault: Fault } {
  if (typeof v !== 'string') return { fault: 'type' }
  if (!/^0[xX]/.test(v)) return { fault: 'prefix' }
  if (!HEX.test(v.slice(2))) return { fault: 'syntax' }
  if (v.length % 2 !== 0) return { fault: 'oddLength' }
  if (size !== undefined && v.length !== 2 + 2 * size) return { fault: 'length' }
  return `0x${v.slice(2).toLowerCase()}` as Hex
}

/** a storage slot or value as 32 bytes */
export function wordOf(v: unknown, form: WordForm): Hex | { fault: Fault } {
  if (form === 'exact') return dataOf(v, 32)
  if (form === 'quantity') {
    const n = quantityOf(v, { leadingZeros: true })
    return typeof n === 'bigint' ? wordFromQuantity(n) : n
  }
  if (typeof v !== 'string') return { fault: 'type' }
  const digits = hexDigits(v)
  if (digits === 'prefix' || digits === 'empty' || digits === 'syntax') return { fault: digits }
  if (digits.length > 64) return { fault: 'range' }
  return `0x${digits.toLowerCase().padStart(64, '0')}` as Hex
}

/** a quantity as a 32-byte word */
export const wordFromQuantity = (n: bigint): Hex => `0x${n.toString(16).padStart(64, '0')}` as Hex

const failed = (v: unknown): v is { fault: Fault } => typeof v === 'object' && v !== null

/**
 * Reads values in one dialect: each reader below reads a kind by the grammar above and hands a
 * failure to `fail`, which the dialect implements (src/rpc/params/argReader.ts,
 * src/normalize/bodyReader.ts) and which never returns.
 */
export abstract class Reader {
  abstract fail(path: string, problem: Problem): never

  quantity(v: unknown, path: string, rule: QuantityRule = {}): bigint {
    const n = quantityOf(v, rule)
    if (failed(n))
      this.fail(path, { kind: 'scalar', scalar: 'quantity', fault: n.fault, value: v, max: rule.max ?? UINT256_MAX, leadingZeros: rule.leadingZeros })
    return n
  }

  data(v: unknown, path: string): Hex {
    const d = dataOf(v)
    if (failed(d)) this.fail(path, { kind: 'scalar', scalar: 'data', fault: d.fault, value: v })
    return d
  }

  address(v: unknown, path: string): Address {
    const d = dataOf(v, 20)
    if (failed(d)) this.fail(path, { kind: 'scalar', scalar: 'address', fault: d.fault, value: v, size: 20 })
    return d as Address
  }

  hash(v: unknown, path: string): Hex {
    const d = dataOf(v, 32)
    if (failed(d)) this.fail(path, { kind: 'scalar', scalar: 'hash', fault: d.fault, value: v, size: 32 })
    return d
  }

  word(v: unknown, path: string, form: WordForm): Hex {
    if (form === 'exact') return this.hash(v, path)
    const w = wordOf(v, form)
    if (failed(w)) this.fail(path, { kind: 'scalar', scalar: 'word', fault: w.fault, value: v })
    return w
  }

  bool(v: unknown, path: string): boolean {
    if (typeof v !== 'boolean') this.fail(path, { kind: 'scalar', scalar: 'bool', fault: 'type', value: v })
    return v
  }

  object(v: unknown, path: string, shape: Shape = 'object'): Record<string, unknown> {
    if (!isObject(v)) this.fail(path, { kind: 'shape', shape, value: v })
    return v
  }

  array(v: unknown, path: string): unknown[] {
    if (!Array.isArray(v)) this.fail(path, { kind: 'shape', shape: 'array', value: v })
    return v
  }

  /** the place of an object's key itself, and of the value under it (state override addresses, storage slots) */
  keyPath(path: string, key: string): string {
    return at(path, key)
  }

  valuePath(path: string, key: string): string {
    return at(path, key)
  }

  /** refuses a key nobody reads */
  onlyKeys(o: Record<string, unknown>, accepted: readonly string[], path: string): void {
    for (const key of Object.keys(o)) if (!accepted.includes(key)) this.fail(path, { kind: 'unknownField', key, accepted })
  }

  said(path: string, why: string, suggestion?: string): never {
    return this.fail(path, { kind: 'said', why, ...(suggestion !== undefined && { suggestion }) })
  }
}

/** `read(v)` when the value is given, undefined when absent or null */
export function optional<T>(v: unknown, read: (v: unknown) => T): T | undefined {
  return absent(v) ? undefined : read(v)
}
