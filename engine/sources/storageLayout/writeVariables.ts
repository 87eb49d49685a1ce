/**
 * Variables written by name (`{ "balances[0x…]": "1000000", "paused": true }`) turned into the
 * slot writes that set them, with the contract's layout: a packed variable's neighbours keep the
 * value the slot holds, a string or bytes is written whole (short ones in their slot, long ones
 * as length and data slots). A bad name or value is a VariableError naming the variable.
 */
import type { ContractLayout } from './decodeChanges.js'
import { dataSlotOf } from './preimages.js'
import { withField } from './values.js'
import { locatePath, type Located } from './variablePath.js'
import { bytesOfValue, fieldOfValue } from './variableValue.js'

/** each variable may read its slot (a fork reads it upstream): a request's reads stay bounded */
const MAX_VARIABLES = 1024

export class VariableError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(message)
  }
}

/** slot → the word to write there, for every variable given */
export async function slotWritesOf(
  contract: ContractLayout,
  variables: Record<string, unknown>,
  read: (slot: bigint) => Promise<bigint>,
): Promise<Map<bigint, bigint>> {
  const names = Object.keys(variables)
  if (names.length > MAX_VARIABLES) throw new VariableError(names[MAX_VARIABLES]!, `at most ${MAX_VARIABLES} variables per account`)
  const writes = new Map<bigint, bigint>()
  // a slot already written by an earlier variable is merged with that write, not with the state
  const current = async (slot: bigint) => writes.get(slot) ?? (await read(slot))
  for (const [name, value] of Object.entries(variables)) {
    let at: Located
    try {
      at = await locatePath(contract.layout, contract.enums, name, current)
    } catch (e) {
      throw new VariableError(name, (e as Error).message)
    }
    try {
      if (at.type.encoding === 'bytes') writeBytes(writes, at.slot, bytesOfValue(value, at.type))
      else {
        const field = fieldOfValue(value, at.typeId, at.type, contract.enums)
        writes.set(at.slot, withField(await current(at.slot), at.offset, Number(at.type.numberOfBytes), field))
      }
    } catch (e) {
      throw new VariableError(name, `${name} (${at.type.label}): ${(e as Error).message}`)
    }
  }
  return writes
}

/** Solidity's string/bytes storage: under 32 bytes the data left-aligned with 2·length in the low byte, else 2·length+1 and the data from keccak256(slot) */
function writeBytes(writes: Map<bigint, bigint>, slot: bigint, data: Uint8Array): void {
  const word = (bytes: Uint8Array) => {
    const padded = new Uint8Array(32)
    padded.set(bytes)
    return BigInt(`0x${Buffer.from(padded).toString('hex')}`)
  }
  if (data.length < 32) {
    writes.set(slot, word(data) | BigInt(data.length * 2))
    return
  }
  writes.set(slot, BigInt(data.length * 2 + 1))
  const start = dataSlotOf(slot)
  for (let i = 0; i * 32 < data.length; i++) writes.set(start + BigInt(i), word(data.subarray(i * 32, i * 32 + 32)))
}
