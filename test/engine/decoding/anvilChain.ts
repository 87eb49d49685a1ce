/**
 * A real Anvil as the chain of the asset-change tests: deploy and send with its unlocked dev
 * accounts, read balances at a block with eth_call/eth_getBalance, and replay Anvil's own
 * callTracer output (withLog) through our hook-driven transfers tracer.
 */
import { encodeDeployData, encodeFunctionData, toHex, type Abi, type Address, type Hex } from 'viem'
import type { AnvilInstance } from '../../support/anvil.js'
import type { CompiledContract } from '../../support/solc.js'
import type { BalanceReader } from '../../../engine/execution/observers/assetChanges.js'
import type { ReadCall } from '../../../engine/decoding/tokenInfo.js'
import { createTransfersTracer } from '../../../engine/execution/observers/transfers.js'
import type { CallType } from '../../../tracers/types.js'
import type { Transfer } from '../../../engine/types.js'

export interface Receipt {
  status: Hex
  blockNumber: Hex
  gasUsed: Hex
  effectiveGasPrice: Hex
  contractAddress: Address | null
  transactionHash: Hex
  logs: { address: Address; topics: Hex[]; data: Hex }[]
}

export interface Sent extends Receipt {
  /** the block before the transaction's: the state it ran on */
  before: bigint
  after: bigint
  fee: bigint
}

export function chain(anvil: AnvilInstance) {
  // A fixed, generous gas limit: Anvil's estimate can starve an inner call that a try/catch survives.
  const send = async (tx: { from: Address; to?: Address; data?: Hex; value?: bigint }): Promise<Sent> => {
    const hash = await anvil.rpc<Hex>('eth_sendTransaction', [
      { from: tx.from, to: tx.to, data: tx.data ?? '0x', gas: toHex(3_000_000n), value: tx.value === undefined ? undefined : toHex(tx.value) },
    ])
    // Anvil automines, but the receipt may become visible a moment after the hash is returned.
    let receipt: Receipt | null = null
    for (let tries = 0; !receipt && tries < 100; tries++) {
      receipt = await anvil.rpc<Receipt | null>('eth_getTransactionReceipt', [hash])
      if (!receipt) await new Promise((r) => setTimeout(r, 20))
    }
    if (!receipt) throw new Error(`no receipt for ${hash}`)
    if (receipt.status !== '0x1') throw new Error(`transaction ${hash} failed`)
    const after = BigInt(receipt.blockNumber)
    return { ...receipt, before: after - 1n, after, fee: BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice) }
  }

  const deploy = async (from: Address, c: CompiledContract, args: unknown[] = [], value?: bigint): Promise<Address> => {
    const r = await send({ from, value, data: encodeDeployData({ abi: c.abi, bytecode: c.bytecode, args }) })
    if (!r.contractAddress) throw new Error('deployment failed')
    return r.contractAddress.toLowerCase() as Address
  }

  const call = (from: Address, to: Address, abi: Abi, functionName: string, args: unknown[] = [], value?: bigint) =>
    send({ from, to, value, data: encodeFunctionData({ abi, functionName, args } as never) })

  const readCallAt =
    (block: bigint): ReadCall =>
    async (to, data) => {
      try {
        return await anvil.rpc<Hex>('eth_call', [{ to, data }, toHex(block)])
      } catch {
        return undefined // reverted: the caller treats it as "no answer"
      }
    }

  const readerAt = (block: bigint): BalanceReader => ({
    nativeBalance: async (address) => BigInt(await anvil.rpc<Hex>('eth_getBalance', [address, toHex(block)])),
    call: readCallAt(block),
  })

  return { send, deploy, call, readCallAt, readerAt, transfersOf: (hash: Hex) => transfersOf(anvil, hash) }
}

interface CallFrame {
  type: string
  from: Address
  to: Address
  value?: Hex
  input: Hex
  gas: Hex
  gasUsed: Hex
  error?: string
  calls?: CallFrame[]
  logs?: { address: Address; topics: Hex[]; data: Hex; position?: Hex }[]
}

/** Feeds Anvil's callTracer tree (withLog) into the transfers tracer as the adapter would. */
async function transfersOf(anvil: AnvilInstance, hash: Hex): Promise<{ transfers: Transfer[]; tree: CallFrame }> {
  const tree = await anvil.rpc<CallFrame>('debug_traceTransaction', [hash, { tracer: 'callTracer', tracerConfig: { withLog: true } }])
  const tracer = createTransfersTracer()
  let index = 0
  const walk = (frame: CallFrame, depth: number) => {
    tracer.onEnter({
      depth,
      type: frame.type as CallType,
      from: frame.from,
      to: frame.to,
      input: frame.input,
      gas: BigInt(frame.gas),
      value: frame.value === undefined ? undefined : BigInt(frame.value),
    })
    // geth: a log's `position` is the number of child calls made before it
    const calls = frame.calls ?? []
    const logs = frame.logs ?? []
    let next = 0
    const emitLogsUpTo = (position: number) => {
      while (next < logs.length && Number(logs[next]!.position ?? 0) <= position) {
        const log = logs[next++]!
        tracer.onLog({ ...log, depth, index: index++ })
      }
    }
    calls.forEach((child, i) => {
      emitLogsUpTo(i)
      walk(child, depth + 1)
    })
    emitLogsUpTo(Number.MAX_SAFE_INTEGER)
    tracer.onExit({ depth, output: '0x', gasUsed: BigInt(frame.gasUsed), error: frame.error, reverted: frame.error !== undefined })
  }
  walk(tree, 0)
  return { transfers: tracer.result(), tree }
}
