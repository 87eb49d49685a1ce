/**
 * Call object → engine `CallInput` (interface §3), read by the one call-object reader
 * (src/params/callObject.ts) with the REST API's rules: lowercase addresses, bigint quantities
 * (leading zeros accepted), `input` as an alias of `data` (both differing is an error, as in
 * geth), legacy and EIP-1559 fee fields not mixed, an EIP-7702 list that can run (a `to`, at least
 * one authorization).
 */
import type { CallInput } from '../../engine/types.js'
import { type CallRules, parseCall } from '../params/callObject.js'
import type { CallObjectInput } from '../schemas/call.js'
import { REST } from './bodyReader.js'

/** the schema (src/schemas/call.ts) has refused unknown keys and read each value's shape */
const REST_CALL: CallRules = {
  fields: 'any',
  leadingZeros: true,
  accessList: { keys: 'quantity', strictEntries: false },
  feeChecks: 'feeMix',
  authorizations: 'readChecked',
}

export function toCallInput(call: CallObjectInput, path: string): CallInput {
  return parseCall(REST, call, path, REST_CALL)
}
