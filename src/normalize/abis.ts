/**
 * `abis` and `labels` of a call-tree request → the engine's maps keyed by lowercase address. An
 * ABI that viem cannot read is a VALIDATION_ERROR naming the item, never silently skipped.
 */
import { parseAbi, toEventSignature, toFunctionSignature, type Abi, type AbiEvent, type AbiFunction, type Address } from 'viem'
import type { CallTreeConfig } from '../../engine/types.js'
import { joinPath, validationError } from '../errors/apiError.js'
import { isAcceptableAddress } from '../schemas/primitives.js'
import { toAddress } from './quantities.js'

type AbiInput = (string | { type: string; [k: string]: unknown })[]

function addressKey(key: string, at: string): Address {
  if (!isAcceptableAddress(key)) throw validationError([{ path: at, message: 'key is not an address (or has an invalid EIP-55 checksum)' }])
  return toAddress(key)
}

const ELEMENTARY =
  /^(address|bool|string|bytes|bytes([1-9]|[12]\d|3[0-2])|u?int(8|16|24|32|40|48|56|64|72|80|88|96|104|112|120|128|136|144|152|160|168|176|184|192|200|208|216|224|232|240|248|256)?|tuple|function)(\[\d*\])*$/

/** viem formats any type string: check them ourselves, components included */
function checkParams(params: unknown, where: string): void {
  if (params === undefined) return
  if (!Array.isArray(params)) throw new Error(`${where} must be an array`)
  for (const p of params as { type?: unknown; components?: unknown }[]) {
    if (typeof p?.type !== 'string' || !ELEMENTARY.test(p.type)) throw new Error(`${where}: unknown type "${String(p?.type)}"`)
    if (p.type.startsWith('tuple')) {
      if (!Array.isArray(p.components)) throw new Error(`${where}: a tuple needs components`)
      checkParams(p.components, `${where} components`)
    }
  }
}

function toAbi(items: AbiInput, at: string): Abi {
  const abi: Abi[number][] = []
  items.forEach((item, i) => {
    const path = `${at}[${i}]`
    try {
      if (typeof item === 'string') {
        // structs declared in the list are resolved by parseAbi over the strings together
        if (item.trim().startsWith('struct ')) return
        const structs = items.filter((s): s is string => typeof s === 'string' && s.trim().startsWith('struct '))
        abi.push(...(parseAbi([...structs, item] as string[]) as Abi))
        return
      }
      if (['function', 'error', 'event', 'constructor'].includes(item.type)) checkParams(item.inputs ?? [], 'inputs')
      if (item.type === 'function') checkParams(item.outputs ?? [], 'outputs')
      if ((item.type === 'function' || item.type === 'error' || item.type === 'event') && typeof item.name !== 'string') throw new Error('a name is required')
      if (item.type === 'function' || item.type === 'error') toFunctionSignature(item as unknown as AbiFunction)
      else if (item.type === 'event') toEventSignature(item as unknown as AbiEvent)
      else if (!['constructor', 'fallback', 'receive'].includes(item.type)) throw new Error(`unknown ABI item type "${item.type}"`)
      abi.push(item as unknown as Abi[number])
    } catch (e) {
      const why = e instanceof Error ? e.message.split('\n')[0] : String(e)
      throw validationError(
        [{ path, message: `not a valid ABI item: ${why}` }],
        'give compiler ABI JSON items or signatures such as "function transfer(address to, uint256 amount)"',
      )
    }
  })
  return abi as Abi
}

export function toCallTreeConfig(
  input: { abis?: Record<string, AbiInput>; labels?: Record<string, string>; internal?: boolean } | undefined,
  path: string,
): CallTreeConfig {
  const out: CallTreeConfig = {}
  if (input?.internal) out.internal = true
  if (input?.abis) {
    const abis: Record<Address, Abi> = {}
    for (const [key, items] of Object.entries(input.abis)) {
      const at = joinPath(joinPath(path, 'abis'), key)
      const address = addressKey(key, at)
      // two keys for one address (case): their items together
      abis[address] = [...(abis[address] ?? []), ...toAbi(items, at)]
    }
    out.abis = abis
  }
  if (input?.labels) {
    const labels: Record<Address, string> = {}
    for (const [key, label] of Object.entries(input.labels)) labels[addressKey(key, joinPath(joinPath(path, 'labels'), key))] = label
    out.labels = labels
  }
  return out
}
