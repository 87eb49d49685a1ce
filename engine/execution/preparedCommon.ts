/**
 * preparedCommon: a cheap per-run Common. Every ethereumjs constructor (EVM, VM, each tx, each
 * block header) merges its parameter table into the Common it gets and rebuilds the whole parameter
 * cache: ~1 ms of a ~1.5 ms call, and most of decoding a transaction or a header. Here the four
 * tables are merged once per (parameter set, fork, EIPs) and each run
 * gets a shallow copy whose `updateParams` is a no-op (everything is merged already). Copies share
 * the read-only parameter cache; each has its own event emitter and fork state, so a run never
 * touches another run's Common.
 */
import type { Common } from '@ethereumjs/common'
import { paramsBlock } from '@ethereumjs/block'
import { paramsEVM } from '@ethereumjs/evm'
import { paramsTx } from '@ethereumjs/tx'
import { paramsVM } from '@ethereumjs/vm'

// keyed by the parameter table object, which Common.copy() shares between copies of one base
const prepared = new WeakMap<object, Map<string, Common>>()

const noMerge = function (this: Common): void {}

export function preparedCommon(common: Common): Common {
  const params = (common as unknown as { _params: object })._params
  const key = `${common.chainId()}|${common.hardfork()}|${common.eips().join(',')}`
  let byFork = prepared.get(params)
  if (!byFork) prepared.set(params, (byFork = new Map()))
  let base = byFork.get(key)
  if (!base) {
    base = common.copy()
    // the Common's own updateParams (e.g. engine/platform/hardfork.ts lifting the EIP-7825 cap) still runs here
    base.updateParams(paramsEVM)
    base.updateParams(paramsVM)
    base.updateParams(paramsTx)
    base.updateParams(paramsBlock)
    Object.defineProperty(base, 'updateParams', { value: noMerge, writable: true, enumerable: true, configurable: true })
    // merging rebuilt the list of active EIPs: build the Set behind engine/platform/hardfork.ts' lookup here,
    // once, so the copies share it instead of each run building its own on its first opcode
    base.isActivatedEIP(1559)
    byFork.set(key, base)
  }
  return base.copy()
}
