/**
 * State and block overrides → the engine's maps (interface §9), each account and the block's
 * fields read by the one reader of overrides (src/params/stateOverrides.ts, blockOverrides.ts).
 * Both request forms (simulation array, trace object) land in one `StateOverrides` map keyed by
 * lowercase address; `storage` is geth's `stateDiff`, `state` a full replacement; slots and values
 * left-padded to 32 bytes; `variables` pass as given, to be read with the contract's layout.
 */
import type { Address } from 'viem'
import type { AccountOverride, BlockOverrides, StateOverrides } from '../../engine/types.js'
import { joinPath, validationError } from '../errors/apiError.js'
import { parseBlockOverrides } from '../params/blockOverrides.js'
import { type OverrideRules, parseAccountOverride } from '../params/stateOverrides.js'
import { isAcceptableAddress } from '../schemas/primitives.js'
import { REST } from './bodyReader.js'
import { toAddress } from './quantities.js'

/** the schema (src/schemas/overrides.ts) has refused unknown keys and read each value's shape */
const REST_OVERRIDES: OverrideRules = {
  slots: 'quantity',
  movePrecompile: { refused: 'not supported here' },
  stateDiff: 'storage',
  leadingZeros: true,
  keysChecked: true,
}

interface AccountFields {
  balance?: string
  nonce?: string
  code?: string
  storage?: Record<string, string>
  state?: Record<string, string>
  variables?: Record<string, string | number | boolean>
}

export function fromOverrideList(list: (AccountFields & { address: string })[] | undefined, path: string): StateOverrides | undefined {
  if (list === undefined) return undefined
  const out: StateOverrides = {}
  list.forEach((entry, i) => {
    const at = `${path}[${i}]`
    const address = toAddress(entry.address)
    if (out[address]) throw validationError([{ path: joinPath(at, 'address'), message: `address ${address} is overridden twice` }])
    out[address] = toAccountOverride(entry, at, address)
  })
  return out
}

export function fromOverrideMap(map: Record<string, AccountFields> | undefined, path: string): StateOverrides | undefined {
  if (map === undefined) return undefined
  const out: StateOverrides = {}
  for (const [key, fields] of Object.entries(map)) {
    const at = joinPath(path, key)
    if (!isAcceptableAddress(key)) throw validationError([{ path: at, message: 'key is not an address (or has an invalid EIP-55 checksum)' }])
    const address = toAddress(key)
    if (out[address]) throw validationError([{ path: at, message: `address ${address} is overridden twice (keys differ only in case)` }])
    out[address] = toAccountOverride(fields, at, address)
  }
  return out
}

function toAccountOverride(fields: AccountFields, path: string, address: Address): AccountOverride {
  const out: AccountOverride = parseAccountOverride(REST, fields, path, address, REST_OVERRIDES)
  // variables by name: checked against the contract's layout once the state is open (engine/run/namedOverrides.ts)
  if (fields.variables !== undefined) out.variables = fields.variables
  return out
}

export interface BlockOverridesInput {
  number?: string | number
  time?: string | number
  baseFee?: string | number
  gasLimit?: string | number
  coinbase?: string
  prevRandao?: string
  blobBaseFee?: string | number
}

export function toBlockOverrides(input: BlockOverridesInput | undefined, path: string): BlockOverrides | undefined {
  return parseBlockOverrides(REST, input, path, { lenient: true })
}
