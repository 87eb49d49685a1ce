/**
 * revertReason: a human reason for revert data (interface §4 `revertReason`).
 *
 * - `Error(string)` (0x08c379a0) → the string;
 * - `Panic(uint256)` (0x4e487b71) → geth's fixed text (accounts/abi UnpackRevert, geth-reference
 *   §1.3), e.g. `arithmetic underflow or overflow`, else `unknown panic code: 0x..`;
 * - a custom error → decoded when its ABI is known (the ERC-6093 / OpenZeppelin v5 standard errors
 *   are bundled; more can be registered), e.g. `ERC20InsufficientBalance(0x…, 1, 2)`, else the
 *   4-byte selector;
 * - empty or shorter than 4 bytes → undefined (a bare `revert()`).
 *
 * @example
 * revertReason('0x08c379a0…') // 'DEMO: allowance exceeded'
 */
import { decodeAbiParameters, decodeErrorResult, hexToBigInt, parseAbi, size, slice, type Abi, type Hex } from 'viem'
import { ERROR_SELECTOR, PANIC_SELECTOR, panicReason } from '../../../tracers/gethRevert.js'
import { STANDARD_ERROR_SIGNATURES } from '../../decoding/standardErrors.js'

export { panicReason } from '../../../tracers/gethRevert.js'

/** Custom errors every decoder should know (engine/decoding/standardErrors.ts) */
const STANDARD_ERRORS = parseAbi(STANDARD_ERROR_SIGNATURES)

/**
 * ABIs whose custom errors we can name: the standard set above, plus what a caller (or a future
 * ABI registry) registers. The devnet registers its demo token's.
 */
const customErrorAbis: Abi[] = [STANDARD_ERRORS]

export function registerErrorAbi(abi: Abi): void {
  const errors = abi.filter((e) => e.type === 'error')
  if (errors.length) customErrorAbis.push(errors)
}

export function revertReason(data: Hex | undefined): string | undefined {
  if (!data || size(data) < 4) return undefined
  const selector = slice(data, 0, 4).toLowerCase()
  try {
    if (selector === `0x${ERROR_SELECTOR}`) return decodeAbiParameters([{ type: 'string' }], slice(data, 4))[0]
    if (selector === `0x${PANIC_SELECTOR}`) return panicReason(hexToBigInt(slice(data, 4, 36)))
  } catch {
    // malformed payload behind a known selector: fall through to the selector
  }
  for (const abi of customErrorAbis) {
    try {
      const { errorName, args } = decodeErrorResult({ abi, data })
      const shown = (args ?? []).map((a) => (typeof a === 'string' ? a.toLowerCase() : String(a)))
      return `${errorName}(${shown.join(', ')})`
    } catch {
      // not this ABI's error
    }
  }
  return selector
}
