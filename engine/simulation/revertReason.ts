/**
 * revertReason: a human reason for revert data (decisions.md §4 `revertReason`).
 *
 * - `Error(string)` (0x08c379a0) → the string;
 * - `Panic(uint256)` (0x4e487b71) → geth's fixed text (accounts/abi UnpackRevert, geth-reference
 *   §1.3), e.g. `arithmetic underflow or overflow`, else `unknown panic code: 0x..`;
 * - a custom error → decoded with an ABI from `customErrorAbis` when one knows the selector
 *   (`InsufficientBalance(account=0x…, balance=1, needed=2)`), else the 4-byte selector;
 * - empty or shorter than 4 bytes → undefined (a bare `revert()`).
 *
 * @example
 * revertReason('0x08c379a0…') // 'DEMO: allowance exceeded'
 */
import { decodeAbiParameters, decodeErrorResult, hexToBigInt, size, slice, toHex, type Abi, type Hex } from 'viem'

const ERROR_SELECTOR = '0x08c379a0'
const PANIC_SELECTOR = '0x4e487b71'

/** geth accounts/abi panicReasons */
const PANIC_REASONS: Record<number, string> = {
  0x00: 'generic panic',
  0x01: 'assert(false)',
  0x11: 'arithmetic underflow or overflow',
  0x12: 'division or modulo by zero',
  0x21: 'enum overflow',
  0x22: 'invalid encoded storage byte array accessed',
  0x31: 'out-of-bounds array access; popping on an empty array',
  0x32: 'out-of-bounds access of an array or bytesN',
  0x41: 'out of memory',
  0x51: 'uninitialized function',
}

/**
 * ABIs whose custom errors we can name. None is bundled yet; a caller (or a future ABI registry)
 * registers them here. The devnet's demo token registers its own.
 */
const customErrorAbis: Abi[] = []

export function registerErrorAbi(abi: Abi): void {
  const errors = abi.filter((e) => e.type === 'error')
  if (errors.length) customErrorAbis.push(errors)
}

export function panicReason(code: bigint): string {
  const known = code <= 0xffn ? PANIC_REASONS[Number(code)] : undefined
  return known ?? `unknown panic code: ${toHex(code)}`
}

export function revertReason(data: Hex | undefined): string | undefined {
  if (!data || size(data) < 4) return undefined
  const selector = slice(data, 0, 4).toLowerCase()
  try {
    if (selector === ERROR_SELECTOR) return decodeAbiParameters([{ type: 'string' }], slice(data, 4))[0]
    if (selector === PANIC_SELECTOR) return panicReason(hexToBigInt(slice(data, 4, 36)))
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
