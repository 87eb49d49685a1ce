/**
 * The internal function a jump enters, read from the source as forge reads it
 * (foundry v1.7.1 crates/evm/traces/src/debug/mod.rs `parse_function_from_loc`, `parse_types`,
 * `try_decode_args_from_step`): the source range of the JUMPDEST a jump marked `i` lands on must
 * begin with `function` (so modifiers, constructors and compiler helpers are no frames); its
 * parameters are the text between the first `(` and the next `)`, its returns the same after
 * `returns`; a value-type argument is its stack word, a `memory` string, bytes or array is read
 * from memory, anything else (storage references, calldata, contract and struct types) is not
 * decoded (null, forge's `<unknown>`).
 *
 * The contract and canonical signature come from the compilation's function table
 * (ContractSource.functions, matched by the definition's `src`).
 */
import { sourceSlice, type SourceElement } from './sourceMap.js'
import type { ContractSource } from './types.js'

export type DecodedValue = string | boolean | null | DecodedValue[]

export interface Parameter {
  name: string
  /** the type as written, resolved to an ABI elementary type; undefined when it is none (struct, contract, enum) */
  type: string | undefined
  location: 'memory' | 'storage' | 'calldata' | undefined
}

export interface InternalFunction {
  name: string
  contract: string
  signature: string
  /** undefined when the parameter list did not parse (forge then prints no arguments) */
  parameters: Parameter[] | undefined
  returns: Parameter[] | undefined
}

const cache = new WeakMap<ContractSource, Map<string, InternalFunction | null>>()

/** the function whose definition the element covers, or undefined when it is none forge shows */
export function internalFunctionAt(contract: ContractSource, element: SourceElement): InternalFunction | undefined {
  let byElement = cache.get(contract)
  if (byElement === undefined) cache.set(contract, (byElement = new Map()))
  const key = `${element.offset}:${element.length}:${element.index}`
  let fn = byElement.get(key)
  if (fn === undefined) byElement.set(key, (fn = readFunction(contract, element, key) ?? null))
  return fn ?? undefined
}

function readFunction(contract: ContractSource, element: SourceElement, src: string): InternalFunction | undefined {
  const text = sourceSlice(contract.sources[element.index], element.offset, element.length)
  if (text === undefined || !text.startsWith('function')) return undefined
  const definition = contract.functions.find((f) => f.src === src)
  if (definition === undefined) return undefined
  const name = text.slice('function'.length).split('(')[0]!.trim()
  const flat = text.replace(/\n/g, '')
  const open = flat.indexOf('(')
  const parameters = open < 0 ? undefined : parseParameters(flat, open)
  const returnsAt = flat.indexOf('returns')
  const returnsOpen = returnsAt < 0 ? -1 : flat.indexOf('(', returnsAt)
  const returns = returnsOpen < 0 ? undefined : parseParameters(flat, returnsOpen)
  return { name, contract: definition.contract, signature: `${definition.name}(${definition.parameters.join(',')})`, parameters, returns }
}

const LOCATIONS = new Set(['memory', 'storage', 'calldata'])

/** `(type [location] [name], …)` from `open` to the next `)`; undefined when it does not parse */
function parseParameters(text: string, open: number): Parameter[] | undefined {
  const close = text.indexOf(')', open)
  if (close < 0) return undefined
  const inner = text.slice(open + 1, close).trim()
  if (inner === '') return []
  const out: Parameter[] = []
  for (const piece of inner.split(',')) {
    const words = piece.trim().split(/\s+/)
    const written = words[0]
    if (!written || !/^[A-Za-z_$][\w$.]*(\[\d*\])*$/.test(written)) return undefined
    let at = 1
    let location: Parameter['location']
    if (words[at] !== undefined && LOCATIONS.has(words[at]!)) location = words[at++] as Parameter['location']
    const name = words[at] ?? ''
    if (words.length > at + 1) return undefined
    out.push({ name, type: elementaryType(written), location })
  }
  return out
}

