/**
 * A BalanceReader (and token-metadata ReadCall) over an execution context's state: what
 * /simulate uses to read balances before and after its calls, and `symbol()`/`decimals()` on the
 * simulated state.
 *
 * Each read is a call from the zero address at gas price 0, run through the engine's own
 * `executeCall` and undone right after (checkpoint → call → revert), so a read never leaves a
 * trace in the state — not even the nonce bump of the caller. Reads are serialized: one state
 * can run one transaction at a time.
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
import type { ExecuteCall, ExecutionContext } from '../execution/types.js'
import type { BalanceReader } from './assetChanges.js'

const ZERO_ADDRESS: Address = '0x0000000000000000000000000000000000000000'
/** enough for any honest balanceOf/ownerOf/symbol; a hostile token cannot stall a read longer */
const READ_GAS = 3_000_000n

export function createStateBalanceReader(ctx: ExecutionContext, executeCall: ExecuteCall): BalanceReader {
  let queue: Promise<unknown> = Promise.resolve()
  const serialized = <T>(job: () => Promise<T>): Promise<T> => {
    const run = queue.then(job, job)
    queue = run.catch(() => undefined)
    return run
  }
  const gas = ctx.block.gasLimit > 0n && ctx.block.gasLimit < READ_GAS ? ctx.block.gasLimit : READ_GAS

  return {
    nativeBalance: (address) =>
      serialized(async () => {
        const account = await ctx.state.getAccount(createAddressFromString(address))
        return account?.balance ?? 0n
      }),
    call: (to, data) =>
      serialized(async (): Promise<Hex | undefined> => {
        await ctx.state.checkpoint()
        try {
          const result = await executeCall(ctx, { from: ZERO_ADDRESS, to, data, gas, gasPrice: 0n, value: 0n }, { validation: false })
          return result.status === 'success' ? result.returnData : undefined
        } finally {
          await ctx.state.revert()
        }
      }),
  }
}
