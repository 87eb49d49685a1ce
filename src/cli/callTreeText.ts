/**
 * A decoded call tree (the engine's `callTree`) as `cast run` prints its traces: one line a frame
 * with the gas it used in brackets, `name::function(args)` when decoded, events as `emit …` and
 * child calls in the order they happened, each frame closed by `← [Return]`, `← [Stop]` or
 * `← [Revert] reason`; calls and events in colour only when `colour` (a terminal).
 */
import { getAddress } from 'viem'
import type { CallTreeFrame, InternalFrame } from './callTreeTypes.js'

const ESC = '\u001b['
type Paint = (code: number, s: string) => string
const painter = (colour: boolean): Paint => (colour ? (code, s) => `${ESC}${code}m${s}${ESC}0m` : (_code, s) => s)
const GREEN = 32
const RED = 31
const CYAN = 36
const YELLOW = 33

/** a decoded value as cast prints one: numbers and addresses bare, lists in brackets */
export function valueText(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(valueText).join(', ')}]`
  if (v !== null && typeof v === 'object') return `(${Object.values(v).map(valueText).join(', ')})`
  // addresses checksummed, as cast prints them
  return typeof v === 'string' && /^0x[0-9a-fA-F]{40}$/.test(v) ? getAddress(v) : String(v)
}

const argsText = (args: Record<string, unknown> | undefined) => (args ? Object.values(args).map(valueText).join(', ') : '')

/** the frame's own line, after the tree's prefix */
export function frameTitle(f: CallTreeFrame, paint: Paint = painter(false)): string {
  const failed = f.error !== undefined
  // as forge names a frame: the contract whose sources are known, else a label or token symbol, else the address
  const who = f.contract?.name ?? f.labels?.to ?? (f.to ? getAddress(f.to) : '0x')
  const tint = failed ? RED : GREEN
  const gas = `[${BigInt(f.gasUsed)}]`
  if (f.type === 'CREATE' || f.type === 'CREATE2')
    return `${gas} ${paint(YELLOW, '→ new')} ${paint(tint, `${f.contract?.name ?? '<unknown>'}@${f.to ?? '0x'}`)}`
  const fn = f.function
    ? `${f.function.name}(${argsText(f.function.args)})`
    : f.input.length > 2
      ? `${f.input.slice(0, 10)}(${f.input.length > 10 ? `0x${f.input.slice(10)}` : ''})`
      : 'fallback()'
  const value = f.value && BigInt(f.value) > 0n ? `{value: ${BigInt(f.value)}}` : ''
  const kind = f.type === 'STATICCALL' ? ' [staticcall]' : f.type === 'DELEGATECALL' ? ' [delegatecall]' : f.type === 'CALLCODE' ? ' [callcode]' : ''
  return `${gas} ${paint(tint, `${who}::${fn}`)}${value}${paint(YELLOW, kind)}`
}

/** the line that closes a frame */
export function returnText(f: CallTreeFrame): string {
  if (f.error !== undefined) return `← [Revert] ${f.revert?.reason ?? f.revertReason ?? f.error}`
  if (f.result && Object.keys(f.result).length) return `← [Return] ${argsText(f.result)}`
  if (!f.output || f.output === '0x') return f.type === 'CREATE' || f.type === 'CREATE2' ? '← [Return] 0 bytes of code' : '← [Stop]'
  return f.type === 'CREATE' || f.type === 'CREATE2' ? `← [Return] ${(f.output.length - 2) / 2} bytes of code` : `← [Return] ${f.output}`
}

function eventText(log: NonNullable<CallTreeFrame['logs']>[number], paint: Paint): string {
  if (log.decoded)
    return `emit ${paint(CYAN, log.decoded.name)}(${Object.entries(log.decoded.args)
      .map(([k, v]) => `${/^\d+$/.test(k) ? '' : `${k}: `}${valueText(v)}`)
      .join(', ')})`
  return `emit ${paint(CYAN, 'unknown')}(topics: [${log.topics.join(', ')}], data: ${log.data})`
}

type Child = { call: CallTreeFrame | InternalFrame } | { log: NonNullable<CallTreeFrame['logs']>[number] }

/** the frame's children in the order they happened: events by `position` (calls made before each) among the calls */
function children(f: CallTreeFrame | InternalFrame): Child[] {
  const calls = f.calls ?? []
  const out: Child[] = []
  let next = 0
  for (const log of f.logs ?? []) {
    const before = Number(BigInt(log.position))
    while (next < before && next < calls.length) out.push({ call: calls[next++]! })
    out.push({ log })
  }
  while (next < calls.length) out.push({ call: calls[next++]! })
  return out
}

/** an internal function's line, as forge --decode-internal prints it: `Contract::function(args)` */
function internalTitle(f: InternalFrame, paint: Paint): string {
  return `[${BigInt(f.gasUsed)}] ${paint(f.reverted ? RED : GREEN, `${f.function.contract}::${f.function.name}(${argsText(f.function.args)})`)}`
}

function internalClosing(f: InternalFrame): string {
  if (f.reverted) return '← [Revert]'
  return f.function.result && Object.keys(f.function.result).length ? `← ${argsText(f.function.result)}` : '← '
}

function frameLines(f: CallTreeFrame | InternalFrame, head: string, rest: string, paint: Paint, lines: string[]): void {
  if (f.type === 'INTERNAL') {
    lines.push(head + internalTitle(f, paint))
    for (const item of children(f)) {
      if ('call' in item) frameLines(item.call, `${rest}├─ `, `${rest}│   `, paint, lines)
      else lines.push(`${rest}├─ ${eventText(item.log, paint)}`)
    }
    lines.push(`${rest}└─ ${internalClosing(f)}`)
    return
  }
  lines.push(head + frameTitle(f, paint))
  // every child opens with ├─: the closing line is always the frame's last
  for (const item of children(f)) {
    if ('call' in item) frameLines(item.call, `${rest}├─ `, `${rest}│   `, paint, lines)
    else lines.push(`${rest}├─ ${eventText(item.log, paint)}`)
  }
  const closing = returnText(f)
  lines.push(`${rest}└─ ${f.error !== undefined ? paint(RED, closing) : closing}`)
}

/** the whole tree, cast's `Traces:` block */
export function callTreeText(root: CallTreeFrame, colour: boolean): string {
  const lines: string[] = []
  frameLines(root, '  ', '    ', painter(colour), lines)
  return `Traces:\n${lines.join('\n')}\n`
}
