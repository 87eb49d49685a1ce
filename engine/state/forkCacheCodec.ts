/**
 * Keys and compact binary values of the fork-state cache (CacheStore entries).
 *
 * Keys: `fs:<chainId>:<block>:a:<addr>` (account), `fs:<chainId>:<block>:s:<addr><slot>` (slot),
 * `fs:<chainId>:c:<codeHash>` (code, content-addressed: shared by every block and account),
 * `fs:<chainId>:<block>:l:<call digest>` (a prefetch access list). Hex without 0x, block in hex.
 *
 * Values:
 * - account: `[flags][len][nonce…][len][balance…]([codeHash 32])`; flags bit0 = exists,
 *   bit1 = has code. A missing account is the single byte 0x00.
 * - slot: `[0x00][value…]` (minimal bytes; the marker keeps a zero value non-empty).
 * - code: the raw bytes.
 */
import { bigIntToUnpaddedBytes, bytesToBigInt } from '@ethereumjs/util'
import type { Hex } from 'viem'
import { isEmptyCodeHash, KECCAK256_NULL } from './stateKeys.js'
import type { SourceAccount } from './types.js'

const strip = (h: string) => (h.startsWith('0x') ? h.slice(2) : h)

export const forkKeys = {
  account: (chainId: number, block: bigint, address: Hex) => `fs:${chainId}:${block.toString(16)}:a:${strip(address)}`,
  storage: (chainId: number, block: bigint, address: Hex, slot: Hex) => `fs:${chainId}:${block.toString(16)}:s:${strip(address)}${strip(slot)}`,
  code: (chainId: number, codeHash: Hex) => `fs:${chainId}:c:${strip(codeHash)}`,
  accessList: (chainId: number, block: bigint, digest: string) => `fs:${chainId}:${block.toString(16)}:l:${digest}`,
}

export function encodeAccount(a: SourceAccount | undefined): Uint8Array {
  if (!a) return new Uint8Array([0])
  const nonce = bigIntToUnpaddedBytes(a.nonce)
  const balance = bigIntToUnpaddedBytes(a.balance)
  const hasCode = !isEmptyCodeHash(a.codeHash)
  const out = new Uint8Array(3 + nonce.length + balance.length + (hasCode ? 32 : 0))
  out[0] = 1 | (hasCode ? 2 : 0)
  out[1] = nonce.length
  out.set(nonce, 2)
  out[2 + nonce.length] = balance.length
  out.set(balance, 3 + nonce.length)
  if (hasCode) out.set(a.codeHash, 3 + nonce.length + balance.length)
  return out
}

/** undefined result with ok=false: the bytes are not an account record (treat as a miss) */
export function decodeAccount(b: Uint8Array): { ok: boolean; account?: SourceAccount } {
  if (b.length === 1 && b[0] === 0) return { ok: true }
  const flags = b[0]
  if (b.length < 3 || flags === undefined || !(flags & 1)) return { ok: false }
  const nl = b[1]!
  const bl = b[2 + nl]
  if (bl === undefined) return { ok: false }
  const end = 3 + nl + bl
  const hasCode = (flags & 2) !== 0
  if (b.length !== end + (hasCode ? 32 : 0)) return { ok: false }
  return {
    ok: true,
    account: {
      nonce: nl ? bytesToBigInt(b.subarray(2, 2 + nl)) : 0n,
      balance: bl ? bytesToBigInt(b.subarray(3 + nl, end)) : 0n,
      codeHash: hasCode ? b.slice(end, end + 32) : KECCAK256_NULL,
    },
  }
}

export function encodeSlot(value: Uint8Array): Uint8Array {
  const out = new Uint8Array(1 + value.length)
  out.set(value, 1)
  return out
}

export function decodeSlot(b: Uint8Array): Uint8Array | undefined {
  if (b.length < 1 || b.length > 33 || b[0] !== 0) return undefined
  return b.slice(1)
}
