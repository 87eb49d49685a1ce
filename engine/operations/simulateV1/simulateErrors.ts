/**
 * The ways an eth_simulateV1 request is refused as a whole, named after the execution-apis
 * spec's errors (src/eth/execute.yaml). The engine throws an EngineError carrying the name in
 * `details.simulateError`; the JSON-RPC handler turns the name into the spec's code. The message
 * is geth's (internal/ethapi/simulate.go, errors.go), so clients matching on text keep working.
 *
 * @example
 * throw simulateError('blockNumberOrder', 'block numbers must be in order: 144 <= 154')
 */
import { getAddress } from 'viem'
import { EngineError, isEngineError } from '../../platform/errors.js'

export type SimulateErrorKind =
  | 'nonceTooLow'
  | 'nonceTooHigh'
  | 'feeCapTooLow'
  | 'intrinsicGas'
  | 'insufficientFunds'
  | 'blockGasLimitReached'
  | 'blockNumberOrder'
  | 'blockTimestampOrder'
  | 'movePrecompileSelf'
  | 'movePrecompileDuplicate'
  | 'senderNotEoa'
  | 'maxInitCodeSize'
  | 'clientLimitExceeded'
  | 'invalidParams'
  /** geth's -32000: a refusal the spec gives no code of its own (e.g. moving a non-precompile) */
  | 'invalidRequest'
  /** geth's invalidTxError default: a transaction error with no code of its own */
  | 'internal'

export function simulateError(kind: SimulateErrorKind, message: string): EngineError {
  return new EngineError('VALIDATION_ERROR', message, { simulateError: kind })
}

/** geth prints addresses in messages checksummed (common.Address.Hex) */
const checksummed = (message: string) => message.replace(/0x[0-9a-fA-F]{40}\b/g, (a) => getAddress(a))

/**
 * A call the execution layer refused before running it, as geth's `txValidationError` classifies
 * it, worded as geth's applyMessageWithEVM wraps it: `err: <reason> (supplied gas N)`.
 */
export function callRejection(e: unknown, suppliedGas: bigint): EngineError | undefined {
  if (!isEngineError(e) || (e.code !== 'VALIDATION_ERROR' && e.code !== 'INSUFFICIENT_GAS')) return undefined
  const rule = e.details?.rule
  const msg = e.message
  let kind: SimulateErrorKind = 'internal'
  if (rule === 'nonce') kind = msg.startsWith('nonce too low') ? 'nonceTooLow' : 'nonceTooHigh'
  else if (rule === 'baseFee') kind = 'feeCapTooLow'
  else if (rule === 'fees') kind = 'invalidParams'
  else if (rule === 'funds') kind = 'insufficientFunds'
  else if (rule === 'blockGasLimit') kind = 'blockGasLimitReached'
  else if (msg.startsWith('intrinsic gas too low')) kind = 'intrinsicGas'
  else if (/initcode size|max initcode|initcode.*exceed/i.test(msg)) kind = 'maxInitCodeSize'
  return simulateError(kind, `err: ${checksummed(msg)} (supplied gas ${suppliedGas})`)
}
