/**
 * stateRootOf: the Merkle-Patricia state root of a state held in process, built from scratch.
 *
 * The engine keeps no tries (OverlayStateManager, PLACEHOLDER_STATE_ROOT): a fork's state is read
 * lazily and only in part, so its root cannot be known. A chain imported whole from a genesis and
 * its blocks (engine/chains/devnet/importedDevnet.ts) holds all of its state, small enough to hash on
 * demand: its imports are checked against the blocks' own roots, its pre-Byzantium receipts carry
 * real intermediate roots, and its simulated blocks get the root (and so the hash) geth gives them.
 *
 * Cost: a fresh trie of every account and slot per call (no node is kept between calls), so only
 * for small chains: the hive test chain's ~100 accounts hash in about a millisecond.
 *
 * @example
 * const root = await stateRootOf(layer.withWrites(overlay.flatten()))
 */
import { bigIntToUnpaddedBytes, hexToBytes } from '@ethereumjs/util'
import { keccak256, toRlp } from 'viem'
import type { MemoryStateSource } from './memoryStateSource.js'
import { OverlayStateManager } from './overlayStateManager.js'

export async function stateRootOf(source: MemoryStateSource): Promise<Uint8Array> {
  const accounts = source.allAccounts().map(({ address, account, storage }) => {
    const slots = [...storage].filter(([, v]) => v.length).map(([slot, value]) => ({ key: hexToBytes(slot), value: toRlp(value, 'bytes') }))
    const body = [bigIntToUnpaddedBytes(account.nonce), bigIntToUnpaddedBytes(account.balance), trieRoot(slots), account.codeHash]
    return { key: hexToBytes(address), value: toRlp(body, 'bytes') }
  })
  return trieRoot(accounts)
}

/** a node as RLP sees it: a byte string or a list of nodes */
type Node = Uint8Array | Node[]

const EMPTY = new Uint8Array(0)

/**
 * The root of a secure Merkle-Patricia trie (keys hashed with keccak, as the state and storage
 * tries are) over `entries`, built bottom-up in one pass: the Yellow Paper's leaf, extension and
 * branch nodes, a child inlined when its RLP is shorter than 32 bytes, else referenced by hash.
 */
export function trieRoot(entries: { key: Uint8Array; value: Uint8Array }[]): Uint8Array {
  const items = entries.map((e) => ({ path: nibbles(keccak256(e.key, 'bytes')), value: e.value }))
  items.sort((a, b) => comparePaths(a.path, b.path))
  return keccak256(toRlp(node(items, 0) as never, 'bytes'), 'bytes')
}

function node(items: { path: number[]; value: Uint8Array }[], depth: number): Node {
  if (items.length === 0) return EMPTY
  if (items.length === 1) return [hexPrefix(items[0]!.path.slice(depth), true), items[0]!.value]
  // the nibbles every key shares from here: an extension over them, then a branch
  const first = items[0]!.path
  const last = items[items.length - 1]!.path
  let shared = 0
  while (depth + shared < first.length && first[depth + shared] === last[depth + shared]) shared++
  if (shared > 0) return [hexPrefix(first.slice(depth, depth + shared), false), reference(node(items, depth + shared))]
  const branch: Node[] = []
  let i = 0
  for (let nibble = 0; nibble < 16; nibble++) {
    let j = i
    while (j < items.length && items[j]!.path[depth] === nibble) j++
    branch.push(j > i ? reference(node(items.slice(i, j), depth + 1)) : EMPTY)
    i = j
  }
  // keys are all 32-byte hashes: none ends at a branch, so its value slot is empty
  branch.push(EMPTY)
  return branch
}

/** a child as its parent holds it: inline when its encoding is under 32 bytes, else its hash */
function reference(child: Node): Node {
  const encoded = toRlp(child as never, 'bytes')
  return encoded.length < 32 ? child : keccak256(encoded, 'bytes')
}

/** hex-prefix encoding of a path (Yellow Paper appendix C) */
function hexPrefix(path: number[], leaf: boolean): Uint8Array {
  const odd = path.length % 2
  const flag = (leaf ? 2 : 0) + odd
  const out = new Uint8Array(1 + (path.length >> 1))
  out[0] = odd ? (flag << 4) | path[0]! : flag << 4
  for (let i = odd, k = 1; i < path.length; i += 2, k++) out[k] = (path[i]! << 4) | path[i + 1]!
  return out
}

function nibbles(bytes: Uint8Array): number[] {
  const out: number[] = []
  for (const b of bytes) out.push(b >> 4, b & 15)
  return out
}

function comparePaths(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!
  return 0
}

/**
 * An overlay on an in-process state that answers getStateRoot() with the real root of its source
 * plus its writes so far (ethereumjs asks after each pre-Byzantium transaction for the receipt,
 * and after each block to check the header). Everything else is the plain overlay.
 */
export class TrieRootedOverlay extends OverlayStateManager {
  constructor(readonly layer: MemoryStateSource) {
    super(layer)
  }

  override async getStateRoot(): Promise<Uint8Array> {
    return stateRootOf(this.layer.withWrites(this.flatten()))
  }
}
