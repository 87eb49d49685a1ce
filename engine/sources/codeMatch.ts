/**
 * What of a contract's code is the same wherever it is deployed: the compiled bytes with the parts
 * a deployment or a rebuild changes set to zero — the CBOR metadata (a hash of the sources' text
 * and paths), the immutables' values (`immutableReferences`), linked library addresses
 * (`linkReferences`, and any `__$…$__` placeholder) and, for a library, its own address that its
 * deployed code carries in the call-protection `PUSH20` at its start.
 *
 * A code matches a compiled contract when it has the compiled length (runtime) or begins with it
 * (creation: the constructor arguments follow), and equals it outside the blanked ranges. The
 * code hashes `POST /v1/sources` answers are keccak-256 of the blanked compiled code.
 */
import { bytesToHex, type Hex } from 'viem'
import { keccak256 } from '../platform/keccak.js'
import type { CompiledCode } from './types.js'

export type CodeKind = 'runtime' | 'creation'

/** the compiled bytes with the blanked ranges already zero, and those ranges as [start, end) */
export interface BlankedCode {
  bytes: Uint8Array
  ranges: [number, number][]
}

// hex has no `_`: any 40 characters from `__` to `__` are a placeholder (`__$<hash>$__`, or `__Lib.sol:L__…` before solc 0.5)
const PLACEHOLDER = /__.{36}__/g

/** the compiled object's bytes; a library placeholder (40 hex characters' place) becomes zeros */
export function compiledBytes(object: string): Uint8Array {
  const hex = object.startsWith('0x') ? object.slice(2) : object
  const plain = hex.replace(PLACEHOLDER, '0'.repeat(40))
  const out = new Uint8Array(plain.length >> 1)
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(plain.slice(i * 2, i * 2 + 2), 16)
  return out
}

function placeholderRanges(object: string): [number, number][] {
  const hex = object.startsWith('0x') ? object.slice(2) : object
  return [...hex.matchAll(PLACEHOLDER)].map((m) => [(m.index ?? 0) >> 1, ((m.index ?? 0) >> 1) + 20])
}

function referenceRanges(refs: Record<string, { start: number; length: number }[]> | undefined): [number, number][] {
  return Object.values(refs ?? {}).flatMap((list) => list.map((r): [number, number] => [r.start, r.start + r.length]))
}

function linkRanges(code: CompiledCode): [number, number][] {
  return Object.values(code.linkReferences ?? {}).flatMap((libs) => referenceRanges(libs))
}

/** a library's runtime begins `PUSH20 <its address> ADDRESS EQ`: compiled with zeros in place */
function callProtectionRange(bytes: Uint8Array): [number, number][] {
  if (bytes.length < 23 || bytes[0] !== 0x73 || bytes[21] !== 0x30 || bytes[22] !== 0x14) return []
  for (let i = 1; i <= 20; i++) if (bytes[i] !== 0) return []
  return [[1, 21]]
}

const METADATA_KEYS = new Set(['ipfs', 'bzzr0', 'bzzr1', 'solc', 'experimental'])

/** one CBOR head at i: major type, argument, where the item's content begins */
function cborHead(b: Uint8Array, i: number): { major: number; arg: number; next: number } | undefined {
  if (i >= b.length) return undefined
  const major = b[i]! >> 5
  const info = b[i]! & 31
  if (info < 24) return { major, arg: info, next: i + 1 }
  const size = info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : 0
  if (size === 0 || i + size >= b.length) return undefined
  let arg = 0
  for (let k = 1; k <= size; k++) arg = arg * 256 + b[i + k]!
  return { major, arg, next: i + 1 + size }
}

/** the end of the metadata map starting at i, when it is one (known keys, length trailer agrees) */
function metadataEnd(b: Uint8Array, i: number): number | undefined {
  const map = cborHead(b, i)
  if (map?.major !== 5 || map.arg < 1 || map.arg > 5) return undefined
  let at = map.next
  for (let n = 0; n < map.arg; n++) {
    const key = cborHead(b, at)
    if (key?.major !== 3 || key.next + key.arg > b.length) return undefined
    if (!METADATA_KEYS.has(new TextDecoder().decode(b.subarray(key.next, key.next + key.arg)))) return undefined
    const value = cborHead(b, key.next + key.arg)
    if (!value) return undefined
    at = value.major === 2 || value.major === 3 ? value.next + value.arg : value.next
    if (value.major !== 0 && value.major !== 2 && value.major !== 3 && value.major !== 7) return undefined
  }
  if (at + 2 > b.length || b[at]! * 256 + b[at + 1]! !== at - i) return undefined
  return at
}

/** every metadata block: the code's own at its end, and those of contracts it creates (`new C`) */
function metadataRanges(b: Uint8Array): [number, number][] {
  const out: [number, number][] = []
  for (let i = 0; i + 3 < b.length; i++) {
    if (b[i]! < 0xa1 || b[i]! > 0xa5 || b[i + 1]! >> 5 !== 3) continue
    const end = metadataEnd(b, i)
    if (end !== undefined) {
      out.push([i, end])
      i = end + 1
    }
  }
  return out
}

/** the compiled code with what a deployment or a rebuild changes set to zero */
export function blankedCode(code: CompiledCode, kind: CodeKind): BlankedCode {
  const bytes = compiledBytes(code.object)
  const ranges = [
    ...placeholderRanges(code.object),
    ...linkRanges(code),
    ...metadataRanges(bytes),
    ...(kind === 'runtime' ? [...referenceRanges(code.immutableReferences), ...callProtectionRange(bytes)] : []),
  ].map(([s, e]): [number, number] => [Math.max(0, s), Math.min(bytes.length, e)])
  for (const [s, e] of ranges) bytes.fill(0, s, e)
  return { bytes, ranges: ranges.sort((a, b) => a[0] - b[0]) }
}

/** keccak-256 of the blanked code: a contract's identity across deployments and rebuilds */
export function blankedHash(blanked: BlankedCode): Hex {
  return bytesToHex(keccak256(blanked.bytes))
}

/** the code equals the blanked compiled code outside its ranges, over the compiled length */
export function matchesBlanked(blanked: BlankedCode, code: Uint8Array): boolean {
  const want = blanked.bytes
  if (code.length < want.length) return false
  let r = 0
  for (let i = 0; i < want.length; i++) {
    while (r < blanked.ranges.length && blanked.ranges[r]![1] <= i) r++
    const range = blanked.ranges[r]
    if (range && range[0] <= i) {
      i = range[1] - 1
      continue
    }
    if (code[i] !== want[i]) return false
  }
  return true
}
