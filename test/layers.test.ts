/**
 * The import directions of the code, checked from the sources themselves so they stay as
 * docs/architecture.md draws them:
 *   src/ → host/ → engine/ → tracers/, and nothing back up;
 *   src/ reaches the engine through its public surface alone (engine/index.ts, engine/types.ts);
 *   host/ (threads, processes, the cache stores, spill files' owners) sits between them;
 *   no engine feature folder (simulation, trace, accessList, reads) imports another: the way into a run
 *   they share lives in engine/run/;
 *   the JSON-RPC transport (engine/rpc/) sits below state and chain sources: state never imports
 *   a chain source, and the transport imports neither.
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
const violations = (rule: (from: string, to: string) => boolean) =>
  edges.filter((e) => rule(e.from, e.to)).map((e) => `${e.from} → ${e.to}`)

/** what src/ may import of the engine: its facade and its public types */
const ENGINE_SURFACE = ['engine/index.js', 'engine/types.js']

const FEATURES = ['engine/simulation', 'engine/trace', 'engine/accessList', 'engine/reads']

describe('import directions', () => {
  it('reads a real graph (the check is not vacuous)', () => {
    expect(edges.length).toBeGreaterThan(200)
    expect(edges.some((e) => inside(e.from, 'src') && inside(e.to, 'engine'))).toBe(true)
    expect(edges.some((e) => inside(e.from, 'engine') && inside(e.to, 'tracers'))).toBe(true)
    expect(edges.some((e) => inside(e.from, 'src') && inside(e.to, 'host'))).toBe(true)
    expect(edges.some((e) => inside(e.from, 'host') && inside(e.to, 'engine'))).toBe(true)
    // the surface rule below sees the paths it allows, so it cannot pass by matching nothing
    expect(edges.some((e) => inside(e.from, 'src') && e.to === 'engine/types.js')).toBe(true)
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

  it('no engine feature folder imports another', () => {
    expect(
      violations((from, to) => FEATURES.some((a) => inside(from, a) && FEATURES.some((b) => b !== a && inside(to, b)))),
    ).toEqual([])
  })

  it('only the facade, the workers and the front door reach the feature folders', () => {
    const shared = ['engine/run', 'engine/state', 'engine/chain', 'engine/rpc', 'engine/execution', 'engine/cache', 'engine/decoding', 'engine/observers', 'engine/devnet']
    expect(violations((from, to) => shared.some((s) => inside(from, s)) && FEATURES.some((f) => inside(to, f)))).toEqual([])
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

  it('the lower folders speak the vocabulary (engine/vocabulary.ts), never the public surface', () => {
    const lower = ['engine/run', 'engine/state', 'engine/chain', 'engine/rpc', 'engine/execution', 'engine/cache', 'engine/decoding', 'engine/observers', 'engine/devnet', 'engine/spill']
    expect(violations((from, to) => lower.some((l) => inside(from, l)) && to === 'engine/types.js')).toEqual([])
    expect(violations((from, to) => from === 'engine/vocabulary.ts' && to !== 'engine/blockRef.js')).toEqual([])
  })

  it('the JSON-RPC transport sits below state and the chain sources', () => {
    expect(violations((from, to) => inside(from, 'engine/state') && inside(to, 'engine/chain'))).toEqual([])
    expect(violations((from, to) => inside(from, 'engine/rpc') && (inside(to, 'engine/state') || inside(to, 'engine/chain')))).toEqual([])
  })
})
