/**
 * applyStateOverrides: writes a request's `stateOverrides` (interface §9, normalized to
 * `{address: {balance, nonce, code, state | stateDiff}}`) into the request's own overlay before
 * anything runs, like geth's `override.StateOverride.Apply`. The overlay records "storage
 * replaced" without reading upstream.
 *
 * @example
 * await applyStateOverrides(state, { '0xab…': { balance: 10n ** 18n, stateDiff: { [slot]: value } } })
 */
import { EngineError } from '../platform/errors.js'
import type { OverlayStateManager } from '../state/index.js'
import type { StateOverrides } from '../vocabulary.js'
import { applyNamedVariables, type NamedOverrideSources } from './namedOverrides.js'

/** `named`: where the layouts of variables given by name come from (none: such variables have no layout) */
export async function applyStateOverrides(state: OverlayStateManager, overrides: StateOverrides | undefined, named?: NamedOverrideSources): Promise<void> {
  if (!overrides || Object.keys(overrides).length === 0) return
  for (const [addr, o] of Object.entries(overrides)) {
    if (o.state && o.stateDiff) {
      throw new EngineError('VALIDATION_ERROR', `state override of ${addr}: give either state or stateDiff, not both`)
    }
  }
  await state.applyOverrides(overrides)
  await applyNamedVariables(state, overrides, named ?? { chainId: 0 })
}
