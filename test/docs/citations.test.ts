/**
 * Every reference the code and the docs make to a section of the project's own pages points at a
 * heading that exists: `decisions §N` (docs/decisions.md), `geth-reference §N.M`
 * (docs/geth-reference.md), and every `docs/<page>.md` named. References to specification files
 * that live outside the repository are refused: the repository restates what it relies on.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const FOLDERS = ['src', 'engine', 'host', 'tracers', 'test', 'bench', 'scripts', 'config', 'patches', 'docs']
const TEXT = /\.(ts|mts|mjs|js|json|toml|md|patch|html|css)$/

function files(dir: string): string[] {
  if (!existsSync(join(root, dir))) return []
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name)
    if (name === 'node_modules' || path === 'test/fixtures') return []
    if (statSync(join(root, path)).isDirectory()) return files(path)
    return TEXT.test(name) ? [path] : []
  })
}

const scanned = [...FOLDERS.flatMap(files), 'README.md']

interface Citation {
  file: string
  page: 'decisions' | 'geth-reference'
  section: string
}

/** `decisions §4, §5`, `decisions.md §2-§7`, `geth-reference.md §1 and §4`, across a comment's line break */
export function citationsIn(file: string, text: string): Citation[] {
  const out: Citation[] = []
  const joiner = String.raw`(?:\s*(?:,|and|or|–|-|to)\s*(?:\*\s*)?)`
  const sections = String.raw`((?:§\s?\d+(?:\.\d+)*${joiner}?)+)`
  const pattern = new RegExp(String.raw`(decisions|geth-reference)(?:\.md)?[\s*]*${sections}`, 'g')
  for (const m of text.matchAll(pattern)) {
    for (const s of m[2]!.matchAll(/§\s?(\d+(?:\.\d+)*)/g)) {
      out.push({ file, page: m[1] as Citation['page'], section: s[1]!.replace(/\.$/, '') })
    }
  }
  return out
}

export function headingsOf(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/^#{1,6} §(\d+(?:\.\d+)*)\s/gm)].map((m) => m[1]!))
}

const headings = {
  decisions: headingsOf(readFileSync(join(root, 'docs/decisions.md'), 'utf8')),
  'geth-reference': headingsOf(readFileSync(join(root, 'docs/geth-reference.md'), 'utf8')),
}
const texts = scanned.map((file) => ({ file, text: readFileSync(join(root, file), 'utf8') }))
const citations = texts.flatMap(({ file, text }) => citationsIn(file, text))

describe('citations of the project’s pages', () => {
  it('finds the citations it checks (the check is not vacuous)', () => {
    expect(citations.filter((c) => c.page === 'decisions').length).toBeGreaterThan(60)
    expect(citations.filter((c) => c.page === 'geth-reference').length).toBeGreaterThan(10)
    expect(headings.decisions.size).toBeGreaterThanOrEqual(12)
  })

  it('reads lists, ranges and line breaks of citations', () => {
    const found = (t: string) => citationsIn('x', t).map((c) => `${c.page} ${c.section}`)
    expect(found('(decisions §4, §5)')).toEqual(['decisions 4', 'decisions 5'])
    expect(found('(decisions §2, §4–§10)')).toEqual(['decisions 2', 'decisions 4', 'decisions 10'])
    expect(found('(decisions\n * §6 and §11)')).toEqual(['decisions 6', 'decisions 11'])
    expect(found('spelled out in docs/geth-reference.md §1.4.')).toEqual(['geth-reference 1.4'])
    expect(headingsOf('## §3 Call object\n### §5.12 Access lists\n§4 in text')).toEqual(new Set(['3', '5.12']))
  })

  it('every cited section is a heading of its page', () => {
    const missing = citations.filter((c) => !headings[c.page].has(c.section)).map((c) => `${c.file}: ${c.page} §${c.section}`)
    expect(missing).toEqual([])
  })

  it('every docs page named exists', () => {
    const named = texts.flatMap(({ file, text }) =>
      [...text.matchAll(/(?:^|[\s(`'"[/])(docs\/[\w.-]+\.(?:md|png))/g)].map((m) => ({ file, page: m[1]! })),
    )
    expect(named.length).toBeGreaterThan(5)
    expect(named.filter((n) => !existsSync(join(root, n.page))).map((n) => `${n.file}: ${n.page}`)).toEqual([])
  })

  it('every relative link of the README and the docs pages opens a file of the repository', () => {
    const pages = ['README.md', ...files('docs').filter((f) => f.endsWith('.md'))]
    const links = pages.flatMap((page) =>
      [...readFileSync(join(root, page), 'utf8').matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
        .map((m) => m[1]!)
        .filter((target) => !/^[a-z]+:/.test(target))
        .map((target) => ({ page, target, path: join(dirname(page), target) })),
    )
    expect(links.length).toBeGreaterThan(10)
    expect(links.filter((l) => !existsSync(join(root, l.path))).map((l) => `${l.page}: ${l.target}`)).toEqual([])
  })

  it('every path of the repository the README and the docs pages name exists', () => {
    const pages = ['README.md', ...files('docs').filter((f) => f.endsWith('.md'))]
    const paths = pages.flatMap((page) =>
      [
        // a folder or file in backticks, and a file named anywhere in the text
        ...readFileSync(join(root, page), 'utf8').matchAll(/`((?:src|engine|host|tracers|test|bench|scripts|config|patches|docs)\/[\w./+@-]*)`/g),
        ...readFileSync(join(root, page), 'utf8').matchAll(/(?<![\w/.-])((?:src|engine|host|tracers|test|bench|scripts|config|patches)\/[\w/+@-]+\.(?:ts|mjs|js|md|json|toml|patch))\b/g),
      ]
        .map((m) => m[1]!.replace(/\/$/, ''))
        .filter((path) => !path.includes('*') && !path.includes('<'))
        .map((path) => ({ page, path })),
    )
    expect(paths.length).toBeGreaterThan(40)
    expect(paths.filter((p) => !existsSync(join(root, p.path))).map((p) => `${p.page}: ${p.path}`)).toEqual([])
  })

  it('names no specification file that lives outside the repository', () => {
    const outside = texts
      .filter(({ file }) => file !== 'test/docs/citations.test.ts')
      .flatMap(({ file, text }) =>
        [...text.matchAll(/spec\/(?:decisions|geth-reference|interface-spec)\.md|interface-spec|\.\.\/shared\//g)].map((m) => `${file}: ${m[0]}`),
      )
    expect(outside).toEqual([])
  })
})
