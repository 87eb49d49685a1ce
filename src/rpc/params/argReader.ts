/**
 * The JSON-RPC dialect of the request grammar (src/params/grammar.ts): a problem with argument N
 * is RpcError -32602 `invalid argument N: path: why`, as geth words it.
 *
 * How a bad hex value is worded is a family's own, held by its tests: the debug_* methods and
 * every block override say it in geth's progressive hexutil words (`GETH`), eth_call and its kin
 * in theirs (`ETH`), the state reads and the development methods in one phrase per kind
 * (`TERSE`), eth_simulateV1 and trace_* in the execution-apis' (`SPEC`). The readers are one for
 * all; a family picks only the words.
 *
 * @example
 * const r = argReader(0, ETH)
 * r.address('0x12', 'from') // throws RpcError(-32602, 'invalid argument 0: from: hex string of 20 bytes expected')
 */
import { type Problem, Reader, type Shape, typeName, UINT64_MAX } from '../../params/grammar.js'
import { invalidArgument, RpcError } from '../rpcError.js'

type ScalarProblem = Extract<Problem, { kind: 'scalar' }>

/** how a family of methods words a problem at `path` of argument `index` */
export interface RpcWords {
  /** a scalar that does not read */
  scalar(p: ScalarProblem): string
  /** a value of another JSON shape */
  shape(shape: Shape, value: unknown): string
  /** the message (after `invalid argument N: `) for a key nobody reads, at `path` */
  unknownField(path: string, key: string, accepted: readonly string[]): string
  /** the place of an object's key itself, and of the value under it (state override addresses, slots) */
  keyAt(path: string, key: string): string
  valueAt(path: string, key: string): string
  /** two fields that contradict each other: the error as the family answers it */
  conflict(p: Extract<Problem, { kind: 'conflict' }>, path: string, index: number): RpcError
}

const prefixed = (path: string, why: string) => (path ? `${path}: ${why}` : why)
const bits = (max: bigint | undefined) => (max === UINT64_MAX ? 64 : 256)
const bytesGot = (v: unknown) => (typeof v === 'string' ? (v.length - 2) / 2 : 0)

const DATA_INPUT = 'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data'
const FEE_MIX = 'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified'
const stateAndDiff = (p: { address?: string }) => `account ${p.address} has both 'state' and 'stateDiff'`

/** geth's TransactionArgs checks against the fees and the chain: plain errors (-32000) in geth */
function gethArgsError(p: Extract<Problem, { kind: 'conflict' }>): RpcError {
  if (p.conflict === 'tipAboveCap') return new RpcError(-32000, `maxFeePerGas (${p.want}) < maxPriorityFeePerGas (${p.have})`)
  return new RpcError(-32000, `chainId does not match node's (have=${p.have}, want=${p.want})`)
}

/** geth's hexutil words for a quantity, after its JSON type */
function hexutilQuantity(p: ScalarProblem): string | undefined {
  switch (p.fault) {
    case 'prefix':
      return 'hex string without 0x prefix'
    case 'empty':
      return 'hex string "0x"'
    case 'syntax':
      return 'invalid hex string'
    case 'leadingZero':
      return 'hex number with leading zero digits'
    case 'range':
      return `hex number > ${bits(p.max)} bits`
  }
  return undefined
}

