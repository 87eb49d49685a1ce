/**
 * The raw profile of a run (engine/execution/observers/gasProfile.ts) → tracer `gasProfile`'s
 * answer: frames named, stacks of the same names merged, and the functions, lines, folded stacks
 * and speedscope document read off the one tree.
 *
 * A frame is named `Contract::function`: the contract's name where its sources are known, else the
 * address its code ran at; the function decoded from the selector by the contract's ABI, the
 * bundled ABIs, then the signature database, else the selector itself (`constructor` for a
 * creation, `precompile` for a precompile). A contract whose ABI is known dispatches as Solidity
 * does: no selector is its `receive` (else `fallback`), a selector its ABI lacks its `fallback`;
 * an unknown contract's frame without a selector is `fallback`.
 *
 * `totalGas` of a function counts each activation once: the stacks where it already is further up
 * (recursion) add their calls and self gas but not their total again.
 */
import type { Address, Hex } from 'viem'
import type { ProfileFrameId, ProfileNode } from './profileTree.js'
import { signatureDb as defaultDb, type SignatureDb } from '../callTree/signatureDb.js'
import { bundledIndex, dispatchedFunction } from '../callTree/signatures.js'
import { speedscopeOf, type WeighedStack } from './speedscope.js'
import type { GasProfile, ProfiledFunction, ProfiledLine, RawGasProfile } from './types.js'

interface NamedNode {
  contract: string
  function: string
  kind: ProfiledFunction['kind']
  calls: number
  selfGas: number
  children: Map<string, NamedNode>
}

const keyOf = (n: Pick<NamedNode, 'kind' | 'contract' | 'function'>) => `${n.kind}\u0000${n.contract}\u0000${n.function}`
export const frameName = (n: Pick<NamedNode, 'contract' | 'function'>): string => `${n.contract}::${n.function}`

/** the function an external frame's selector names, or the selector */
async function functionName(id: ProfileFrameId, db: () => Promise<SignatureDb>): Promise<string> {
  if (id.kind !== 'external') return id.fn
  if (id.precompile) return 'precompile'
  // a known contract dispatches as Solidity does: empty calldata to `receive`, an unknown selector to `fallback`
  const own = dispatchedFunction(id.abi, id.fn)
  if (own !== undefined) return own
  const selector = id.fn as Hex
  const bundled = bundledIndex()
    .selectors.get(selector)
    ?.find((c) => c.item.type === 'function')
  if (bundled) return bundled.item.name
  const signature = await db()
    .then((d) => d.fn(selector))
    .catch(() => undefined)
  return signature ? signature.slice(0, signature.indexOf('(')) : selector
}

/** every distinct frame id of the tree, named once */
async function nameAll(root: ProfileNode, db: () => Promise<SignatureDb>): Promise<Map<ProfileFrameId, { contract: string; function: string }>> {
  const ids: ProfileFrameId[] = []
  const stack = [root]
  while (stack.length > 0) {
    const n = stack.pop()!
    ids.push(n.id)
    for (const c of n.children.values()) stack.push(c)
  }
  const bySelector = new Map<string, Promise<string>>()
  const names = new Map<ProfileFrameId, { contract: string; function: string }>()
  await Promise.all(
    ids.map(async (id) => {
      const key = `${id.contract ?? id.address}\u0000${id.fn}\u0000${id.kind}\u0000${id.precompile === true}`
      let fn = bySelector.get(key)
      if (fn === undefined) bySelector.set(key, (fn = functionName(id, db)))
      names.set(id, { contract: id.contract ?? (id.address as Address), function: await fn })
    }),
  )
  return names
}

function addNamed(into: Map<string, NamedNode>, node: ProfileNode, names: Map<ProfileFrameId, { contract: string; function: string }>): void {
  const name = names.get(node.id)!
  const key = keyOf({ kind: node.id.kind, ...name })
  let there = into.get(key)
  if (there === undefined) into.set(key, (there = { ...name, kind: node.id.kind, calls: 0, selfGas: 0, children: new Map() }))
  there.calls += node.calls
  there.selfGas += node.selfGas
  for (const child of node.children.values()) addNamed(there.children, child, names)
}

interface Walk {
  stacks: WeighedStack[]
  functions: Map<string, ProfiledFunction>
  /** how many times each function is on the current path */
  onPath: Map<string, number>
}

/** depth first: the stacks with their self gas, the functions summed; returns the node's total gas */
function walk(node: NamedNode, path: string[], w: Walk): number {
  const key = keyOf(node)
  const names = [...path, frameName(node)]
  if (node.selfGas !== 0) w.stacks.push({ names, gas: node.selfGas })
  const outer = (w.onPath.get(key) ?? 0) === 0
  w.onPath.set(key, (w.onPath.get(key) ?? 0) + 1)
  let total = node.selfGas
  for (const child of node.children.values()) total += walk(child, names, w)
  w.onPath.set(key, w.onPath.get(key)! - 1)
  let fn = w.functions.get(key)
  if (fn === undefined) w.functions.set(key, (fn = { contract: node.contract, function: node.function, kind: node.kind, calls: 0, selfGas: 0, totalGas: 0 }))
  fn.calls += node.calls
  fn.selfGas += node.selfGas
  if (outer) fn.totalGas += total
  return total
}

export async function gasProfileReport(raw: RawGasProfile, db: () => Promise<SignatureDb> = defaultDb): Promise<GasProfile> {
  const w: Walk = { stacks: [], functions: new Map(), onPath: new Map() }
  let title = 'gas'
  if (raw.root) {
    const top = new Map<string, NamedNode>()
    addNamed(top, raw.root, await nameAll(raw.root, db))
    const root = [...top.values()][0]!
    title = `${frameName(root)} (gas)`
    walk(root, [], w)
  }
  const functions = [...w.functions.values()].sort((a, b) => b.totalGas - a.totalGas || b.selfGas - a.selfGas)
  const lines: ProfiledLine[] = raw.lines
    .filter((l) => l.gas !== 0 || l.hits !== 0)
    .map(({ file, line, gas, hits }) => ({ file, line, gas, hits }))
    .sort((a, b) => b.gas - a.gas || a.file.localeCompare(b.file) || a.line - b.line)
  const folded = w.stacks.map((s) => `${s.names.join(';')} ${s.gas}\n`).join('')
  return { intrinsicGas: raw.intrinsicGas, executionGas: raw.executionGas, functions, lines, folded, speedscope: speedscopeOf(title, w.stacks) }
}
