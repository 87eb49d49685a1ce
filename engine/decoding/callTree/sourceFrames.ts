/**
 * The decoded call tree in the contracts' own source, where the service knows it: each frame whose
 * code is known gets `contract`, a failed one `source` (the line its last instruction maps to),
 * internal function calls become INTERNAL frames nested where they ran (with `internal: true`),
 * and the top frame of a reverted transaction a `backtrace`.
 *
 * The source facts come one per frame in the order frames began, the callTracer's preorder.
 */
import { toHex, type Abi, type Address, type Hex } from 'viem'
import type { CallFrameJson } from '../../../tracers/callTracer.js'
import { codeMap, sourcePlace } from '../../sources/sourceMap.js'
import type { FrameSourceFacts, InternalCall } from '../../sources/frameFacts.js'
import type { DecodedValue, Parameter } from '../../sources/internalFunction.js'
import type { BacktraceEntry, DecodedCallFrame, DecodedCallLog, DecodedInternalFrame, FrameSource } from './types.js'

type AnyFrame = DecodedCallFrame | DecodedInternalFrame

/** the external frames in the order they began (INTERNAL frames are not there yet) */
function preorder<F extends { calls?: unknown[] }>(root: F): F[] {
  const out: F[] = []
  const visit = (f: F) => {
    out.push(f)
    for (const c of f.calls ?? []) visit(c as F)
  }
  visit(root)
  return out
}

/** the ABIs of the frames whose code is known, by the address the code ran at (the caller's ABIs win) */
export function sourceAbis(root: CallFrameJson, facts: readonly FrameSourceFacts[]): Map<Address, Abi> {
  const out = new Map<Address, Abi>()
  preorder(root).forEach((f, i) => {
    const contract = facts[i]?.contract
    if (contract && f.to && contract.abi.length > 0) out.set(f.to.toLowerCase() as Address, contract.abi)
  })
  return out
}

/** the line a frame's last instruction maps to */
function stopPlace(facts: FrameSourceFacts): FrameSource | undefined {
  const contract = facts.contract
  if (!contract || facts.lastPc === undefined) return undefined
  const element = codeMap(facts.code === 'creation' ? contract.creation : contract.runtime).elementAt(facts.lastPc)
  const file = element && contract.sources[element.index]
  const place = element && sourcePlace(file, element.offset)
  return place && file ? { file: file.path, ...place } : undefined
}

/** adds contract, source, INTERNAL frames and the backtrace to a decoded tree (in place) */
export function addSources(root: DecodedCallFrame, facts: readonly FrameSourceFacts[], internal: boolean): DecodedCallFrame {
  const frames = preorder(root)
  const parents = new Map<DecodedCallFrame, DecodedCallFrame>()
  for (const f of frames) for (const c of (f.calls ?? []) as DecodedCallFrame[]) parents.set(c, f)
  const places = new Map<DecodedCallFrame, FrameSource | undefined>()
  frames.forEach((f, i) => {
    const fact = facts[i]
    if (!fact?.contract) return
    f.contract = { name: fact.contract.name, file: fact.contract.file }
    const place = stopPlace(fact)
    places.set(f, place)
    if (f.error !== undefined && place) f.source = place
  })
  if (root.error !== undefined && places.size > 0) root.backtrace = backtrace(frames, parents, places)
  if (internal) frames.forEach((f, i) => facts[i]?.events && nestInternal(f, facts[i]!))
  return root
}

/**
 * forge's Backtrace (foundry crates/evm/traces/src/backtrace/mod.rs): from the deepest failed
 * frame (the last one of that depth) up through its callers to the top, each with where its last
 * instruction was.
 */
function backtrace(frames: DecodedCallFrame[], parents: Map<DecodedCallFrame, DecodedCallFrame>, places: Map<DecodedCallFrame, FrameSource | undefined>) {
  const depth = (f: DecodedCallFrame) => {
    let d = 0
    for (let p = parents.get(f); p; p = parents.get(p)) d++
    return d
  }
  let deepest: DecodedCallFrame | undefined
  let max = -1
  for (const f of frames)
    if (f.error !== undefined && depth(f) >= max) {
      max = depth(f)
      deepest = f
    }
  const out: BacktraceEntry[] = []
  for (let f = deepest; f; f = parents.get(f)) {
    const entry: BacktraceEntry = { contract: f.contract?.name ?? f.to ?? f.from }
    if (f.function) entry.function = f.function.name
    const place = places.get(f)
    if (place) Object.assign(entry, { file: place.file, line: place.line, column: place.column })
    out.push(entry)
  }
  return out
}

function named(parameters: Parameter[] | undefined, values: DecodedValue[] | undefined): Record<string, unknown> | undefined {
  if (!parameters || !values) return undefined
  return Object.fromEntries(parameters.map((p, i) => [p.name || String(i), values[i] ?? null]))
}

function internalFrame(call: InternalCall, to: Address | undefined): DecodedInternalFrame {
  const { fn } = call
  const args = named(fn.parameters, call.args)
  const result = named(fn.returns, call.result)
  const frame: DecodedInternalFrame = {
    type: 'INTERNAL',
    ...(to && { to }),
    gasUsed: toHex(call.gasUsed) as Hex,
    function: { name: fn.name, contract: fn.contract, signature: fn.signature, ...(args && { args }), ...(result && { result }) },
  }
  if (call.reverted) frame.reverted = true
  return frame
}

/** rebuilds a frame's calls and logs with its internal calls nested where they ran */
function nestInternal(frame: DecodedCallFrame, facts: FrameSourceFacts): void {
  const children = [...(frame.calls ?? [])]
  const logs = [...(frame.logs ?? [])]
  if (!facts.events?.some((e) => e.kind === 'open')) return
  let nextChild = 0
  let nextLog = 0
  const open: AnyFrame[] = [frame]
  const calls = new Map<AnyFrame, AnyFrame[]>([[frame, []]])
  const logsOf = new Map<AnyFrame, DecodedCallLog[]>()
  const here = () => open[open.length - 1]!
  for (const e of facts.events) {
    if (e.kind === 'call') {
      const child = children[nextChild++]
      if (child) calls.get(here())!.push(child)
    } else if (e.kind === 'log') {
      const log = logs[nextLog++]
      if (!log) continue
      const list = logsOf.get(here()) ?? []
      list.push({ ...log, position: toHex(calls.get(here())!.length) })
      logsOf.set(here(), list)
    } else if (e.kind === 'open') {
      const inner = internalFrame(e.call, frame.to)
      calls.get(here())!.push(inner)
      calls.set(inner, [])
      open.push(inner)
    } else if (open.length > 1) open.pop()
  }
  calls.get(frame)!.push(...children.slice(nextChild))
  for (const [f, list] of calls) {
    if (f === frame) {
      if (frame.calls || list.length > 0) frame.calls = list
    } else if (list.length > 0) f.calls = list
  }
  const rest = logs.slice(nextLog)
  if (rest.length > 0) logsOf.set(frame, [...(logsOf.get(frame) ?? []), ...rest])
  for (const [f, list] of logsOf) f.logs = list
  if (frame.logs && !logsOf.has(frame)) delete frame.logs
}