/** geth's words (eth/tracers, hexutil): what is wrong, step by step */
export const GETH: RpcWords = {
  scalar(p) {
    if (p.scalar === 'quantity') return p.fault === 'type' ? `expected a hex quantity string, got ${typeName(p.value)}` : hexutilQuantity(p)!
    if (p.scalar === 'bool') return `expected a boolean, got ${typeName(p.value)}`
    switch (p.fault) {
      case 'type':
        return `expected a hex data string, got ${typeName(p.value)}`
      case 'prefix':
        return 'hex string without 0x prefix'
      case 'oddLength':
        return 'hex string of odd length'
      case 'length':
        return `${p.scalar === 'address' ? 'an address' : 'a hash'} must be ${p.size} bytes, got ${bytesGot(p.value)}`
      case 'range':
        return 'hex string of at most 32 bytes expected'
      default:
        return 'invalid hex string'
    }
  },
  shape(shape, value) {
    switch (shape) {
      case 'array':
        return 'expected an array'
      case 'call':
        return `expected a transaction call object, got ${typeName(value)}`
      case 'accessListEntry':
        return 'expected {address, storageKeys}'
      case 'stateOverrides':
        return 'expected an object keyed by address'
      case 'accountOverride':
        return 'expected an account override object'
      case 'slots':
        return 'expected an object of 32-byte slot → 32-byte value'
      case 'blockOverrides':
        return 'expected a block overrides object'
      default:
        return `expected an object, got ${typeName(value)}`
    }
  },
  unknownField: (path, key, accepted) => `${path ? `${path}.${key}` : key}: unknown field (accepted: ${accepted.join(', ')})`,
  keyAt: (path, key) => (path ? `${path}.${key}` : key),
  valueAt: (path, key) => (path ? `${path}.${key}` : key),
  conflict(p, path, index) {
    switch (p.conflict) {
      case 'tipAboveCap':
      case 'chainId':
        return gethArgsError(p)
      case 'dataInput':
        return invalidArgument(index, DATA_INPUT)
      case 'feeMix':
        return invalidArgument(index, FEE_MIX)
      case 'stateAndStateDiff':
        // geth override.StateOverride.Apply's words, without the argument
        return new RpcError(-32602, stateAndDiff(p))
      case 'twice':
        return invalidArgument(index, prefixed(path, 'address overridden twice (keys differ only in case)'))
    }
  },
}

/** eth_call, eth_estimateGas, eth_createAccessList, alchemy_simulateAssetChanges */
export const ETH: RpcWords = {
  scalar(p) {
    switch (p.scalar) {
      case 'quantity':
        return p.fault === 'type' ? 'hex quantity expected as a string' : hexutilQuantity(p)!
      case 'data':
        return p.fault === 'type' || p.fault === 'prefix' ? 'hex string with 0x prefix expected' : 'hex string of odd length or with invalid characters'
      case 'address':
        return 'hex string of 20 bytes expected'
      case 'hash':
        return 'hex string of 32 bytes expected'
      case 'word':
        return 'hex string of at most 32 bytes expected'
      case 'bool':
        return 'boolean expected'
    }
  },
  shape(shape) {
    switch (shape) {
      case 'array':
        return 'array expected'
      case 'call':
        return 'transaction object expected'
      case 'stateOverrides':
        return 'state override object expected'
      case 'accountOverride':
        return 'account override object expected'
      case 'slots':
        return 'object of slot → value expected'
      case 'blockOverrides':
        return 'expected a block overrides object'
      default:
        return 'object expected'
    }
  },
  unknownField: (path, key) => prefixed(path, `unknown field ${JSON.stringify(key)}`),
  keyAt: (path, key) => (path ? `${path} key ${key}` : `key ${key}`),
  valueAt: (path, key) => `${path}[${key}]`,
  conflict(p, _path, index) {
    switch (p.conflict) {
      case 'tipAboveCap':
      case 'chainId':
        return gethArgsError(p)
      case 'dataInput':
        return invalidArgument(index, DATA_INPUT)
      // geth answers these from TransactionArgs and StateOverride.Apply, as plain errors (-32000)
      case 'feeMix':
        return new RpcError(-32000, FEE_MIX)
      case 'stateAndStateDiff':
        return new RpcError(-32000, stateAndDiff(p))
      case 'twice':
        return invalidArgument(index, `${p.address} is overridden twice`)
    }
  },
}

/** the chain reads and a fork's development methods: one phrase per kind */
export const TERSE: RpcWords = {
  ...ETH,
  scalar(p) {
    switch (p.scalar) {
      case 'quantity':
        return p.leadingZeros ? 'hex quantity with 0x prefix expected' : 'hex quantity with 0x prefix and no leading zeros expected'
      case 'data':
        return 'hex string with 0x prefix and an even length expected'
      default:
        return ETH.scalar(p)
    }
  },
}

