/**
 * gethErrors: ethereumjs EVM error strings → go-ethereum's (core/vm/errors.go), shared by every
 * tracer and by the execution result. geth-reference.md §1.3 lists geth's strings.
 *
 * Some geth errors carry numbers ethereumjs does not report (stack sizes, the opcode name); the
 * adapter passes what it saw at the failing step in `FailingStep`.
 *
 * @example
 * toGethError('invalid JUMP') // 'invalid jump destination'
 * toGethError('stack underflow', { opcode: 0x01, opName: 'ADD', stackLen: 1 }) // 'stack underflow (1 <=> 2)'
 */
import { gethBlsError } from './blsErrors.js'

/** What the adapter knows about the step that failed, when the error came from a step. */
export interface FailingStep {
  opcode: number
  /** geth's name of the opcode (e.g. 'INVALID', 'opcode 0xef not defined') */
  opName: string
  stackLen: number
  /** geth's minStack / maxStack of the opcode */
  minStack?: number
  maxStack?: number
  /** EIP-2200 active and SSTORE with gas left <= 2300: geth wraps the sentry error */
  sstoreSentry?: boolean
}

const SIMPLE: Record<string, string> = {
  revert: 'execution reverted',
  'out of gas': 'out of gas',
  'code store out of gas': 'contract creation code storage out of gas',
  'code size to deposit exceeds maximum code size': 'max code size exceeded',
  'invalid JUMP': 'invalid jump destination',
  'static state change': 'write protection',
  'create collision': 'contract address collision',
  'insufficient balance': 'insufficient balance for transfer',
  'value overflow': 'gas uint64 overflow',
  'invalid bytecode deployed': 'invalid code: must not begin with 0xef',
  'initcode exceeds max initcode size': 'max initcode size exceeded',
  'value out of range': 'return data out of bounds',
  'refund exhausted': 'refund counter below zero',
}

/**
 * op-geth's errors for an input over an OP fork's size limit of a precompile (core/vm/contracts.go:
 * errBadPairingInputSize from Granite, errBLS12381MaxG1Size/MaxG2Size/MaxPairingSize from
 * Isthmus), raised once the precompile's gas is paid, before the input is read.
 */
export const OP_INPUT_LIMIT_ERRORS = {
  bn254Pairing: 'bad elliptic curve pairing input size',
  g1Msm: 'g1 msm input size exceeds maximum',
  g2Msm: 'g2 msm input size exceeds maximum',
  blsPairing: 'pairing input size exceeds maximum',
} as const
const OP_LIMIT_TEXTS: ReadonlySet<string> = new Set(Object.values(OP_INPUT_LIMIT_ERRORS))

export const GETH_ERRORS = {
  reverted: 'execution reverted',
  outOfGas: 'out of gas',
  insufficientBalance: 'insufficient balance for transfer',
  depth: 'max call depth exceeded',
  collision: 'contract address collision',
} as const

/**
 * Maps an ethereumjs error string (EVMError.error) to geth's. Unknown strings pass through
 * unchanged (precompile failures such as 'invalid input length' already read the same).
 */
export function toGethError(rawError: string, step?: FailingStep): string {
  // ethereumjs appends the location to some errors: 'invalid JUMP at 0x<codehash>/0x<address>:<pc>'
  const ejsError = rawError.replace(/ at 0x[0-9a-fA-F]*\/0x[0-9a-fA-F]*:\d+$/, '')
  if (ejsError === 'out of gas' && step?.sstoreSentry) return 'out of gas: not enough gas for reentrancy sentry'
  if (ejsError === 'stack underflow' && step) {
    return `stack underflow (${step.stackLen} <=> ${step.minStack ?? step.stackLen + 1})`
  }
  if (ejsError === 'stack overflow' && step) {
    return `stack limit reached ${step.stackLen} (${step.maxStack ?? 1024})`
  }
  if (ejsError === 'invalid opcode') return `invalid opcode: ${step?.opName ?? 'INVALID'}`
  if (ejsError === 'value out of range' && step) {
    // RETURNDATACOPY out of bounds reads as ethereumjs' OUT_OF_RANGE; other ops hitting a value
    // range check (memory offsets beyond uint64) are geth's gas overflow → out of gas
    return step.opcode === 0x3e ? 'return data out of bounds' : 'out of gas'
  }
  return SIMPLE[ejsError] ?? ejsError
}

/**
 * Failures inside a precompile, in geth's words (core/vm/contracts.go). ethereumjs reports some
 * of them with generic strings, or as a revert where geth has a plain error (a precompile never
 * reverts in geth). `id` is the precompile's address as a number (0x09 = blake2f).
 */
export function toGethPrecompileError(id: number, input: Uint8Array, ejsError: string): string {
  const e = toGethError(ejsError)
  // an OP fork's input size limit is checked before the input's content
  if (OP_LIMIT_TEXTS.has(e)) return e
  // geth charges the gas before it reads the input: out of gas stays out of gas
  if (id >= 0x0b && id <= 0x11 && e !== GETH_ERRORS.outOfGas) {
    const bls = gethBlsError(id, input)
    if (bls) return bls
  }
  if (id === 0x09 && ejsError === 'value out of range') return input.length !== 213 ? 'invalid input length' : 'invalid final flag'
  if (id === 0x08 && ejsError === 'invalid input length') return 'bad elliptic curve pairing size'
  if (id >= 0x06 && id <= 0x08 && ejsError === 'revert') return 'bn256: malformed point'
  if (id === 0x0a && ejsError === 'kzg commitment does not match versioned hash') return 'mismatched versioned hash'
  // geth wraps go-kzg-4844's pairing-check failure: fmt.Errorf("%w: %v", errBlobVerifyKZGProof, err)
  if (id === 0x0a && ejsError === 'kzg proof invalid') return "error verifying kzg proof: can't verify opening proof"
  if (e === 'execution reverted') return 'precompile failed'
  return e
}
