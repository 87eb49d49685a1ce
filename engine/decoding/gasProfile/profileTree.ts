/**
 * The gas profile as it is built: one node per frame stack (a path of function activations from
 * the top call), each with the gas its activations spent outside their callees and how many there
 * were. Nothing per step is kept: an activation gets a node of its own while it runs, and when it
 * ends its node is merged into its caller's children, where the earlier activations of the same
 * stack already sit (a loop of a million calls leaves one node). An activation the source map
 * turns out never to have been a call (the optimizer's noise, docs/decisions/0107) is dissolved:
 * its gas and callees move up to its caller.
 */
import type { Abi, Address } from 'viem'

export type ProfileKind = 'external' | 'internal' | 'constructor'

/** who ran, before names are decoded (engine/decoding/gasProfile names it) */
export interface ProfileFrameId {
  kind: ProfileKind
  /** the address whose code ran (external frames and constructors) */
  address?: Address
  /** the contract, from its sources: the one whose code ran, or an internal function's declaring one */
  contract?: string
  /** external: the calldata's selector (`0x` + 8 hex), `''` with under 4 bytes; internal: the function's name */
  fn: string
  /** the known contract's ABI, which names the selector first */
  abi?: Abi
  /** the frame ran a precompile */
  precompile?: boolean
}

export interface ProfileNode {
  id: ProfileFrameId
  /** activations of this stack */
  calls: number
  /** gas spent here outside every callee */
  selfGas: number
  children: Map<string, ProfileNode>
}

export function profileKey(id: ProfileFrameId): string {
  return `${id.kind}\u0000${id.address ?? ''}\u0000${id.contract ?? ''}\u0000${id.fn}`
}

export function newNode(id: ProfileFrameId): ProfileNode {
  return { id, calls: 1, selfGas: 0, children: new Map() }
}

/** adds a finished node (and its subtree) to a children map, summing into the node of the same stack */
export function mergeChild(children: Map<string, ProfileNode>, node: ProfileNode): void {
  const key = profileKey(node.id)
  const there = children.get(key)
  if (there === undefined) {
    children.set(key, node)
    return
  }
  there.calls += node.calls
  there.selfGas += node.selfGas
  for (const child of node.children.values()) mergeChild(there.children, child)
}

/** an activation that was no call: its gas and callees become its caller's */
export function dissolveInto(parent: ProfileNode, node: ProfileNode): void {
  parent.selfGas += node.selfGas
  for (const child of node.children.values()) mergeChild(parent.children, child)
}
