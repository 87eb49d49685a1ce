/**
 * The import directions of the code, checked from the sources themselves so they stay as
 * docs/architecture.md draws them:
 *   src/ → host/ → engine/ → tracers/, and nothing back up;
 *   src/ reaches the engine through its public surface alone (engine/index.ts, engine/types.ts);
 *   host/ (threads, processes, the cache stores, spill files' owners) sits between them;
 *   inside engine/: the facade (its root files) → operations/ (one folder an operation, none
 *   importing another) → the parts every operation shares: run/ (the one way into a run),
 *   chains/ (where state and blocks come from), wallet/, execution/, decoding/, sources/ (what the
 *   service knows of contracts' source), state/ →
 *   upstream/ (the JSON-RPC client of the upstream node) → platform/ (hardforks, hashing, curves,
 *   the block grammar, spill files), each only downwards; the shared parts speak the vocabulary
 *   (engine/vocabulary.ts), never the public surface.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

function sources(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(join(root, path)).isDirectory()) return sources(path)
    return name.endsWith('.ts') ? [path] : []
  })
}

/** every relative module a file imports or re-exports, as a path from the root */
function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8')
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]!)
  return specifiers.map((s) => relative(root, resolve(root, dirname(file), s)))
}

const edges = ['src', 'host', 'engine', 'tracers'].flatMap((dir) => sources(dir).flatMap((file) => importsOf(file).map((to) => ({ from: file, to }))))
const inside = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`)
const violations = (rule: (from: string, to: string) => boolean) => edges.filter((e) => rule(e.from, e.to)).map((e) => `${e.from} → ${e.to}`)

/** what src/ may import of the engine: its facade and its public types */
const ENGINE_SURFACE = ['engine/index.js', 'engine/types.js']

/** the operations: each folder answers one family of the facade's methods */
const OPERATIONS = sources('engine/operations')
  .map((f) => f.split('/').slice(0, 3).join('/'))
  .filter((f, i, all) => all.indexOf(f) === i)

/** the parts of the engine below the operations, the order each may import downwards in */
const SHARED = [
  'engine/run',
  'engine/chains',
  'engine/wallet',
  'engine/execution',
  'engine/decoding',
  'engine/sources',
  'engine/state',
  'engine/upstream',
  'engine/platform',
]

describe('import directions', () => {
  it('reads a real graph (the check is not vacuous)', () => {
    expect(edges.length).toBeGreaterThan(200)
    expect(edges.some((e) => inside(e.from, 'src') && inside(e.to, 'engine'))).toBe(true)
    expect(edges.some((e) => inside(e.from, 'engine') && inside(e.to, 'tracers'))).toBe(true)
    expect(edges.some((e) => inside(e.from, 'src') && inside(e.to, 'host'))).toBe(true)
    expect(edges.some((e) => inside(e.from, 'host') && inside(e.to, 'engine'))).toBe(true)
    // the surface rule below sees the paths it allows, so it cannot pass by matching nothing
    expect(edges.some((e) => inside(e.from, 'src') && e.to === 'engine/types.js')).toBe(true)
    expect(OPERATIONS.length).toBeGreaterThanOrEqual(6)
    for (const part of SHARED) expect(sources(part).length, part).toBeGreaterThan(0)
  })

  it('tracers/ import nothing above them', () => {
    expect(violations((from, to) => inside(from, 'tracers') && !inside(to, 'tracers'))).toEqual([])
  })

  it('engine/ never imports the HTTP layer nor the host', () => {
    expect(violations((from, to) => inside(from, 'engine') && (inside(to, 'src') || inside(to, 'host')))).toEqual([])
  })

  it('host/ never imports the HTTP layer', () => {
    expect(violations((from, to) => inside(from, 'host') && inside(to, 'src'))).toEqual([])
  })

  it('src/ imports nothing of engine/ but its facade and its types', () => {
    expect(violations((from, to) => inside(from, 'src') && inside(to, 'engine') && !ENGINE_SURFACE.includes(to))).toEqual([])
  })

  it('no operation imports another', () => {
    expect(violations((from, to) => OPERATIONS.some((a) => inside(from, a) && OPERATIONS.some((b) => b !== a && inside(to, b))))).toEqual([])
  })

  it('only the facade reaches the operations', () => {
    expect(violations((from, to) => SHARED.some((s) => inside(from, s)) && inside(to, 'engine/operations'))).toEqual([])
  })

  it('each shared part imports only the parts below it', () => {
    const rank = (path: string) => SHARED.findIndex((s) => inside(path, s))
    // two edges go up, each for a reason: a writable fork's miner opens its block's environment
    // and system calls as every run does (run/), and execution runs by the rules of the chain's
    // kind (chains/rules.ts: deposits, L1 fees); the rest point strictly down
    const peers = new Set(['engine/chains>engine/run', 'engine/execution>engine/chains'])
    expect(
      violations((from, to) => {
        const a = rank(from)
        const b = rank(to)
        return a >= 0 && b >= 0 && b < a && !peers.has(`${SHARED[a]}>${SHARED[b]}`)
      }),
    ).toEqual([])
  })

  it('no import loop runs through the public surface: nothing engine/types.ts reaches imports it back', () => {
    const next = (file: string) => edges.filter((e) => e.from === file).map((e) => e.to.replace(/\.js$/, '.ts'))
    const reached = new Set<string>()
    const todo = next('engine/types.ts')
    while (todo.length > 0) {
      const file = todo.pop()!
      if (reached.has(file)) continue
      reached.add(file)
      todo.push(...next(file))
    }
    expect(reached.has('engine/vocabulary.ts')).toBe(true)
    expect([...reached].filter((file) => next(file).includes('engine/types.ts'))).toEqual([])
  })

  it('the shared parts speak the vocabulary (engine/vocabulary.ts), never the public surface', () => {
    expect(violations((from, to) => SHARED.some((l) => inside(from, l)) && (to === 'engine/types.js' || to === 'engine/index.js'))).toEqual([])
    expect(violations((from, to) => from === 'engine/vocabulary.ts' && to !== 'engine/platform/blockRef.js')).toEqual([])
  })

  it('the upstream client sits below state and the chain sources, the platform below everything', () => {
    expect(violations((from, to) => inside(from, 'engine/state') && inside(to, 'engine/chains'))).toEqual([])
    expect(violations((from, to) => inside(from, 'engine/upstream') && (inside(to, 'engine/state') || inside(to, 'engine/chains')))).toEqual([])
    expect(violations((from, to) => inside(from, 'engine/platform') && inside(to, 'engine') && !inside(to, 'engine/platform'))).toEqual([])
  })
})
