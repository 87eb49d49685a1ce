/**
 * JSON-RPC quantities have one encoder, toQuantity (tracers/evmWords.ts, re-exported by
 * engine/platform/quantity.ts): minimal lowercase hex, `0x0` for zero, as geth's hexutil prints a
 * Big or a Uint64. The second part reads the sources of src/, host/, engine/ and tracers/: every
 * other `toString(16)` there is a fixed-width word, address or byte string (padded), or one of the
 * exceptions listed below with the reason it does not use the helper.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { toQuantity } from '../../../engine/platform/quantity.js'
import { toQuantity as tracersToQuantity } from '../../../tracers/evmWords.js'

describe('toQuantity', () => {
  it('prints the edge values as geth does', () => {
    expect(toQuantity(0n)).toBe('0x0')
    expect(toQuantity(0)).toBe('0x0')
    expect(toQuantity(1n)).toBe('0x1')
    expect(toQuantity(1)).toBe('0x1')
    expect(toQuantity(16)).toBe('0x10')
    expect(toQuantity(255n)).toBe('0xff')
    expect(toQuantity(Number.MAX_SAFE_INTEGER)).toBe('0x1fffffffffffff')
    expect(toQuantity((1n << 64n) - 1n)).toBe(`0x${'f'.repeat(16)}`)
    expect(toQuantity((1n << 256n) - 1n)).toBe(`0x${'f'.repeat(64)}`)
    expect(toQuantity(1n << 255n)).toBe(`0x8${'0'.repeat(63)}`)
  })

  it("agrees with viem's toHex on non-negative integers", () => {
    for (const n of [0n, 1n, 9n, 10n, 0xabcdefn, 1n << 100n, (1n << 256n) - 1n]) expect(toQuantity(n)).toBe(toHex(n))
  })

  it("is the tracers' one function, re-exported by the engine", () => {
    expect(toQuantity).toBe(tracersToQuantity)
  })
})

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')

function sources(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(join(root, path)).isDirectory()) return sources(path)
    return /\.(ts|js)$/.test(name) ? [path] : []
  })
}

/** the `toString(16)` that are not a padded word, address or byte, each with why it is not toQuantity */
const EXCEPTIONS: { file?: string; line: RegExp; why: string }[] = [
  { file: 'tracers/evmWords.ts', line: /^export const toQuantity = /, why: 'the definition' },
  { file: 'tracers/evmWords.ts', line: /^ {2}let h = n\.toString\(16\)$/, why: 'bigToBytes: bytes (padded to an even length), not a quantity' },
  {
    file: 'tracers/structLogBytes.ts',
    line: /^ {2}const h = v\.toString\(16\)$/,
    why: 'quotedWord: a stack word written straight into the JSON bytes (`"0x…"`), per step, no string built',
  },
  {
    file: 'tracers/structLogger.ts',
    line: /printedByPosition\(\(v\) => v\.toString\(16\)\)/,
    why: 'the digits of a stack word, cached per stack position; the step writer adds the quotes and 0x',
  },
  { line: /`fs:\$\{chainId\}:\$\{\w+\.toString\(16\)\}:/, why: 'a cache key: its block number in hex digits, no 0x' },
  { file: 'engine/state/forkPrefetch.ts', line: /\|\$\{\(c\.value \?\? 0n\)\.toString\(16\)\}\|/, why: "a prefetch call's identity, compared, never sent" },
  { file: 'src/ui/app.js', line: /BigInt\(text\)\.toString\(16\)/, why: 'the browser UI, served as it is: it imports nothing of the server' },
]

describe('one encoder', () => {
  const files = ['src', 'host', 'engine', 'tracers'].flatMap(sources)
  const found = files.flatMap((file) =>
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .flatMap((text, i, lines) => {
        const uses = [...text.matchAll(/toString\(16\)/g)]
        // a padded or upper-cased print is a fixed-width word, address, byte or geth's UNKNOWN(0xNN), never a quantity
        const rest = (at: number) => text.slice(at + 'toString(16)'.length) + (lines[i + 1] ?? '')
        return uses.filter((m) => !/^\s*\.(padStart|toUpperCase)\(/.test(rest(m.index))).map(() => ({ file, text: text.trim(), line: text }))
      }),
  )

  it('reads the sources (the check is not vacuous)', () => {
    expect(files.length).toBeGreaterThan(200)
    expect(found.some((f) => f.file === 'tracers/evmWords.ts' && f.text.startsWith('export const toQuantity'))).toBe(true)
  })

  it('no `toString(16)` builds a quantity outside toQuantity but the listed exceptions', () => {
    const unexplained = found.filter((f) => !EXCEPTIONS.some((e) => (e.file === undefined || e.file === f.file) && e.line.test(f.line)))
    expect(unexplained.map((f) => `${f.file}: ${f.text}`)).toEqual([])
  })

  it('every exception still matches something (a stale entry is removed)', () => {
    const stale = EXCEPTIONS.filter((e) => !found.some((f) => (e.file === undefined || e.file === f.file) && e.line.test(f.line)))
    expect(stale.map((e) => e.why)).toEqual([])
  })
})
