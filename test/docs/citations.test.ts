/**
 * Every reference the code and the docs make to a section of the project's own pages points at a
 * heading that exists: `interface §N` (docs/interface.md), `geth-reference §N.M`
 * (docs/geth-reference.md), and every `docs/<page>.md` and decision record
 * `docs/decisions/NNNN-short-title.md` named. Every decision record has its title line, its
 * Context, Decision, Consequences and Tests sections, and names under Tests the test files that
 * hold it. References to specification files that live outside the repository are refused: the
 * repository restates what it relies on.
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
  page: 'interface' | 'geth-reference'
  section: string
}

/** `interface §4, §5`, `interface.md §2-§7`, `geth-reference.md §1 and §4`, across a comment's line break */
export function citationsIn(file: string, text: string): Citation[] {
  const out: Citation[] = []
  const joiner = String.raw`(?:\s*(?:,|and|or|–|-|to)\s*(?:\*\s*)?)`
  const sections = String.raw`((?:§\s?\d+(?:\.\d+)*${joiner}?)+)`
  const pattern = new RegExp(String.raw`(interface|geth-reference)(?:\.md)?[\s*]*${sections}`, 'g')
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
  interface: headingsOf(readFileSync(join(root, 'docs/interface.md'), 'utf8')),
  'geth-reference': headingsOf(readFileSync(join(root, 'docs/geth-reference.md'), 'utf8')),
}
const texts = scanned.map((file) => ({ file, text: readFileSync(join(root, file), 'utf8') }))
const citations = texts.flatMap(({ file, text }) => citationsIn(file, text))

