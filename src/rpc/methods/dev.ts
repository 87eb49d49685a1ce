/**
 * What a writable fork answers beyond /v1/rpc: a development node's methods with Anvil's names,
 * and beside them the Hardhat and Ganache (`evm_*`) names of the same method. Each entry reads its
 * params into the engine's typed `ForkDevRequest` (src/rpc/params/devParams.ts) and hands it to
 * the fork (engine/chains/forks/devMethods.ts runs it). Where the dialects answer differently
 * (Hardhat's setters answer true, Anvil's null; evm_mine answers "0x0"), each name is an entry.
 *
 * @example
 * await forkMethods.anvil_setBalance(['0xf39f…', '0x1'], ctx) // null
 */
import { type ForkAt, type ForkDevRequest, isEngineError } from '../../../engine/types.js'
import {
  automineParams,
  autoImpersonateParams,
  baseFeeParams,
  evmMineParams,
  impersonateParams,
  increaseTimeParams,
  loadStateParams,
  mineParams,
  nextTimestampParams,
  none,
  pendingNonceParams,
  resetParams,
  revertParams,
  sendRawTransactionParams,
  sendTransactionParams,
  setBalanceParams,
  setCodeParams,
  setNonceParams,
  setStorageAtParams,
  stopImpersonatingParams,
} from '../params/devParams.js'
import { accountReadParams } from '../params/readParams.js'
import { RpcError } from '../rpcError.js'
import type { RpcContext } from '../types.js'
import { type AnyRpcMethod, method } from './table.js'

/** the fork a request's context names (set by the fork's route; every fork method runs on it) */
export function forkOf(ctx: RpcContext): ForkAt {
  const { fork } = ctx.at
  if (fork === undefined) throw new Error("a fork method ran outside a fork's endpoint")
  return { ...ctx.at, fork }
}

/** the operation on the request's fork; the engine's answer */
const dev = (request: ForkDevRequest, ctx: RpcContext): Promise<unknown> => ctx.engine.forkRpc(forkOf(ctx), request)
/** Anvil's answer to a setter */
const nothing = async (request: ForkDevRequest, ctx: RpcContext): Promise<null> => (await dev(request, ctx), null)
/** Hardhat's answer to a setter */
const done = async (request: ForkDevRequest, ctx: RpcContext): Promise<true> => (await dev(request, ctx), true)

/** a transaction whose gas estimate reverted: code 3 with the revert bytes, as eth_estimateGas answers */
async function withRevertCode(run: Promise<unknown>): Promise<unknown> {
  try {
    return await run
  } catch (e) {
    const data = isEngineError(e) ? e.details?.revertData : undefined
    if (typeof data === 'string') throw new RpcError(3, (e as Error).message, data)
    throw e
  }
}

export const DEV_METHODS: readonly AnyRpcMethod[] = [
  method(['eth_sendRawTransaction'], sendRawTransactionParams, dev),
  method(['eth_sendTransaction'], sendTransactionParams, (r, ctx) => withRevertCode(dev(r, ctx))),
  method(['evm_mine'], evmMineParams, async (r, ctx) => (await dev(r, ctx), '0x0')),
  method(['anvil_mine', 'hardhat_mine'], mineParams, nothing),
  method(['anvil_setAutomine', 'evm_setAutomine'], automineParams, nothing),
  method(['anvil_getAutomine', 'hardhat_getAutomine'], none('getAutomine'), dev),
  method(['anvil_snapshot', 'evm_snapshot'], none('snapshot'), dev),
  method(['anvil_revert', 'evm_revert'], revertParams, dev),
  method(['anvil_increaseTime', 'evm_increaseTime'], increaseTimeParams, dev),
  method(['anvil_setNextBlockTimestamp', 'evm_setNextBlockTimestamp'], nextTimestampParams, nothing),
  method(['anvil_setNextBlockBaseFeePerGas'], baseFeeParams, nothing),
  method(['hardhat_setNextBlockBaseFeePerGas'], baseFeeParams, done),
  method(['anvil_setBalance'], setBalanceParams, nothing),
  method(['hardhat_setBalance'], setBalanceParams, done),
  method(['anvil_setNonce'], setNonceParams, nothing),
  method(['hardhat_setNonce'], setNonceParams, done),
  method(['anvil_setCode'], setCodeParams, nothing),
  method(['hardhat_setCode'], setCodeParams, done),
  method(['anvil_setStorageAt', 'hardhat_setStorageAt'], setStorageAtParams, done),
  method(['anvil_impersonateAccount'], impersonateParams, nothing),
  method(['hardhat_impersonateAccount'], impersonateParams, done),
  method(['anvil_stopImpersonatingAccount'], stopImpersonatingParams, nothing),
  method(['hardhat_stopImpersonatingAccount'], stopImpersonatingParams, done),
  method(['anvil_autoImpersonateAccount'], autoImpersonateParams, nothing),
  method(['anvil_dumpState'], none('dumpState'), dev),
  method(['anvil_loadState'], loadStateParams, done),
  method(['anvil_reset', 'hardhat_reset'], resetParams, nothing),
  // the pool's view only for `pending`; every other block is a read of the chain
  method(
    ['eth_getTransactionCount'],
    (params) => (params[1] === 'pending' ? pendingNonceParams(params) : { read: accountReadParams(params) }),
    (p, ctx) => ('read' in p ? ctx.engine.readChain(ctx.at, 'eth_getTransactionCount', p.read) : dev(p, ctx)),
  ),
]
