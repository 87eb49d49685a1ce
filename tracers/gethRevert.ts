/**
 * geth's reading of revert data (accounts/abi UnpackRevert): `Error(string)` gives its string,
 * `Panic(uint256)` geth's fixed text for the code. The one panic table of the project: the
 * callTracer's `revertReason` and the simulation's reasons both read it.
 */
import type { Hex } from 'viem'
import { toQuantity } from './evmWords.js'

/** Error(string) and Panic(uint256), as the 4 bytes lead revert data */
export const ERROR_SELECTOR = '08c379a0'
export const PANIC_SELECTOR = '4e487b71'

/** geth accounts/abi panicReasons */
export const PANIC_REASONS: Record<number, string> = {
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

/** geth's text for a Panic(uint256) code */
export function panicReason(code: bigint): string {
  const known = code <= 0xffn ? PANIC_REASONS[Number(code)] : undefined
  return known ?? `unknown panic code: ${toQuantity(code)}`
}

/** geth accounts/abi UnpackRevert: Error(string) and Panic(uint256); undefined when it fails */
export function unpackRevert(output: Hex): string | undefined {
  const body = output.slice(2).toLowerCase()
  if (body.length < 8) return undefined
  const selector = body.slice(0, 8)
  const data = body.slice(8)
  const word = (i: number): bigint | undefined => {
    const w = data.slice(i * 64, i * 64 + 64)
    return w.length === 64 ? BigInt(`0x${w}`) : undefined
  }
  if (selector === PANIC_SELECTOR) {
    const code = word(0)
    if (code === undefined) return undefined
    return panicReason(code)
  }
  if (selector !== ERROR_SELECTOR) return undefined
  const byteLen = data.length / 2
  const offset = word(0)
  if (offset === undefined || offset + 32n > BigInt(byteLen)) return undefined
  const lenWord = data.slice(Number(offset) * 2, Number(offset) * 2 + 64)
  if (lenWord.length < 64) return undefined
  const len = BigInt(`0x${lenWord}`)
  const start = Number(offset) + 32
  if (BigInt(start) + len > BigInt(byteLen)) return undefined
  const hex = data.slice(start * 2, start * 2 + Number(len) * 2)
  const bytes = new Uint8Array(hex.length / 2)
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16)
  return new TextDecoder().decode(bytes)
}
