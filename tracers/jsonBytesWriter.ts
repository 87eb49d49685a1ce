/**
 * JSON text written straight as UTF-8 bytes into one reused chunk, handed on whenever it fills:
 * for output made of millions of small pieces (a spilled struct log, structLogBytes.ts), where
 * building strings and encoding them costs more than the pieces themselves. Constant pieces are
 * bytes made once (`asciiBytes`), numbers go in as ASCII digits, other text as UTF-8.
 *
 * The writer knows nothing of where the bytes go: `out` receives each full chunk and must consume
 * it before it returns (the chunk is written over afterwards).
 *
 * @example
 * const w = new JsonBytesWriter((chunk) => writeSync(fd, chunk))
 * w.bytes(asciiBytes('{"pc":')); w.uint(42); w.byte(0x7d); w.close()
 */

/** the bytes of an ASCII constant (keys, punctuation), made once */
export function asciiBytes(s: string): Uint8Array {
  const b = new Uint8Array(s.length)
  for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i)
  return b
}

/**
 * Below this many bytes a copy loop costs less than TypedArray.set (measured on Node 20: the loop
 * takes about 3 ns a byte, set about 40 ns whatever the length)
 */
const SMALL_COPY = 16
/** the smallest chunk: a number's digits (at most 16 for a safe integer) always fit an empty one */
const MIN_CHUNK = 64
const DEFAULT_CHUNK = 2 ** 20
const INT32_LIMIT = 2 ** 31

/**
 * Chunks given back by finished writers, for the next ones. A fresh megabyte per trace is memory
 * outside V8's heap that V8 counts towards its next full collection: on a worker whose heap holds
 * 45 MB, every eighth struct log set off a mark-compact that freed under 1 MB (`--trace-gc`).
 */
const spareChunks: Buffer[] = []
const MAX_SPARE_CHUNKS = 4

/** a closed writer's chunk and output: a write then throws instead of landing in a reused chunk */
const EMPTY = Buffer.alloc(0)
const CLOSED = (): void => {
  throw new Error('JsonBytesWriter: written after close()')
}

export class JsonBytesWriter {
  private buf: Buffer
  private pos = 0
  /** bytes handed to `out` so far */
  private flushed = 0

  /** `chunkBytes`: raised to MIN_CHUNK */
  constructor(
    private out: (chunk: Uint8Array) => void,
    chunkBytes = DEFAULT_CHUNK,
  ) {
    const spare = chunkBytes === DEFAULT_CHUNK ? spareChunks.pop() : undefined
    this.buf = spare ?? Buffer.allocUnsafe(Math.max(MIN_CHUNK, chunkBytes))
  }

  /**
   * Hands on what is left and gives the chunk back for another writer: nothing may be written
   * after this. A writer that is dropped instead (its run failed) leaves its chunk to the GC.
   */
  close(): void {
    this.flush()
    const buf = this.buf
    this.buf = EMPTY
    this.out = CLOSED
    if (buf.length === DEFAULT_CHUNK && spareChunks.length < MAX_SPARE_CHUNKS) spareChunks.push(buf)
  }

  /** every byte written so far, handed on or not */
  get size(): number {
    return this.flushed + this.pos
  }

  /** hands on what the chunk holds */
  flush(): void {
    if (this.pos === 0) return
    const n = this.pos
    this.pos = 0
    this.flushed += n
    this.out(this.buf.subarray(0, n))
  }

  /** room for `n` more bytes in the chunk (callers write at most a few dozen bytes this way) */
  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return
    this.flush()
    if (n > this.buf.length) CLOSED()
  }

  byte(c: number): void {
    this.room(1)
    this.buf[this.pos++] = c
  }

  /** bytes made earlier (a key, a printed value); a piece larger than the chunk goes on by itself */
  bytes(b: Uint8Array): void {
    this.prefix(b, b.length)
  }

  /** the first `length` bytes of `from` (a kept buffer of which only the start is current) */
  prefix(from: Uint8Array, length: number): void {
    if (length <= SMALL_COPY) {
      this.room(length)
      const buf = this.buf
      let p = this.pos
      for (let i = 0; i < length; i++) buf[p++] = from[i]!
      this.pos = p
      return
    }
    const piece = length === from.length ? from : from.subarray(0, length)
    if (this.pos + length > this.buf.length) {
      this.flush()
      if (length > this.buf.length) {
        this.flushed += length
        return this.out(piece)
      }
    }
    this.buf.set(piece, this.pos)
    this.pos += length
  }

  /** a non-negative safe integer in the digits JSON.stringify prints; anything else as JSON.stringify prints it */
  uint(n: number): void {
    if (!(n >= 0 && n <= Number.MAX_SAFE_INTEGER && Math.floor(n) === n)) return this.text(JSON.stringify(n))
    // below 2^31 (every pc, depth, gas and cost of a real trace) in int32 arithmetic: half the time
    if (n < INT32_LIMIT) return this.int32(n)
    let digits = 1
    for (let m = n; m >= 10; m = Math.floor(m / 10)) digits++
    this.room(digits)
    const buf = this.buf
    let p = this.pos + digits
    this.pos = p
    do {
      const q = Math.floor(n / 10)
      buf[--p] = 48 + (n - q * 10)
      n = q
    } while (n > 0)
  }

  /** a non-negative integer below 2^31 */
  private int32(n: number): void {
    const digits =
      n < 10
        ? 1
        : n < 100
          ? 2
          : n < 1000
            ? 3
            : n < 10000
              ? 4
              : n < 100000
                ? 5
                : n < 1000000
                  ? 6
                  : n < 10000000
                    ? 7
                    : n < 100000000
                      ? 8
                      : n < 1000000000
                        ? 9
                        : 10
    this.room(digits)
    const buf = this.buf
    let p = this.pos + digits
    this.pos = p
    do {
      const q = (n / 10) | 0
      buf[--p] = 48 + (n - q * 10)
      n = q
    } while (n > 0)
  }

  /** any text, as UTF-8 (for the rare parts of a log: errors, storage, return data) */
  text(s: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit
    if (this.pos + s.length * 3 > this.buf.length) {
      this.flush()
      if (s.length * 3 > this.buf.length) return this.bytes(Buffer.from(s, 'utf8'))
    }
    this.pos += this.buf.write(s, this.pos)
  }
}
