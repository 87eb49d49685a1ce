/**
 * What an in-process cache entry really costs, so a byte bound on an LRU is a bound on the heap.
 *
 * - Overhead: a Uint8Array value is a JS object, an ArrayBuffer and a backing store; the key is a
 *   string held by the LRU's map and list; TTL bookkeeping adds slots. Measured on Node 20 with
 *   lru-cache 11 (100k entries, 120-char keys, values of 1 B, 33 B and 2 KB: the process grew by
 *   about value + key + 1 KB per entry), where counting value + key alone understated small
 *   entries (a storage slot) about six times.
 * - Ownership: a view may share a much larger buffer than it shows — zlib's sync output is a
 *   slice of a 16 KiB chunk, a Redis reply a slice of a socket read — and keeping the view keeps
 *   that buffer. A stored value is copied to a buffer of its own when it does not own one.
 */

/** per-entry cost beyond the value's bytes and the key's characters, bytes */
export const ENTRY_OVERHEAD_BYTES = 1024

/** the bytes an entry of `key` holding `valueBytes` bytes costs in the heap */
export function entryBytes(key: string, valueBytes: number): number {
  return valueBytes + key.length + ENTRY_OVERHEAD_BYTES
}

/** `v` itself when it owns its whole buffer, else a compact copy */
export function ownBytes(v: Uint8Array): Uint8Array {
  return v.byteOffset === 0 && v.byteLength === v.buffer.byteLength ? v : v.slice()
}
