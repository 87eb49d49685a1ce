/**
 * Candidate signatures for a selector or topic, from the three sources in their order: the
 * caller's ABIs (the code's address first), the bundled ABIs, the signature database. Each ABI's
 * selector index is built once (WeakMap per ABI object, one for the bundled set).
 */
import {
  parseAbiItem,
  toEventSelector,
  toEventSignature,
  toFunctionSelector,
  toFunctionSignature,
  type Abi,
  type AbiEvent,
  type AbiFunction,
  type Address,
  type Hex,
} from 'viem'
import { bundledAbis } from './bundledAbis.js'
import type { SignatureSource } from './types.js'

export type AbiError = Extract<Abi[number], { type: 'error' }>
export type SelectorItem = AbiFunction | AbiError

export interface Candidate<T> {
  item: T
  signature: string
  source: SignatureSource
}

interface AbiIndex {
  /** functions and errors by 4-byte selector */
  selectors: Map<Hex, Candidate<SelectorItem>[]>
  /** events by topic0 (anonymous events cannot be matched by topic and are left out) */
  events: Map<Hex, Candidate<AbiEvent>[]>
}

const indexes = new WeakMap<Abi, AbiIndex>()

function push<K, V>(map: Map<K, V[]>, key: K, value: V) {
  const list = map.get(key)
  if (list) list.push(value)
  else map.set(key, [value])
}

function indexAbi(abis: readonly Abi[], source: SignatureSource): AbiIndex {
  const selectors = new Map<Hex, Candidate<SelectorItem>[]>()
  const events = new Map<Hex, Candidate<AbiEvent>[]>()
  for (const abi of abis) {
    for (const item of abi) {
      try {
        if (item.type === 'function' || item.type === 'error') {
          const signature = toFunctionSignature(item as AbiFunction)
          const list = selectors.get(toFunctionSelector(signature))
          // the same signature twice (ERC-20 and ERC-721 approve) is one candidate, not a collision
          if (list?.some((c) => c.signature === signature && c.item.type === item.type)) continue
          push(selectors, toFunctionSelector(signature), { item, signature, source })
        } else if (item.type === 'event' && !item.anonymous) {
          const signature = toEventSignature(item)
          push(events, toEventSelector(signature), { item, signature, source })
        }
      } catch {
        // an item viem cannot format (validated at the HTTP layer, so only a hand-made engine call): skip it
      }
    }
  }
  return { selectors, events }
}

export function abiIndex(abi: Abi): AbiIndex {
  let index = indexes.get(abi)
  if (!index) {
    index = indexAbi([abi], 'abi')
    indexes.set(abi, index)
  }
  return index
}

let bundled: AbiIndex | undefined
export function bundledIndex(): AbiIndex {
  bundled ??= indexAbi(
    bundledAbis().map((b) => b.abi),
    'bundled',
  )
  return bundled
}

/** a database signature (types only) as an ABI item, or undefined when it does not parse */
export function parseDbSignature<K extends 'function' | 'error' | 'event'>(kind: K, signature: string) {
  try {
    const item = parseAbiItem(`${kind} ${signature}`)
    return item as K extends 'event' ? AbiEvent : SelectorItem
  } catch {
    return undefined
  }
}

/** caller ABIs of these addresses, deduplicated, in order */
export function abisOf(abis: ReadonlyMap<Address, Abi>, addresses: readonly (Address | undefined)[]): Abi[] {
  const out: Abi[] = []
  for (const a of addresses) {
    const abi = a && abis.get(a.toLowerCase() as Address)
    if (abi && !out.includes(abi)) out.push(abi)
  }
  return out
}

/**
 * The function a contract dispatches `selector` to by its own ABI, as Solidity does: no selector
 * (`''`) to its `receive` (else `fallback`), a selector its ABI lacks to its `fallback`; undefined
 * when the ABI (or its absence) leaves the selector unnamed.
 */
export function dispatchedFunction(abi: Abi | undefined, selector: string): string | undefined {
  const special = (kind: 'receive' | 'fallback') => abi?.some((item) => item.type === kind) === true
  if (selector === '') return special('receive') ? 'receive' : 'fallback'
  const own = abi
    ? abiIndex(abi)
        .selectors.get(selector as Hex)
        ?.find((c) => c.item.type === 'function')
    : undefined
  if (own) return own.item.name
  return special('fallback') ? 'fallback' : undefined
}
