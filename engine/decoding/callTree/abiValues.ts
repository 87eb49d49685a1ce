/**
 * Strict ABI decoding and the JSON form of decoded values (interface §4 conventions): integers of
 * any width as decimal strings, addresses and bytes lowercase hex, bools as booleans, tuples as
 * objects by component name (arrays when unnamed), arrays element-wise.
 *
 * "Decodes cleanly" means: the bytes decode AND re-encode to exactly the same bytes, so no dirty
 * padding, no out-of-range value, no trailing garbage. This is what tells colliding selectors
 * apart: `burn(uint256)` and `collate_propagate_storage(bytes16)` share 0x42966c68, but a bytes16
 * needs its low 16 bytes zero.
 */
import { decodeAbiParameters, encodeAbiParameters, type AbiParameter, type Hex } from 'viem'
import type { DecodedArgs } from './types.js'

/** one value as JSON, guided by its ABI type */
export function jsonValue(param: AbiParameter, value: unknown): unknown {
  const array = /^(.*)\[(\d*)\]$/.exec(param.type)
  if (array) {
    const element = { ...param, type: array[1]! } as AbiParameter
    return (value as unknown[]).map((v) => jsonValue(element, v))
  }
  if (param.type === 'tuple') {
    const components = (param as { components: readonly AbiParameter[] }).components
    const named = components.every((c) => c.name)
    const values = components.map((c, i) => jsonValue(c, Array.isArray(value) ? value[i] : (value as Record<string, unknown>)[c.name!]))
    return named ? Object.fromEntries(components.map((c, i) => [c.name!, values[i]])) : values
  }
  if (typeof value === 'bigint') return value.toString()
  if (typeof value === 'number') return String(value)
  if (typeof value === 'string' && (param.type === 'address' || param.type.startsWith('bytes'))) return value.toLowerCase()
  return value
}

/** decoded values keyed by parameter name, or by position when a parameter has no name */
export function argsObject(params: readonly AbiParameter[], values: readonly unknown[]): DecodedArgs {
  return Object.fromEntries(params.map((p, i) => [p.name || String(i), jsonValue(p, values[i])]))
}

export interface Decoded {
  values: readonly unknown[]
  /** the bytes re-encode to exactly what was given */
  exact: boolean
}

/** decodes `data` (no selector); undefined when it does not decode at all */
export function decodeParams(params: readonly AbiParameter[], data: Hex): Decoded | undefined {
  try {
    const values = params.length ? decodeAbiParameters(params, data) : []
    let exact: boolean
    try {
      const again = params.length ? encodeAbiParameters(params, values as unknown[]) : '0x'
      exact = again.toLowerCase() === data.toLowerCase()
    } catch {
      exact = false
    }
    return { values, exact }
  } catch {
    return undefined
  }
}

/** a human line for a revert: `Name(arg, arg)` with the JSON values */
export function callLine(name: string, args: DecodedArgs): string {
  const show = (v: unknown): string => (Array.isArray(v) ? `[${v.map(show).join(', ')}]` : v && typeof v === 'object' ? JSON.stringify(v) : String(v))
  return `${name}(${Object.values(args).map(show).join(', ')})`
}
