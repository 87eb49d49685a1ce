/**
 * A BalanceReader (and token-metadata ReadCall) over an execution context's state: what
 * /simulate uses to read balances before and after its calls, and `symbol()`/`decimals()` on the
 * simulated state.
 *
 * Each read is a call from the zero address at gas price 0, run through the engine's own
 * `executeCall` on its own snapshot of the state (`shallowCopy`), so a read never leaves a trace in
 * the state — not even the nonce bump of the caller — and reads run side by side.
 *
 * @example
 * await state.applyOverrides(overrides)
 * const beforeState = state.shallowCopy()        // snapshot: the state the calls start from
 * ...run the calls on `state`...
 * const readBefore = createStateBalanceReader({ ...ctx, state: beforeState }, executeCall)
 * const readAfter = createStateBalanceReader(ctx, executeCall)
 * const tokens = createTokenInfoReader(readAfter.call)
 */
import { createAddressFromString } from '@ethereumjs/util'
import type { Address, Hex } from 'viem'
import type { ExecuteCall, ExecutionContext } from '../types.js'
import type { BalanceReader } from './assetChanges.js'

const ZERO_ADDRESS: Address = '0x0000000000000000000000000000000000000000'
/** enough for any honest balanceOf/ownerOf/symbol; a hostile token cannot stall a read longer */
const READ_GAS = 3_000_000n

export function createStateBalanceReader(ctx: ExecutionContext, executeCall: ExecuteCall): BalanceReader {
  const gas = ctx.block.gasLimit > 0n && ctx.block.gasLimit < READ_GAS ? ctx.block.gasLimit : READ_GAS

  return {
    nativeBalance: async (address) => (await ctx.state.getAccount(createAddressFromString(address)))?.balance ?? 0n,
    // each read on its own snapshot of the state, all at once: a fork's missing reads of every
    // token's symbol() and decimals() then leave in one upstream batch, not one token after another
    call: async (to, data): Promise<Hex | undefined> => {
      const state = await ctx.state.shallowCopy()
      const result = await executeCall({ ...ctx, state }, { from: ZERO_ADDRESS, to, data, gas, gasPrice: 0n, value: 0n }, { validation: false })
      return result.status === 'success' ? result.returnData : undefined
    },
  }
}
