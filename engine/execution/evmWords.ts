/**
 * evmWords: small conversions between EVM stack words, memory and bytes for the tracing adapter.
 */
import type { Address } from 'viem'

const EMPTY = new Uint8Array(0)

/** Bytes20() of a stack word, lowercase */
export const wordToAddress = (w: bigint): Address => `0x${(w & ((1n << 160n) - 1n)).toString(16).padStart(40, '0')}` as Address

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