const ELEMENTARY =
  /^(uint(8|16|24|32|40|48|56|64|72|80|88|96|104|112|120|128|136|144|152|160|168|176|184|192|200|208|216|224|232|240|248|256)?|int(8|16|24|32|40|48|56|64|72|80|88|96|104|112|120|128|136|144|152|160|168|176|184|192|200|208|216|224|232|240|248|256)?|address|bool|string|bytes([1-9]|[12]\d|3[0-2])?)$/

/** an ABI elementary type (arrays of them too), with `uint`/`int` as their 256-bit names */
function elementaryType(written: string): string | undefined {
  const base = written.replace(/(\[\d*\])+$/, '')
  if (!ELEMENTARY.test(base)) return undefined
  const canonical = base === 'uint' ? 'uint256' : base === 'int' ? 'int256' : base
  return canonical + written.slice(base.length)
}

const MASK_160 = (1n << 160n) - 1n
const TWO_255 = 1n << 255n
const TWO_256 = 1n << 256n

/** one stack word as a value type; null when the type is no value type */
export function wordValue(type: string, word: bigint): DecodedValue {
  if (type.startsWith('uint')) return word.toString()
  if (type.startsWith('int')) return (word >= TWO_255 ? word - TWO_256 : word).toString()
  if (type === 'address') return `0x${(word & MASK_160).toString(16).padStart(40, '0')}`
  if (type === 'bool') return word !== 0n
  const fixed = /^bytes(\d+)$/.exec(type)
  if (fixed)
    return `0x${word
      .toString(16)
      .padStart(64, '0')
      .slice(0, Number(fixed[1]) * 2)}`
  return null
}

function memoryWord(memory: Uint8Array, at: number): bigint | undefined {
  if (at < 0 || at + 32 > memory.length) return undefined
  let v = 0n
  for (let i = 0; i < 32; i++) v = (v << 8n) | BigInt(memory[at + i]!)
  return v
}

const MAX_MEMORY_ITEMS = 1024

/** a `memory` value at a memory offset, as forge's decode_from_memory reads it */
function memoryValue(type: string, memory: Uint8Array, at: number): DecodedValue | undefined {
  const first = memoryWord(memory, at)
  if (first === undefined) return undefined
  if (type === 'string' || type === 'bytes') {
    const length = Number(first)
    if (first > BigInt(memory.length) || at + 32 + length > memory.length) return undefined
    const data = memory.subarray(at + 32, at + 32 + length)
    return type === 'string' ? new TextDecoder().decode(data) : `0x${Buffer.from(data).toString('hex')}`
  }
  const array = /^(.*)\[(\d*)\]$/.exec(type)
  if (!array) return wordValue(type, first)
  const inner = array[1]!
  const fixed = array[2] !== ''
  const length = fixed ? Number(array[2]) : Number(first)
  const start = fixed ? at : at + 32
  if (!fixed && first > BigInt(MAX_MEMORY_ITEMS)) return undefined
  const out: DecodedValue[] = []
  for (let i = 0; i < length; i++) {
    const slot = start + i * 32
    const pointer = inner === 'string' || inner === 'bytes' || inner.endsWith(']') ? memoryWord(memory, slot) : BigInt(slot)
    if (pointer === undefined) return undefined
    const item = memoryValue(inner, memory, Number(pointer))
    if (item === undefined) return undefined
    out.push(item)
  }
  return out
}

/** the top `parameters.length` stack words (bottom → top) as the parameters' values, forge's way */
export function decodeFromStack(parameters: Parameter[], stack: readonly bigint[], memory: Uint8Array): DecodedValue[] | undefined {
  if (parameters.length === 0) return []
  if (stack.length < parameters.length) return undefined
  const words = stack.slice(stack.length - parameters.length)
  return parameters.map((p, i) => {
    const word = words[i]!
    if (p.type === undefined) return null
    if (p.type === 'uint8' && (p.location === 'memory' || p.location === 'storage')) return null
    if (p.location === 'memory') return word < BigInt(memory.length) ? (memoryValue(p.type, memory, Number(word)) ?? null) : null
    if (p.type === 'string' || p.type === 'bytes' || p.type.endsWith(']')) return null
    return wordValue(p.type, word)
  })
}
