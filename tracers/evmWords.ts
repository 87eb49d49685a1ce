/**
 * evmWords: the conversions between EVM stack words, storage words, memory and bytes that the
 * tracers and the tracing adapter share (geth's common.Hash / common.Address of a word).
 */
import type { Address, Hex } from 'viem'

const EMPTY = new Uint8Array(0)

const MASK160 = (1n << 160n) - 1n

/**
 * A non-negative integer as a JSON-RPC quantity (geth's hexutil.Big, hexutil.Uint64): `0x` and its
 * minimal lowercase hex digits, `0x0` for zero. Every layer's one definition (the engine's is
 * engine/platform/quantity.ts, re-exporting this one); a plain concatenation, cheap enough for the
 * per-step paths.
 */
export const toQuantity = (n: bigint | number): Hex => `0x${n.toString(16)}`

/** Bytes20() of a stack word: the low 160 bits as a lowercase address */
export const wordToAddress = (w: bigint): Address => `0x${(w & MASK160).toString(16).padStart(40, '0')}` as Address

/** Bytes32() of a stack word: 0x + 64 hex digits */
export const wordToHash = (w: bigint): Hex => `0x${w.toString(16).padStart(64, '0')}` as Hex

/** a 0x-hex storage word of any length as geth prints a common.Hash: lowercase, 32 bytes */
export const normalizeWord = (v: Hex): Hex => `0x${v.slice(2).toLowerCase().replace(/^0+/, '').padStart(64, '0')}` as Hex

/**
 * No gas limit pays for more memory than this (expansion cost is quadratic: 64 MiB ≈ 2^43 gas),
 * so a larger range means the op is about to fail for gas: read nothing rather than allocate it.
 */
const MAX_READ = 64n * 1024n * 1024n

/** memory[offset:offset+size], zero-filled past the end (as the EVM reads it) */
export function readMemory(memory: Uint8Array, offset: bigint, size: bigint): Uint8Array {
  if (size === 0n || size > MAX_READ || offset > MAX_READ) return EMPTY
  const out = new Uint8Array(Number(size))
  const start = Number(offset)
  if (start < memory.length) out.set(memory.subarray(start, Math.min(memory.length, start + out.length)))
  return out
}

/** minimal big-endian bytes (0 → empty), as RLP wants a nonce */
export function bigToBytes(n: bigint): Uint8Array {
  if (n === 0n) return EMPTY
  let h = n.toString(16)
  if (h.length % 2) h = `0${h}`
  return hexBytes(h)
}

export function bigTo32(n: bigint): Uint8Array {
  return hexBytes(n.toString(16).padStart(64, '0'))
}

export function hexBytes(h: string): Uint8Array {
  const s = h.startsWith('0x') ? h.slice(2) : h
  const out = new Uint8Array(s.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.slice(i * 2, i * 2 + 2), 16)
  return out
}
