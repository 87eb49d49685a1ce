/**
 * mulberry32: a small seeded PRNG (32-bit state, uniform in [0, 1)), so a generated test input is
 * the same on every run and a failure names the case that can be replayed.
 *
 * @example
 * const r = mulberry32(42); r() // 0.6011037519201636
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
