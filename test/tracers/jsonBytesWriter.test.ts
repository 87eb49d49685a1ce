/**
 * The byte writer behind spilled struct logs: what it hands on, chunk after chunk, is the UTF-8
 * of the text the same calls describe, whatever the chunk size and however pieces straddle it.
 */
import { describe, expect, it } from 'vitest'
import { asciiBytes, JsonBytesWriter } from '../../tracers/jsonBytesWriter.js'

/** a writer with a chunk of `size` bytes, and what it handed on (copied: the chunk is reused) */
function collect(size: number) {
  const chunks: Buffer[] = []
  const w = new JsonBytesWriter((c) => void chunks.push(Buffer.from(c)), size)
  return { w, text: () => Buffer.concat(chunks).toString('utf8'), chunks }
}

const NUMBERS = [0, 1, 9, 10, 99, 100, 4_294_967_295, 30_000_000, Number.MAX_SAFE_INTEGER, 2 ** 53 + 2, -1, 1.5, 1e21, NaN, Infinity]
const TEXTS = ['', 'plain', '"quoted" \\ text', 'ünïcødé ✓ 𝄞', 'x'.repeat(100)]

describe('JsonBytesWriter', () => {
  // 64: the smallest chunk it takes (a smaller size is raised to it)
  for (const size of [1, 64, 65, 100, 2 ** 20]) {
    it(`hands on exactly the text written, in chunks of ${size} bytes`, () => {
      const { w, text } = collect(size)
      let expected = ''
      for (const n of NUMBERS) {
        w.uint(n)
        expected += JSON.stringify(n)
        w.byte(0x2c)
        expected += ','
      }
      for (const t of TEXTS) {
        w.text(JSON.stringify(t))
        expected += JSON.stringify(t)
        const b = asciiBytes(`[${t.length}]`)
        w.bytes(b)
        expected += `[${t.length}]`
      }
      // a piece larger than any chunk, and one just over the copy loop's size
      const big = asciiBytes('0123456789abcdef'.repeat(20))
      w.bytes(big)
      w.bytes(big.subarray(0, 65))
      expected += '0123456789abcdef'.repeat(20) + '0123456789abcdef'.repeat(20).slice(0, 65)
      // the start of a Buffer: short, long, longer than the chunk
      const from = Buffer.from('fedcba9876543210'.repeat(20), 'latin1')
      for (const length of [0, 3, 16, 17, 100, 320]) {
        w.prefix(from, length)
        expected += from.toString('latin1', 0, length)
      }
      expect(w.size).toBe(Buffer.byteLength(expected))
      w.flush()
      expect(text()).toBe(expected)
      expect(w.size).toBe(Buffer.byteLength(expected))
    })
  }

  it('gives its chunk to the next writer once closed, and refuses writes after', () => {
    const first = collect(2 ** 20)
    first.w.bytes(asciiBytes('"first"'))
    first.w.close()
    expect(first.text()).toBe('"first"')
    for (const write of [() => first.w.byte(0x2c), () => first.w.uint(7), () => first.w.text('x'), () => first.w.bytes(asciiBytes('x'.repeat(40)))])
      expect(write).toThrow(/after close/)
    // the next writer starts on the same chunk, empty
    const second = collect(2 ** 20)
    second.w.uint(42)
    second.w.flush()
    expect(second.text()).toBe('42')
    expect(first.text()).toBe('"first"')
  })

  it('hands nothing on until a chunk fills or it is flushed', () => {
    const { w, chunks } = collect(64)
    const piece = '0123456789'.repeat(4)
    w.bytes(asciiBytes(piece))
    expect(chunks).toHaveLength(0)
    w.bytes(asciiBytes(piece))
    expect(chunks.map(String)).toEqual([piece])
    w.flush()
    w.flush()
    expect(chunks.map(String)).toEqual([piece, piece])
  })
})
