/**
 * fastLz: the length FastLZ (level 1) compresses a byte string to, without compressing it — the
 * size estimate OP-stack chains price calldata by from Fjord on (specs: protocol/fjord/exec-engine
 * "Fees", `flzCompressLen`; solady's LibZip is the on-chain original the GasPriceOracle uses).
 * The arithmetic follows the 32-bit integers of the reference ports (op-geth rollup_cost.go,
 * op-revm fast_lz.rs), so the answer is bit for bit theirs.
 *
 * @example
 * flzCompressLen(new Uint8Array(1000)) // 21
 */

const HASH_SIZE = 8192
const MAX_DISTANCE = 8192

export function flzCompressLen(input: Uint8Array): number {
  const length = input.length
  const limit = length < 13 ? 0 : length - 13
  const table = new Uint32Array(HASH_SIZE)
  let idx = 2
  let anchor = 0
  let size = 0

  while (idx < limit) {
    let ref = 0
    let distance = 0
    let seq = 0
    // find the next 3-byte sequence seen before, within reach
    for (;;) {
      seq = read24(input, idx)
      const h = hash24(seq)
      ref = table[h]!
      table[h] = idx
      distance = idx - ref
      if (idx >= limit) break
      idx++
      if (distance < MAX_DISTANCE && seq === read24(input, ref)) break
    }
    if (idx >= limit) break
    idx--
    if (idx > anchor) size = literalsLen(idx - anchor, size)
    const len = matchLen(input, ref + 3, idx + 3, limit + 9)
    size = matchCost(len, size)
    idx = remember(table, input, idx + len)
    idx = remember(table, input, idx)
    anchor = idx
  }
  return literalsLen(length - anchor, size)
}

function literalsLen(run: number, size: number): number {
  let out = size + 0x21 * Math.floor(run / 0x20)
  const rest = run % 0x20
  if (rest !== 0) out += rest + 1
  return out
}

/** bytes equal from p and q on, up to r - q; one past the first difference when there is one */
function matchLen(input: Uint8Array, p: number, q: number, r: number): number {
  const max = r - q
  for (let i = 0; i < max; i++) if (input[p + i] !== input[q + i]) return i + 1
  return max
}

function matchCost(len: number, size: number): number {
  const l = len - 1
  const out = size + 3 * Math.floor(l / 262)
  return l % 262 >= 6 ? out + 3 : out + 2
}

function remember(table: Uint32Array, input: Uint8Array, idx: number): number {
  table[hash24(read24(input, idx))] = idx
  return idx + 1
}

/** (v * 2654435769) >> 19, masked to 13 bits: the bits kept lie in the product's low 32 */
function hash24(v: number): number {
  return (Math.imul(v, 0x9e3779b9) >>> 19) & 0x1fff
}

function read24(input: Uint8Array, idx: number): number {
  return (input[idx] ?? 0) | ((input[idx + 1] ?? 0) << 8) | ((input[idx + 2] ?? 0) << 16)
}
