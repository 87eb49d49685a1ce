/**
 * What ethereumjs answers for each call frame, with `patches/@ethereumjs+evm+10.1.3.patch`: the
 * frame runs the message itself (not a copy of its fields spread into a new object, with the gas
 * left after the call's own charges passed beside it), and the frame's result names its fields
 * instead of spreading them; the merged run state (the interpreter's state, the result and the
 * environment) is built only when read. These copies were 14% of a line-level CPU profile of the
 * EVM alone on a token transfer.
 * The tests fail if the patch is not applied, and check that what the stock code answered is still
 * what a caller reads, including the run state nobody in this service reads.
 */
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createEVM, type ExecResult } from '@ethereumjs/evm'
import { createAddressFromString, hexToBytes } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { INNER, nestedCallVm, OUTER, runData } from './nestedCallVm.js'

describe('a call frame’s result (the evm patch)', () => {
  it('builds the merged run state only when read, with what the stock spread held', async () => {
    const vm = await nestedCallVm()
    const from = createAddressFromString('0x00000000000000000000000000000000000000ee')
    const result = await vm.evm.runCall({ caller: from, to: OUTER, data: runData(), gasLimit: 1_000_000n })
    const exec = result.execResult
    expect(exec.exceptionError).toBeUndefined()
    // the patch: an accessor, not a copy made for every frame
    expect(typeof Object.getOwnPropertyDescriptor(exec, 'runState')?.get).toBe('function')
    // what the stock code put there: the interpreter's state, then the result, then the environment
    const runState = exec.runState as unknown as Record<string, unknown>
    expect(runState.gasLeft).toBe(exec.gas)
    expect(runState.address).toEqual(OUTER)
    expect(runState.caller).toEqual(from)
    expect(runState.depth).toBe(0)
    expect(runState.logs).toBe(exec.logs)
    expect(runState.returnValue).toEqual(exec.returnValue)
    // Outer.run returns inner.twice(100) + 1, and emitted its log; Inner cleared its slot (a refund)
    expect(BigInt(`0x${Buffer.from(exec.returnValue).toString('hex')}`)).toBe(201n)
    expect(exec.logs).toHaveLength(1)
    expect(exec.gasRefund).toBeGreaterThan(0n)
    expect(exec.executionGasUsed).toBeGreaterThan(0n)
    expect(exec.selfdestruct).toBeInstanceOf(Map)
    expect(await vm.stateManager.getStorage(INNER, new Uint8Array(32))).toEqual(new Uint8Array())
  })

  it('a frame that fails keeps the stock result: no logs, all gas used', async () => {
    const vm = await nestedCallVm()
    const target = createAddressFromString('0x00000000000000000000000000000000000000cd')
    // log0 of nothing, then an invalid opcode
    await vm.stateManager.putCode(target, hexToBytes('0x60006000a0fe'))
    const exec = (await vm.evm.runCall({ to: target, gasLimit: 50_000n })).execResult
    expect(exec.exceptionError?.error).toBe('invalid opcode')
    expect(exec.executionGasUsed).toBe(50_000n)
    expect(exec.logs).toEqual([])
    expect(exec.returnValue).toEqual(new Uint8Array())
  })

  it('a frame runs with the gas its caller passes beside the message, and the message keeps its own', async () => {
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }) })
    const target = createAddressFromString('0x00000000000000000000000000000000000000cd')
    // return(gas): GAS, then mstore and return the word
    await evm.stateManager.putCode(target, hexToBytes('0x5a60005260206000f3'))
    const message = { to: target, codeAddress: target, code: await evm.stateManager.getCode(target), gasLimit: 30_000n, depth: 0 }
    // what runCall sets before a frame runs (the transaction's gas price and origin)
    Object.assign(evm, { _tx: { gasPrice: 0n, origin: target } })
    // runInterpreter is protected: the patch's caller is _executeCall, which no public path reaches with less gas
    const runInterpreter = (evm as unknown as { runInterpreter(m: unknown, o: unknown): Promise<ExecResult> }).runInterpreter.bind(evm)
    const exec = await runInterpreter(message, { gasLimit: 10_000n })
    // GAS costs 2: what it saw is what the frame was given, less that
    expect(BigInt(`0x${Buffer.from(exec.returnValue).toString('hex')}`)).toBe(10_000n - 2n)
    expect(message.gasLimit).toBe(30_000n)
    expect(exec.executionGasUsed).toBe(10_000n - (exec.gas ?? 0n))
  })
})
