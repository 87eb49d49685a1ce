/**
 * executeTransaction against a real Anvil: the same transaction is mined by Anvil and run by us
 * on the state before its block, and the receipt gas must agree (intrinsic gas, refunds, the
 * create deposit). Also: geth's pre-execution errors (funds, intrinsic gas, nonce), eth_call
 * semantics (zero fees → base fee 0), state carried between the calls of a bundle, a call from
 * an address with code, and the callTracer's top frame fed by the adapter.
 */
import { encodeDeployData, encodeFunctionData, decodeFunctionResult, toHex, type Address, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRpcChain, type RpcChain } from '../../../engine/chains/remote/rpcChain.js'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { EngineError } from '../../../engine/platform/errors.js'
import { withCallDefaults } from '../../../engine/run/callDefaults.js'
import { executeCall } from '../../../engine/execution/executeTransaction.js'
import type { CallInput, ExecutionContext } from '../../../engine/execution/types.js'
import { executionContext } from '../../../engine/run/blockEnvironment.js'
import { createCallTracer } from '../../../tracers/callTracer.js'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../../support/anvil.js'
import { compile, type CompiledContract } from '../../support/solc.js'

const SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Box {
  uint256 public value;
  mapping(uint256 => uint256) public slots;
  event Stored(address indexed by, uint256 value);
  function store(uint256 v) external { value = v; emit Stored(msg.sender, v); }
  function fillThenClear(uint256 n) external {
    for (uint256 i = 0; i < n; i++) slots[i] = i + 1;
    for (uint256 i = 0; i < n; i++) delete slots[i];
  }
  function clear(uint256 n) external { for (uint256 i = 0; i < n; i++) delete slots[i]; }
  function fill(uint256 n) external { for (uint256 i = 0; i < n; i++) slots[i] = i + 1; }
  function fail(string calldata why) external pure { revert(why); }
  function burn() external view { while (gasleft() > 0) {} }
}
`

const hasAnvil = requireAnvil()
const FROM = DEV_ACCOUNTS[0] as Address
const POOR = '0x00000000000000000000000000000000000000aa' as Address

interface Receipt {
  status: Hex
  gasUsed: Hex
  blockNumber: Hex
  contractAddress: Address | null
}

describe.runIf(hasAnvil)('executeTransaction vs Anvil receipts', () => {
  let anvil: AnvilInstance
  let chain: RpcChain
  let box: CompiledContract
  let boxAddress: Address

  const mine = async (tx: { to?: Address; data: Hex; value?: bigint; gas: bigint }): Promise<Receipt> => {
    const hash = await anvil.rpc<Hex>('eth_sendTransaction', [{ from: FROM, to: tx.to, data: tx.data, value: toHex(tx.value ?? 0n), gas: toHex(tx.gas) }])
    let r: Receipt | null = null
    for (let i = 0; !r && i < 100; i++) {
      r = await anvil.rpc<Receipt | null>('eth_getTransactionReceipt', [hash])
      if (!r) await new Promise((res) => setTimeout(res, 20))
    }
    return r!
  }

  /** a fresh context on the state after block `n` */
  const contextAt = async (n: bigint): Promise<ExecutionContext> => {
    const header = await chain.resolveBlock({ number: n })
    return executionContext(chain, header, await chain.stateAfter(header.number))
  }

  /** mines `call` on Anvil and runs it ourselves on the state before that block */
  const both = async (call: Omit<CallInput, 'from'> & { gas: bigint }) => {
    const head = BigInt(await anvil.rpc<Hex>('eth_blockNumber'))
    const ctx = await contextAt(head)
    const ours = await executeCall(ctx, { from: FROM, ...call })
    const receipt = await mine({ to: call.to ?? undefined, data: call.data, value: call.value, gas: call.gas })
    return { ours, receipt }
  }

  const data = (functionName: string, args: unknown[] = []): Hex => encodeFunctionData({ abi: box.abi, functionName, args } as never)

  beforeAll(async () => {
    anvil = await startAnvil()
    chain = await createRpcChain({ url: anvil.url, timeoutMs: 10_000, cache: createMemoryCacheStore() })
    box = compile({ 'Box.sol': SOURCE }).Box!
    const r = await mine({ data: encodeDeployData({ abi: box.abi, bytecode: box.bytecode }), gas: 3_000_000n })
    boxAddress = r.contractAddress!.toLowerCase() as Address
  }, 60_000)

  afterAll(async () => {
    await chain?.close()
    await anvil?.stop()
  })

  it('a plain transfer uses 21000, as the receipt', async () => {
    const { ours, receipt } = await both({ to: DEV_ACCOUNTS[5] as Address, data: '0x', value: 12345n, gas: 100_000n })
    expect(ours.status).toBe('success')
    expect(ours.gasUsed).toBe(21_000n)
    expect(ours.gasUsed).toBe(BigInt(receipt.gasUsed))
    expect(ours.logs).toEqual([])
  })

  it('a storage write with an event: gas and log equal the receipt', async () => {
    const { ours, receipt } = await both({ to: boxAddress, data: data('store', [7n]), gas: 200_000n })
    expect(receipt.status).toBe('0x1')
    expect(ours.gasUsed).toBe(BigInt(receipt.gasUsed))
    expect(ours.logs).toHaveLength(1)
    expect(ours.logs[0]!.address).toBe(boxAddress)
    expect(ours.logs[0]!.topics[1]).toBe(`0x${FROM.slice(2).padStart(64, '0')}`)
  })

  it('refunds are applied (clearing slots), as in the receipt', async () => {
    await mine({ to: boxAddress, data: data('fill', [5n]), gas: 500_000n })
    const { ours, receipt } = await both({ to: boxAddress, data: data('clear', [5n]), gas: 500_000n })
    expect(ours.gasUsed).toBe(BigInt(receipt.gasUsed))
  })

  it('a revert: status, geth error string, revert data and gas as the receipt', async () => {
    const { ours, receipt } = await both({ to: boxAddress, data: data('fail', ['nope']), gas: 100_000n })
    expect(receipt.status).toBe('0x0')
    expect(ours.status).toBe('reverted')
    expect(ours.error).toBe('execution reverted')
    expect(ours.returnData.startsWith('0x08c379a0')).toBe(true)
    expect(ours.gasUsed).toBe(BigInt(receipt.gasUsed))
  })

  it('an exceptional halt (out of gas) consumes the whole gas limit', async () => {
    const { ours, receipt } = await both({ to: boxAddress, data: data('burn'), gas: 60_000n })
    expect(receipt.status).toBe('0x0')
    expect(ours.status).toBe('failed')
    expect(ours.error).toBe('out of gas')
    expect(ours.gasUsed).toBe(60_000n)
    expect(ours.gasUsed).toBe(BigInt(receipt.gasUsed))
  })

  it('a contract creation: gas and deployed address as the receipt', async () => {
    const { ours, receipt } = await both({ to: null, data: encodeDeployData({ abi: box.abi, bytecode: box.bytecode }), gas: 3_000_000n })
    expect(ours.status).toBe('success')
    expect(ours.createdAddress).toBe(receipt.contractAddress!.toLowerCase())
    expect(ours.gasUsed).toBe(BigInt(receipt.gasUsed))
    expect(ours.returnData).toBe(box.deployedBytecode.toLowerCase())
  })

  it('calldata-heavy transfer: the EIP-7623 floor sets the receipt gas, as Anvil’s', async () => {
    const calldata = `0x${'ab'.repeat(1000)}` as Hex
    const { ours, receipt } = await both({ to: DEV_ACCOUNTS[6] as Address, data: calldata, gas: 100_000n })
    // standard 21000 + 16/byte = 37000; floor 21000 + 10 × (4 tokens/byte) = 61000
    expect(ours.gasUsed).toBe(61_000n)
    expect(ours.gasUsed).toBe(BigInt(receipt.gasUsed))
  })

  it('gas between intrinsic gas and the calldata floor is INSUFFICIENT_GAS naming the floor', async () => {
    const ctx = await contextAt(BigInt(await anvil.rpc<Hex>('eth_blockNumber')))
    const err = await executeCall(ctx, { from: FROM, to: POOR, data: `0x${'ab'.repeat(1000)}`, gas: 50_000n }).catch((e: unknown) => e)
    expect((err as EngineError).code).toBe('INSUFFICIENT_GAS')
    expect((err as EngineError).message).toBe('insufficient gas for floor data gas cost: have 50000, want 61000')
  })

  it('insufficient funds for value is a VALIDATION_ERROR with geth’s message', async () => {
    const ctx = await contextAt(BigInt(await anvil.rpc<Hex>('eth_blockNumber')))
    const err = await executeCall(ctx, { from: POOR, to: FROM, data: '0x', value: 1n, gas: 21_000n }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(EngineError)
    expect((err as EngineError).code).toBe('VALIDATION_ERROR')
    expect((err as EngineError).message).toMatch(/^insufficient funds for gas \* price \+ value: address 0x0*aa have 0 want 1$/)
  })

  it('gas × price counts against the balance too (validation off)', async () => {
    const ctx = await contextAt(BigInt(await anvil.rpc<Hex>('eth_blockNumber')))
    const err = await executeCall(ctx, { from: POOR, to: FROM, data: '0x', gas: 21_000n, gasPrice: 10_000_000_000n }).catch((e: unknown) => e)
    expect((err as EngineError).code).toBe('VALIDATION_ERROR')
    expect((err as EngineError).message).toContain('want 210000000000000')
  })

  it('gas below the intrinsic gas is INSUFFICIENT_GAS naming both numbers', async () => {
    const ctx = await contextAt(BigInt(await anvil.rpc<Hex>('eth_blockNumber')))
    const err = await executeCall(ctx, { from: FROM, to: boxAddress, data: '0x', gas: 20_000n }).catch((e: unknown) => e)
    expect((err as EngineError).code).toBe('INSUFFICIENT_GAS')
    expect((err as EngineError).message).toBe('intrinsic gas too low: have 20000, want 21000')
  })

  it('validation=true checks the nonce; off, any nonce runs', async () => {
    const ctx = await contextAt(BigInt(await anvil.rpc<Hex>('eth_blockNumber')))
    const nonce = await ctx.state.getAccount((await import('@ethereumjs/util')).createAddressFromString(FROM))
    const call: CallInput = {
      from: FROM,
      to: POOR,
      data: '0x',
      gas: 21_000n,
      nonce: nonce!.nonce + 5n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1n,
    }
    const err = await executeCall(ctx, call, { validation: true }).catch((e: unknown) => e)
    expect((err as EngineError).code).toBe('VALIDATION_ERROR')
    expect((err as EngineError).message).toMatch(/^nonce too high/)
    const relaxed = await executeCall(await contextAt(BigInt(await anvil.rpc<Hex>('eth_blockNumber'))), call)
    expect(relaxed.status).toBe('success')
  })

  it('validation=true rejects a zero fee under a base fee; eth_call semantics run it with base fee 0', async () => {
    const head = BigInt(await anvil.rpc<Hex>('eth_blockNumber'))
    const ctx = await contextAt(head)
    expect(ctx.block.baseFeePerGas).toBeGreaterThan(0n)
    const call: CallInput = { from: POOR, to: boxAddress, data: data('value'), gas: 50_000n }
    const relaxed = await executeCall(ctx, call)
    expect(relaxed.status).toBe('success')
    const err = await executeCall(await contextAt(head), call, { validation: true }).catch((e: unknown) => e)
    expect((err as EngineError).code).toBe('VALIDATION_ERROR')
    expect((err as EngineError).message).toMatch(/^max fee per gas less than block base fee/)
  })

  it('calls of a bundle carry state: a write is seen by the next call', async () => {
    const ctx = await contextAt(BigInt(await anvil.rpc<Hex>('eth_blockNumber')))
    await executeCall(ctx, { from: FROM, to: boxAddress, data: data('store', [424242n]), gas: 100_000n })
    const read = await executeCall(ctx, { from: FROM, to: boxAddress, data: data('value'), gas: 100_000n })
    expect(decodeFunctionResult({ abi: box.abi, functionName: 'value', data: read.returnData } as never)).toBe(424242n)
  })

  it('default gas is the block gas limit, capped by gasCap', async () => {
    const ctx = await contextAt(BigInt(await anvil.rpc<Hex>('eth_blockNumber')))
    const tracer = createCallTracer()
    const call = withCallDefaults('simulate', { from: FROM, to: boxAddress, data: data('value') }, { blockGasLimit: ctx.block.gasLimit, gasCap: 5_000_000n })
    await executeCall(ctx, call, { tracers: [tracer] })
    expect(tracer.result().gas).toBe(toHex(5_000_000n))
  })

  it('a contract can be the sender (geth skips EIP-3607 for calls) and keeps its code', async () => {
    const ctx = await contextAt(BigInt(await anvil.rpc<Hex>('eth_blockNumber')))
    const r = await executeCall(ctx, { from: boxAddress, to: POOR, data: '0x', gas: 21_000n })
    expect(r.status).toBe('success')
    const { createAddressFromString, bytesToHex } = await import('@ethereumjs/util')
    expect(bytesToHex(await ctx.state.getCode(createAddressFromString(boxAddress)))).toBe(box.deployedBytecode.toLowerCase())
  })

  it('callTracer top frame: gas = tx gas limit, gasUsed = receipt gas (as Anvil’s receipt)', async () => {
    const head = BigInt(await anvil.rpc<Hex>('eth_blockNumber'))
    const ctx = await contextAt(head)
    const tracer = createCallTracer({ withLog: true })
    const ours = await executeCall(ctx, { from: FROM, to: boxAddress, data: data('store', [9n]), gas: 150_000n }, { tracers: [tracer] })
    const receipt = await mine({ to: boxAddress, data: data('store', [9n]), gas: 150_000n })
    const frame = tracer.result()
    expect(frame.gas).toBe(toHex(150_000n))
    expect(frame.gasUsed).toBe(toHex(ours.gasUsed))
    expect(BigInt(frame.gasUsed)).toBe(BigInt(receipt.gasUsed))
    expect(frame.logs?.[0]?.index).toBe('0x0')
    expect(frame.logs?.[0]?.position).toBe('0x0')
  })
})
