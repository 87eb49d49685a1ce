/**
 * State overrides by variable name (`variables: { "balances[0x…]": "1000000" }`, the REST API's
 * form): after the slot overrides and any code override are in the state, each account's named
 * variables become slot writes with the layout of the code now at the address (its EIP-1967
 * implementation's behind a proxy), read from the known sources. A packed variable is merged with
 * what its slot holds then. No layout known, a name the layout does not have, or a value that
 * does not fit its type: a VALIDATION_ERROR naming the account and the variable.
 */
import { createAddressFromString } from '@ethereumjs/util'
import type { Address, Hex } from 'viem'
import { EngineError } from '../platform/errors.js'
import type { SourceRegistry } from '../sources/registry.js'
import type { SourceIndex } from '../sources/types.js'
import { layoutAt, slotHex, slotWritesOf, VariableError } from '../sources/storageLayout/index.js'
import type { OverlayStateManager } from '../state/index.js'
import type { StateOverrides } from '../vocabulary.js'

/** where layouts come from: the registry, and the chain a verified-sources service is asked about */
export interface NamedOverrideSources {
  registry?: { index(): Promise<SourceIndex>; readonly asksVerified?: boolean; resolve?: SourceRegistry['resolve'] }
  chainId: number
}

export async function applyNamedVariables(state: OverlayStateManager, overrides: StateOverrides, from: NamedOverrideSources): Promise<void> {
  const named = Object.entries(overrides).filter(([, o]) => o.variables && Object.keys(o.variables).length > 0)
  if (named.length === 0) return
  let index = from.registry ? await from.registry.index() : undefined
  for (const [addr, o] of named) {
    const address = addr as Address
    if (index && from.registry?.asksVerified && from.registry.resolve) {
      const code = await state.getCode(createAddressFromString(address))
      index = (await from.registry.resolve(from.chainId, [{ address, code }])).index
    }
    const layout = index && !index.empty ? await layoutAt(address, index, state) : undefined
    if (!layout) {
      throw new EngineError(
        'VALIDATION_ERROR',
        `variables of ${address}: no storage layout is known for the code at that address`,
        { address },
        'register the build-info of its contract with storageLayout selected (POST /v1/sources), or give the slots as storage',
      )
    }
    const read = async (slot: bigint) => {
      const raw = await state.getStorage(createAddressFromString(address), Uint8Array.from(Buffer.from(slotHex(slot).slice(2), 'hex')))
      return raw.length === 0 ? 0n : BigInt(`0x${Buffer.from(raw).toString('hex')}`)
    }
    let writes: Map<bigint, bigint>
    try {
      writes = await slotWritesOf(layout, o.variables ?? {}, read)
    } catch (e) {
      if (!(e instanceof VariableError)) throw e
      throw new EngineError('VALIDATION_ERROR', `variables of ${address}: ${JSON.stringify(e.variable)}: ${e.message}`, { address, variable: e.variable })
    }
    const stateDiff: Record<Hex, Hex> = {}
    for (const [slot, word] of writes) stateDiff[slotHex(slot) as Hex] = slotHex(word) as Hex
    await state.applyOverrides({ [address]: { stateDiff } })
  }
}