/** eth_simulateV1 and trace_* */
export const SPEC: RpcWords = {
  scalar(p) {
    switch (p.scalar) {
      case 'quantity':
        if (p.fault === 'type') return 'expected a hex quantity string'
        if (p.fault === 'prefix' || p.fault === 'empty' || p.fault === 'syntax') return `hex string "${p.value}" is not a 0x-prefixed quantity`
        return hexutilQuantity(p)!
      case 'data':
        return 'expected 0x-prefixed hex bytes of even length'
      case 'address':
        return 'expected a 20-byte 0x-prefixed address'
      case 'hash':
        return 'expected a 32-byte 0x-prefixed hash'
      case 'word':
        return 'expected a hex word of at most 32 bytes'
      case 'bool':
        return 'expected true or false'
    }
  },
  shape(shape) {
    switch (shape) {
      case 'array':
        return 'expected an array'
      case 'stateOverrides':
        return 'expected an object keyed by address'
      case 'slots':
        return 'expected an object of slot → value'
      case 'blockOverrides':
        return 'expected a block overrides object'
      default:
        return 'expected an object'
    }
  },
  unknownField: (path, key) => prefixed(path, `unknown field ${JSON.stringify(key)}`),
  keyAt: (path) => `${path} key`,
  valueAt: (path, key) => `${path}.${key}`,
  conflict(p, path, index) {
    switch (p.conflict) {
      case 'tipAboveCap':
      case 'chainId':
        return gethArgsError(p)
      case 'dataInput':
        return invalidArgument(index, prefixed(path, DATA_INPUT))
      case 'feeMix':
        return invalidArgument(index, prefixed(path, FEE_MIX))
      case 'stateAndStateDiff':
        return invalidArgument(index, prefixed(path, stateAndDiff(p)))
      case 'twice':
        return invalidArgument(index, prefixed(path, 'address given twice'))
    }
  },
}

/** reads argument `index` of a JSON-RPC call; every problem is -32602 in `words` */
export class ArgReader extends Reader {
  constructor(
    readonly index: number,
    readonly words: RpcWords,
  ) {
    super()
  }

  fail(path: string, problem: Problem): never {
    const w = this.words
    switch (problem.kind) {
      case 'scalar':
        throw invalidArgument(this.index, prefixed(path, w.scalar(problem)))
      case 'shape':
        throw invalidArgument(this.index, prefixed(path, w.shape(problem.shape, problem.value)))
      case 'unknownField':
        throw invalidArgument(this.index, w.unknownField(path, problem.key, problem.accepted))
      case 'conflict':
        throw w.conflict(problem, path, this.index)
      case 'said':
        throw invalidArgument(this.index, prefixed(path, problem.why))
    }
  }

  override keyPath(path: string, key: string): string {
    return this.words.keyAt(path, key)
  }

  override valuePath(path: string, key: string): string {
    return this.words.valueAt(path, key)
  }

  /** the same argument, read in another family's words */
  in(words: RpcWords): ArgReader {
    return words === this.words ? this : new ArgReader(this.index, words)
  }
}

export const argReader = (index: number, words: RpcWords): ArgReader => new ArgReader(index, words)

/** a required param (geth: `missing value for required argument N`) */
export function required(params: readonly unknown[], index: number): unknown {
  const v = params[index]
  if (v === undefined || v === null) throw new RpcError(-32602, `missing value for required argument ${index}`)
  return v
}

/** refuses more params than the method takes (geth: `too many arguments, want at most N`) */
export function atMost(params: readonly unknown[], n: number): void {
  if (params.length > n) throw new RpcError(-32602, `too many arguments, want at most ${n}`)
}

/** geth's argument count rules: the first `min` present (not null), at most `max` */
export function arity(params: readonly unknown[], min: number, max: number): void {
  atMost(params, max)
  for (let i = 0; i < min; i++) required(params, i)
}
