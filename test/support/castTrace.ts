/**
 * The call tree `cast run --decode-internal` and `forge test -vvvv` print (revm-inspectors'
 * TraceWriter), read back into nodes; and forge's `Backtrace:` block. One parser for every
 * differential against Foundry.
 *
 * A line is `[gas] Contract::function(args)` (a call, or an internal call: told apart by how it
 * ends, `← [Return]`/`← [Revert]`/`← [Stop]` for a call, `← values` for an internal one),
 * `[gas] → new Name@0x…` (a creation), `emit Event(…)`, or `← …` (the end of its parent). Nesting
 * is by the column the text starts at: 2 for the top call, then 4 more per level.
 */

export interface CastNode {
  kind: 'call' | 'create' | 'internal' | 'emit'
  /** the gas in brackets (calls, creations, internal calls) */
  gas?: number
  /** `Vault::_credit`, `Vault::deposit`, `0x9fE4…::deposit`, `Vault` for `new Vault@…`, the event for an emit */
  name: string
  /** the printed arguments, split at top-level commas; undefined when none were printed */
  args?: string[]
  /** what follows `←`: `[Return] 995`, `[Revert] …`, or an internal call's values */
  ret?: string
  children: CastNode[]
}

interface Line {
  depth: number
  text: string
}

function lineOf(raw: string): Line | undefined {
  const m = /^([ │├└─]*)(.*)$/.exec(raw)
  if (!m || m[2] === '') return undefined
  const col = m[1]!.length
  return { depth: col <= 2 ? 0 : (col - 3) / 4, text: m[2]! }
}

/** splits `a, (b, c), "d, e"` at its top-level commas */
export function splitArgs(s: string): string[] {
  const out: string[] = []
  let depth = 0
  let quoted = false
  let cur = ''
  for (const ch of s) {
    if (ch === '"') quoted = !quoted
    if (!quoted && (ch === '(' || ch === '[')) depth++
    if (!quoted && (ch === ')' || ch === ']')) depth--
    if (!quoted && depth === 0 && ch === ',') {
      out.push(cur.trim())
      cur = ''
    } else cur += ch
  }
  if (cur.trim() !== '') out.push(cur.trim())
  return out
}

function nodeOf(text: string): CastNode | undefined {
  const call = /^\[(\d+)\] (.*)$/.exec(text)
  if (call) {
    const gas = Number(call[1])
    const rest = call[2]!
    const created = /^→ new (\S+?)@/.exec(rest)
    if (created) return { kind: 'create', gas, name: created[1]!, children: [] }
    const fn = /^([^(]+?)(?:\((.*)\))?(?: \[(?:delegatecall|staticcall|callcode)\])?(?: \{value: [^}]*\})?$/.exec(rest)
    if (!fn) return { kind: 'call', gas, name: rest, children: [] }
    return { kind: 'call', gas, name: fn[1]!, ...(fn[2] !== undefined && { args: splitArgs(fn[2]) }), children: [] }
  }
  const emit = /^emit (\w+)/.exec(text)
  if (emit) return { kind: 'emit', name: emit[1]!, children: [] }
  return undefined
}

/** the first call tree of a `Traces:` block */
export function parseCastTrace(output: string): CastNode {
  const lines = output.split('\n')
  const start = lines.findIndex((l) => l.startsWith('Traces:'))
  if (start < 0) throw new Error(`no Traces: block in\n${output}`)
  const stack: CastNode[] = []
  let root: CastNode | undefined
  for (const raw of lines.slice(start + 1)) {
    if (raw.trim() === '') {
      if (root) break
      continue
    }
    const line = lineOf(raw)
    if (!line) continue
    if (line.text.startsWith('←')) {
      const owner = stack[line.depth - 1]
      if (owner) {
        owner.ret = line.text.slice(1).trim()
        // an internal call ends with its values, a call with its status in brackets
        if (owner.kind === 'call' && !owner.ret.startsWith('[')) owner.kind = 'internal'
      }
      continue
    }
    const node = nodeOf(line.text)
    if (!node) continue
    stack.length = line.depth
    if (line.depth === 0) root = node
    else stack[line.depth - 1]?.children.push(node)
    stack[line.depth] = node
  }
  if (!root) throw new Error(`no call tree in\n${output}`)
  return root
}

export interface BacktraceLine {
  contract: string
  function?: string
  file?: string
  line?: number
  column?: number
}

/** forge's `Backtrace:` block: `at Contract.function (file:line:column)` per line, innermost first */
export function parseBacktrace(output: string): BacktraceLine[] | undefined {
  const lines = output.split('\n')
  const start = lines.findIndex((l) => l.trim() === 'Backtrace:')
  if (start < 0) return undefined
  const out: BacktraceLine[] = []
  for (const raw of lines.slice(start + 1)) {
    const m = /^\s+at ([^\s.(]+)(?:\.(\w+))?(?: \((.+?)(?::(\d+):(\d+))?\))?\s*$/.exec(raw)
    if (!m) break
    out.push({
      contract: m[1]!,
      ...(m[2] && { function: m[2] }),
      ...(m[3] && { file: m[3] }),
      ...(m[4] && { line: Number(m[4]), column: Number(m[5]) }),
    })
  }
  return out
}
