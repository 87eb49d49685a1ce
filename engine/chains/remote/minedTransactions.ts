/**
 * Mined transactions from the upstream's JSON as ethereumjs typed transactions ready to replay:
 * the chain's own types first (an OP deposit), and the sender the node recovered already.
 */
import type { Common } from '@ethereumjs/common'
import { createTxFromRPC, type TypedTransaction } from '@ethereumjs/tx'
import { createAddressFromString } from '@ethereumjs/util'
import type { Address, Hex } from 'viem'
import { EngineError } from '../../platform/errors.js'
import type { UpstreamAnswer } from '../../upstream/upstreamAnswers.js'
import type { ChainRules } from '../rules.js'
import type { MinedTransaction } from '../types.js'

/** a transaction as checked at the edge (upstreamAnswers.ts): every field read is well-formed */
export type RpcTx = NonNullable<UpstreamAnswer<'eth_getTransactionByHash'>>

/** an ethereumjs typed tx from the node's JSON, its sender fixed to the node's `from` */
export async function toMined(t: RpcTx, common: Common, rules: ChainRules | undefined): Promise<MinedTransaction> {
  let tx: TypedTransaction
  // the chain's own transaction types first (an OP deposit; Arbitrum's answer NOT_EMULATED)
  const own = await rules?.decodeTx?.(t as Record<string, unknown>, common)
  if (own)
    return {
      tx: own.tx,
      from: own.from,
      hash: t.hash.toLowerCase() as Hex,
      blockNumber: BigInt(t.blockNumber!),
      index: Number(BigInt(t.transactionIndex ?? '0x0')),
    }
  try {
    tx = (await createTxFromRPC(t as never, { common, freeze: false })) as TypedTransaction
  } catch {
    throw new EngineError('VALIDATION_ERROR', `transaction ${t.hash} has a type (${t.type ?? 'unknown'}) this service cannot replay`)
  }
  const from = t.from.toLowerCase() as Address
  const sender = createAddressFromString(from)
  // the node already recovered the sender: replays must not pay (or fail) recovering it again
  ;(tx as { getSenderAddress: () => typeof sender }).getSenderAddress = () => sender
  return {
    tx,
    from,
    hash: t.hash.toLowerCase() as Hex,
    blockNumber: BigInt(t.blockNumber!),
    index: Number(BigInt(t.transactionIndex ?? '0x0')),
  }
}