describe('citations of the project’s pages', () => {
  it('finds the citations it checks (the check is not vacuous)', () => {
    expect(citations.filter((c) => c.page === 'interface').length).toBeGreaterThan(90)
    expect(citations.filter((c) => c.page === 'geth-reference').length).toBeGreaterThan(10)
    expect(headings.interface.size).toBeGreaterThanOrEqual(12)
  })

  it('reads lists, ranges and line breaks of citations', () => {
    const found = (t: string) => citationsIn('x', t).map((c) => `${c.page} ${c.section}`)
    expect(found('(interface §4, §5)')).toEqual(['interface 4', 'interface 5'])
    expect(found('(interface §2, §4–§10)')).toEqual(['interface 2', 'interface 4', 'interface 10'])
    expect(found('(interface\n * §6 and §11)')).toEqual(['interface 6', 'interface 11'])
    expect(found('(docs/interface.md §11)')).toEqual(['interface 11'])
    expect(found('spelled out in docs/geth-reference.md §1.4.')).toEqual(['geth-reference 1.4'])
    expect(found('export interface Citation {')).toEqual([])
    expect(headingsOf('## §3 Call object\n### §5.12 Access lists\n§4 in text')).toEqual(new Set(['3', '5.12']))
  })

  it('every cited section is a heading of its page', () => {
    const missing = citations.filter((c) => !headings[c.page].has(c.section)).map((c) => `${c.file}: ${c.page} §${c.section}`)
    expect(missing).toEqual([])
  })

  it('every docs page named exists', () => {
    const named = texts.flatMap(({ file, text }) => [...text.matchAll(/(?:^|[\s(`'"[/])(docs\/[\w.-]+\.(?:md|png))/g)].map((m) => ({ file, page: m[1]! })))
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
        ...readFileSync(join(root, page), 'utf8').matchAll(
          /(?<![\w/.-])((?:src|engine|host|tracers|test|bench|scripts|config|patches)\/[\w/+@-]+\.(?:ts|mjs|js|md|json|toml|patch))\b/g,
        ),
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

const RECORD = /^(\d{4})-[a-z0-9]+(?:-[a-z0-9]+)*\.md$/
const SECTIONS = ['Context', 'Decision', 'Consequences', 'Tests']
const records = readdirSync(join(root, 'docs/decisions'))
  .filter((name) => RECORD.test(name))
  .sort()
  .map((name) => ({ name, number: name.slice(0, 4), text: readFileSync(join(root, 'docs/decisions', name), 'utf8') }))

/** the `## Name` sections of a record, in order, with their text */
export function sectionsOf(markdown: string): { name: string; body: string }[] {
  return [...markdown.matchAll(/^## (.+)\n([\s\S]*?)(?=^## |(?![\s\S]))/gm)].map((m) => ({ name: m[1]!.trim(), body: m[2]!.trim() }))
}

/** the repository paths of test files a record's Tests section names, in backticks */
export function testsNamed(markdown: string): string[] {
  const tests = sectionsOf(markdown).find((s) => s.name === 'Tests')
  return tests ? [...tests.body.matchAll(/`(test\/[\w./+@-]+\.ts)`/g)].map((m) => m[1]!) : []
}

describe('decision records (docs/decisions/)', () => {
  it('finds the records and the citations of them (the checks are not vacuous)', () => {
    expect(records.length).toBeGreaterThanOrEqual(90)
    const cited = texts.flatMap(({ text }) => [...text.matchAll(/docs\/decisions\/\d{4}-[\w-]+\.md/g)])
    expect(cited.length).toBeGreaterThanOrEqual(8)
  })

  it('holds only numbered records, 0001 on without a gap, and their index', () => {
    const names = readdirSync(join(root, 'docs/decisions'))
    expect(names.filter((name) => name !== 'README.md' && !RECORD.test(name))).toEqual([])
    expect(records.map((r) => Number(r.number))).toEqual(records.map((_, i) => i + 1))
  })

  it('every record opens with its number and title, then Context, Decision, Consequences and Tests', () => {
    const wrong = records.flatMap(({ name, number, text }) => {
      const problems: string[] = []
      if (!new RegExp(`^# ${number} \\S.*\\n`).test(text)) problems.push(`${name}: the first line is not "# ${number} Title"`)
      const sections = sectionsOf(text)
      if (sections.map((s) => s.name).join() !== SECTIONS.join()) problems.push(`${name}: sections ${sections.map((s) => s.name).join(', ')}`)
      for (const s of sections) if (s.body === '') problems.push(`${name}: ${s.name} is empty`)
      return problems
    })
    expect(wrong).toEqual([])
  })

  it('every record names under Tests at least one test file, and every test path it names exists', () => {
    const wrong = records.flatMap(({ name, text }) => {
      const named = testsNamed(text)
      const missing = named.filter((path) => !existsSync(join(root, path))).map((path) => `${name}: ${path} does not exist`)
      const held = named.filter((path) => path.endsWith('.test.ts') && existsSync(join(root, path)))
      return held.length > 0 ? missing : [...missing, `${name}: no existing test file under ## Tests`]
    })
    expect(wrong).toEqual([])
  })

  it('reads the sections and the tests of a record', () => {
    const text = '# 0001 T\n\n## Context\n\nc\n\n## Decision\n\nd\n\n## Consequences\n\ne\n\n## Tests\n\n- `test/a.test.ts`: a\n- `test/b/c.test.ts`: b\n'
    expect(sectionsOf(text).map((s) => [s.name, s.body])).toEqual([
      ['Context', 'c'],
      ['Decision', 'd'],
      ['Consequences', 'e'],
      ['Tests', '- `test/a.test.ts`: a\n- `test/b/c.test.ts`: b'],
    ])
    expect(testsNamed(text)).toEqual(['test/a.test.ts', 'test/b/c.test.ts'])
  })

  it('the index lists every record once', () => {
    const index = readFileSync(join(root, 'docs/decisions/README.md'), 'utf8')
    const listed = [...index.matchAll(/^- \[\d{4}\]\((\d{4}-[\w-]+\.md)\)/gm)].map((m) => m[1]!)
    expect(listed).toEqual(records.map((r) => r.name))
  })

  it('every decision record named anywhere exists', () => {
    // `NNNN-short-title.md` is how a page describes the names, not a name
    const named = texts.flatMap(({ file, text }) =>
      [...text.matchAll(/docs\/decisions\/([\w.-]+\.md)/g)].filter((m) => !m[1]!.startsWith('NNNN-')).map((m) => ({ file, path: `docs/decisions/${m[1]!}` })),
    )
    expect(named.filter((n) => !existsSync(join(root, n.path))).map((n) => `${n.file}: ${n.path}`)).toEqual([])
  })

  it('no citation of the single decisions page remains (`decisions §N`, decisions.md)', () => {
    const old = texts
      .filter(({ file }) => file !== 'test/docs/citations.test.ts')
      .flatMap(({ file, text }) => [...text.matchAll(/\bdecisions(?:\.md)?[\s*]*§\s?\d|\bdecisions\.md\b/g)].map((m) => `${file}: ${m[0]}`))
    expect(old).toEqual([])
    expect(existsSync(join(root, 'docs', 'decisions.md'))).toBe(false)
  })
})
