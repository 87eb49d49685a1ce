/**
 * The block grammar, written once (engine/platform/blockRef.ts): its parser with geth's words, the one
 * place `pending` becomes `latest`, and a count over the sources proving the block tags are
 * listed in exactly one place.
 */
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { BLOCK_TAGS, BlockRefError, isBlockTag, parseBlockRef, stateBlock } from '../../../engine/platform/blockRef.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')
const HASH = `0x${'ab'.repeat(32)}`

function sources(dir: string): string[] {
  if (!existsSync(join(root, dir))) return []
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(join(root, path)).isDirectory()) return sources(path)
    return name.endsWith('.ts') ? [path] : []
  })
}

const refusal = (v: unknown, opts = {}) => {
  try {
    parseBlockRef(v, opts)
  } catch (e) {
    expect(e).toBeInstanceOf(BlockRefError)
    return (e as Error).message
  }
  throw new Error(`expected ${JSON.stringify(v)} to be refused`)
}

describe('the block grammar', () => {
  it('reads tags, numbers, hashes and the EIP-1898 object; absent is latest', () => {
    for (const tag of BLOCK_TAGS) expect(parseBlockRef(tag)).toEqual({ tag })
    expect(parseBlockRef(undefined)).toEqual({ tag: 'latest' })
    expect(parseBlockRef('0x0')).toEqual({ number: 0n })
    expect(parseBlockRef('0xffffffffffffffff')).toEqual({ number: 2n ** 64n - 1n })
    expect(parseBlockRef(HASH.toUpperCase().replace('0X', '0x'))).toEqual({ hash: HASH })
    expect(parseBlockRef({ blockHash: HASH, requireCanonical: true })).toEqual({ hash: HASH })
    expect(parseBlockRef({ blockNumber: '0x10' })).toEqual({ number: 16n })
    expect(parseBlockRef({ blockNumber: 'safe' })).toEqual({ tag: 'safe' })
    expect(parseBlockRef('0x010', { leadingZeros: true, hash: false })).toEqual({ number: 16n })
    expect(isBlockTag('pending')).toBe(true)
    expect(isBlockTag('newest')).toBe(false)
  })

  it("refuses in geth's words (hexutil, rpc.BlockNumberOrHash)", () => {
    expect(refusal('0x010')).toBe('hex number with leading zero digits')
    expect(refusal('0x10000000000000000')).toBe('hex number > 64 bits')
    expect(refusal('10')).toBe('hex string without 0x prefix')
    expect(refusal('0x')).toBe('hex string "0x"')
    expect(refusal('0xzz')).toBe('invalid hex string')
    expect(refusal('newest')).toBe('hex string without 0x prefix')
    expect(refusal(4)).toBe('expected a block number or tag string, got number')
    expect(refusal({ blockHash: HASH, blockNumber: '0x1' })).toBe('cannot specify both BlockHash and BlockNumber, choose one or the other')
    expect(refusal({})).toBe('neither block number nor hash specified')
    expect(refusal({ blockHash: HASH, requireCanonical: 'yes' })).toBe('requireCanonical: expected a boolean')
    expect(refusal({ number: '0x1' })).toMatch(/^number: unknown field/)
    expect(refusal({ blockHash: '0x12' })).toMatch(/^expected a block hash/)
    expect(refusal({ blockHash: HASH }, { hash: false })).toMatch(/a block hash is not supported here/)
    expect(refusal(HASH, { hash: false })).toBe('hex number > 64 bits')
  })

  it('pending is latest, absent is latest, everything else is itself: in one place', () => {
    expect(stateBlock({ tag: 'pending' })).toEqual({ tag: 'latest' })
    expect(stateBlock(undefined)).toEqual({ tag: 'latest' })
    expect(stateBlock({ tag: 'safe' })).toEqual({ tag: 'safe' })
    expect(stateBlock({ hash: HASH as `0x${string}` })).toEqual({ hash: HASH })
    expect(stateBlock({ number: 3n })).toEqual({ number: 3n })
  })

  it('the block tags are listed once in the code', () => {
    // a list of tags: `safe` and `finalized` within one statement, outside comments
    const lists = ['src', 'engine', 'tracers', 'host'].flatMap(sources).flatMap((file) =>
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line))
        .filter((line) => /\bsafe\b.*\bfinalized\b|\bfinalized\b.*\bsafe\b/.test(line))
        .map((line) => `${file}: ${line.trim()}`),
    )
    expect(lists).toEqual([`engine/platform/blockRef.ts: export const BLOCK_TAGS = ['latest', 'earliest', 'safe', 'finalized', 'pending'] as const`])
  })

  it('`pending` becomes `latest` in one place', () => {
    const places = ['src', 'engine', 'tracers', 'host'].flatMap(sources).flatMap((file) =>
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line))
        .filter((line) => /'pending'/.test(line) && /'latest'/.test(line))
        .map((line) => `${file}: ${line.trim()}`),
    )
    expect(places).toEqual([
      `engine/platform/blockRef.ts: export const BLOCK_TAGS = ['latest', 'earliest', 'safe', 'finalized', 'pending'] as const`,
      `engine/platform/blockRef.ts: return !block || ('tag' in block && block.tag === 'pending') ? { tag: 'latest' } : block`,
    ])
  })
})
