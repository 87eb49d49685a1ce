/**
 * Reads the JSON body and validates it against a zod schema, turning every failure into a
 * VALIDATION_ERROR whose `details.issues` name the path (`params.calls[1].to`, interface §1).
 *
 * @example
 * const body = validate(simulationRequest, await readJson(c))
 */
import type { Context } from 'hono'
import type { z } from '@hono/zod-openapi'
import { MAX_JSON_DEPTH, scanJson } from './jsonShape.js'
import { ApiError, formatPath, joinPath, validationError, type ValidationIssue } from '../errors/apiError.js'

/**
 * The body's JSON value. `ifEmpty`: what an empty (or all-whitespace) body reads as, for a route
 * whose every field is optional (POST /v1/forks); without it an empty body is refused. `maxDepth`:
 * a route whose body nests deeper by nature (a build-info's ASTs) and is read without recursion.
 */
export async function readJson(c: Context, opts: { ifEmpty?: unknown; maxDepth?: number } = {}): Promise<unknown> {
  let text: string
  try {
    text = await c.req.text()
  } catch (err) {
    if (err instanceof ApiError) throw err
    throw validationError([{ path: '', message: 'the request body could not be read' }])
  }
  if (text.trim() === '' && 'ifEmpty' in opts) return opts.ifEmpty
  if (text.trim() === '') throw validationError([{ path: '', message: 'the request body is empty; expected JSON' }])
  let body: unknown
  try {
    body = JSON.parse(text) as unknown
  } catch (err) {
    throw validationError([{ path: '', message: `malformed JSON: ${(err as Error).message}` }], 'send a JSON body with "Content-Type: application/json"')
  }
  // a reader that recurses (schema validation) would overflow the stack on a body nested 10,000 deep
  const maxDepth = opts.maxDepth ?? MAX_JSON_DEPTH
  if (scanJson(text).depth > maxDepth) throw validationError([{ path: '', message: `the body is nested more than ${maxDepth} levels deep` }])
  const proto = protoKeyPath(body)
  if (proto !== undefined) throw validationError([{ path: proto, message: 'key "__proto__" is not accepted' }])
  return body
}

/**
 * Where the body has a `__proto__` key, if anywhere. JSON.parse keeps it as an ordinary key, but
 * copying it into a fresh object (as schema validation does) sets a prototype instead of a key:
 * the entry — even an invalid one — would vanish without a word. Nothing sent is dropped silently,
 * so it is refused like any other bad key. Iterative: a deeply nested body cannot overflow the stack.
 */
function protoKeyPath(body: unknown): string | undefined {
  const stack: { value: unknown; path: PropertyKey[] }[] = [{ value: body, path: [] }]
  while (stack.length) {
    const { value, path } = stack.pop()!
    if (value === null || typeof value !== 'object') continue
    if (!Array.isArray(value) && Object.hasOwn(value, '__proto__')) return formatPath([...path, '__proto__'])
    for (const [k, v] of Object.entries(value))
      if (v !== null && typeof v === 'object') stack.push({ value: v, path: [...path, Array.isArray(value) ? Number(k) : k] })
  }
  return undefined
}

export function validate<S extends z.ZodType>(schema: S, value: unknown, prefix = ''): z.output<S> {
  const result = schema.safeParse(value)
  if (result.success) return result.data
  throw validationError(toIssues(result.error.issues as unknown as ZodIssueLike[], prefix))
}

interface ZodIssueLike {
  code: string
  path: PropertyKey[]
  message: string
  keys?: string[]
  errors?: ZodIssueLike[][]
}

export function toIssues(issues: ZodIssueLike[], prefix = ''): ValidationIssue[] {
  return issues.map((issue) => {
    if (issue.code === 'invalid_union' && issue.errors?.length) {
      // report the branch that got furthest: its deepest issue says what is actually wrong
      const best = issue.errors
        .map((branch) => branch[0])
        .filter((i): i is ZodIssueLike => i !== undefined)
        .sort((a, b) => b.path.length - a.path.length)[0]
      if (best && best.path.length > 0) return toIssues([{ ...best, path: [...issue.path, ...best.path] }], prefix)[0]!
    }
    if (issue.code === 'unrecognized_keys' && issue.keys?.length) {
      return { path: joinPath(prefix, formatPath([...issue.path, issue.keys[0]!])), message: `unknown key ${issue.keys.map((k) => `"${k}"`).join(', ')}` }
    }
    return { path: joinPath(prefix, formatPath(issue.path)), message: issue.message }
  })
}
