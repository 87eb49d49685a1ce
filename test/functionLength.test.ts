/**
 * Functions read top-down in small named steps: no function of src/, host/ or engine/ spans more
 * than MAX_LINES lines, unless a comment directly above it, starting `// long:`, says why it is
 * best left whole (a table, a hot loop). Every function-like node with a body is measured
 * (declarations, function expressions, arrows, methods, constructors, accessors) by the lines
 * from its first token to its last; for a function expression or an arrow, the comment may also
 * stand above the statement or property that holds it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const MAX_LINES = 80

/**
 * Long functions in files others are rewriting for the typed engine address: each entry must
 * still name a long function (a stale entry fails), so the list only shrinks.
 */
const ALLOWED: { file: string; name: string; reason: string }[] = []

interface Measured {
  file: string
  /** 1-based line of the function's first token */
  line: number
  name: string
  lines: number
  /** a `// long:` comment stands directly above it (or above what holds it) */
  excused: boolean
}

function sources(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(join(root, path)).isDirectory()) return sources(path)
    return name.endsWith('.ts') ? [path] : []
  })
}

type FunctionNode = ts.FunctionLikeDeclaration

function isMeasured(node: ts.Node): node is FunctionNode {
  return (
    (ts.isFunctionDeclaration(node) ||
      ts.isFunctionExpression(node) ||
      ts.isArrowFunction(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isConstructorDeclaration(node) ||
      ts.isGetAccessorDeclaration(node) ||
      ts.isSetAccessorDeclaration(node)) &&
    node.body !== undefined
  )
}

/**
 * What holds a function expression or an arrow: the statement, class member or object property
 * it is part of (`const f = () => {}`, `x: function () {}`, `app.get('/', async (c) => {})`).
 */
function holderOf(node: FunctionNode): ts.Node | undefined {
  if (!ts.isFunctionExpression(node) && !ts.isArrowFunction(node)) return undefined
  for (let p: ts.Node | undefined = node.parent; p; p = p.parent) {
    if (ts.isStatement(p) || ts.isClassElement(p) || ts.isObjectLiteralElement(p)) return p
  }
  return undefined
}

function nameOf(node: FunctionNode, sf: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor'
  const own = node.name?.getText(sf)
  if (own) return ts.isGetAccessorDeclaration(node) ? `get ${own}` : ts.isSetAccessorDeclaration(node) ? `set ${own}` : own
  const p = node.parent
  if (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) return p.name.getText(sf)
  if (ts.isBinaryExpression(p)) return p.left.getText(sf)
  return '<anonymous>'
}

const isCommentLine = (line: string) => /^\s*(\/\/|\/\*|\*)/.test(line)

/** the comment lines directly above line `index` (0-based) hold one starting `// long:` and saying why */
function longCommentAbove(lines: string[], index: number): boolean {
  for (let i = index - 1; i >= 0 && isCommentLine(lines[i]!); i--) if (/^\s*\/\/ long: \S/.test(lines[i]!)) return true
  return false
}

export function measure(file: string, text: string): Measured[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const lines = text.split('\n')
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line
  const out: Measured[] = []
  const visit = (node: ts.Node) => {
    if (isMeasured(node)) {
      const start = lineOf(node.getStart(sf))
      const holder = holderOf(node)
      const excused = longCommentAbove(lines, start) || (holder !== undefined && longCommentAbove(lines, lineOf(holder.getStart(sf))))
      out.push({ file, line: start + 1, name: nameOf(node, sf), lines: lineOf(node.getEnd()) - start + 1, excused })
    }
    ts.forEachChild(node, visit)
  }
  visit(sf)
  return out
}

const measured = ['src', 'host', 'engine'].flatMap(sources).flatMap((file) => measure(file, readFileSync(join(root, file), 'utf8')))
const tooLong = measured.filter((f) => f.lines > MAX_LINES && !f.excused)
const allowed = (f: Measured) => ALLOWED.some((a) => a.file === f.file && a.name === f.name)

/** a function of `n` lines: its head, `n - 2` statements, its closing brace */
const synthetic = (n: number, above = '') =>
  `${above}export function big(): void {\n${Array.from({ length: n - 2 }, (_, i) => `  const v${i} = ${i}`).join('\n')}\n}\n`

describe('function length', () => {
  it('measures every function (the check is not vacuous)', () => {
    expect(measured.length).toBeGreaterThan(500)
    expect(measured.some((f) => f.name === 'constructor')).toBe(true)
    expect(measured.some((f) => f.name === '<anonymous>')).toBe(true)
    // a function one line too long is flagged; the same with a `// long:` comment above is not
    const [flagged] = measure('synthetic.ts', synthetic(MAX_LINES + 1))
    expect(flagged).toMatchObject({ name: 'big', lines: MAX_LINES + 1, excused: false })
    const [fits] = measure('synthetic.ts', synthetic(MAX_LINES))
    expect(fits!.lines).toBe(MAX_LINES)
    const [excused] = measure('synthetic.ts', synthetic(MAX_LINES + 1, '// long: a table read as one\n/** what it is */\n'))
    expect(excused).toMatchObject({ lines: MAX_LINES + 1, excused: true })
    // an arrow is excused by a comment above the statement that holds it
    const arrow = `// long: one table\nexport const table = () => ({\n${Array.from({ length: MAX_LINES }, (_, i) => `  k${i}: ${i},`).join('\n')}\n})\n`
    expect(measure('synthetic.ts', arrow)).toMatchObject([{ name: 'table', excused: true }])
    expect(measure('synthetic.ts', arrow.replace('// long: one table\n', ''))).toMatchObject([{ name: 'table', excused: false }])
  })

  it(`no function spans more than ${MAX_LINES} lines without a "// long:" comment saying why`, () => {
    const listed = tooLong.filter((f) => !allowed(f)).map((f) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`)
    expect(listed).toEqual([])
  })

  it('every allowed long function is still long (the list only shrinks)', () => {
    const stale = ALLOWED.filter((a) => !tooLong.some((f) => f.file === a.file && f.name === a.name))
    expect(stale).toEqual([])
  })
})
