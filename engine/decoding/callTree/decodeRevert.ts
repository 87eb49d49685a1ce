/**
 * Revert data → the error: `Error(string)` and `Panic(uint256)` built in (texts as geth's
 * UnpackRevert), custom errors from the caller's ABIs (the reverting code's first, then every
 * ABI given: an error bubbles up through frames whose own ABI does not declare it), the bundled
 * standard errors, then the signature database.
 */
import { size, type Abi, type Hex } from 'viem'
import { unpackRevert } from '../../../tracers/gethRevert.js'
import { argsObject, callLine, decodeParams } from './abiValues.js'
import { pickCandidate } from './decodeFunction.js'
import type { SignatureDb } from './signatureDb.js'
import type { AbiError } from './signatures.js'
import type { DecodedRevert } from './types.js'

const ERROR_SELECTOR = '0x08c379a0'
const PANIC_SELECTOR = '0x4e487b71'

export async function decodeRevert(output: Hex | undefined, callerAbis: readonly Abi[], db: () => Promise<SignatureDb>): Promise<DecodedRevert | undefined> {
  if (!output || size(output) < 4) return undefined
  const selector = output.slice(0, 10).toLowerCase() as Hex
  const body = `0x${output.slice(10)}` as Hex
  if (selector === ERROR_SELECTOR || selector === PANIC_SELECTOR) {
    const reason = unpackRevert(output)
    if (reason === undefined) return undefined
    const isError = selector === ERROR_SELECTOR
    const param = isError ? { name: 'message', type: 'string' } : { name: 'code', type: 'uint256' }
    const d = decodeParams([param], body)
    if (!d) return undefined
    return {
      name: isError ? 'Error' : 'Panic',
      signature: isError ? 'Error(string)' : 'Panic(uint256)',
      args: argsObject([param], d.values),
      source: 'builtin',
      reason,
    }
  }
  const pick = await pickCandidate<AbiError>('error', selector, body, callerAbis, db)
  if (!pick) return undefined
  const args = argsObject(pick.chosen.item.inputs, pick.values)
  const out: DecodedRevert = {
    name: pick.chosen.item.name,
    signature: pick.chosen.signature,
    args,
    source: pick.chosen.source,
    reason: callLine(pick.chosen.item.name, args),
  }
  if (pick.others.length) out.alternatives = pick.others
  return out
}
