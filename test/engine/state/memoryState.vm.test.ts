/**
 * The devnet flow on a real ethereumjs VM: genesis alloc → overlay → runTx → flatten → a new
 * MemoryStateSource layer per block, with reverted frames, refunds and self-destructs exact.
 */
import { createBlock } from '@ethereumjs/block'
import { Mainnet, createCustomCommon } from '@ethereumjs/common'
import { createLegacyTx } from '@ethereumjs/tx'
import { bytesToHex, createAddressFromString, hexToBytes } from '@ethereumjs/util'
import { createVM, runTx } from '@ethereumjs/vm'
import { decodeFunctionResult, encodeDeployData, encodeFunctionData, getContractAddress, type Hex } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { MemoryStateSource, OverlayStateManager, createStateReader } from '../../../engine/state/index.js'
import { compile, type CompiledContract } from '../../support/solc.js'

const SOURCE = `
pragma solidity ^0.8.20;
contract Counter {
  uint256 public count;
  mapping(uint256 => uint256) public m;
  function bump() external { count += 1; }
  function inner(uint256 x) external { m[x] = x; count = 1000; revert("no"); }
  function tryInner(uint256 x) external { try this.inner(x) {} catch {} m[x + 1] = 1; }
  function reset() external { count = 0; }
}`

const PK = hexToBytes('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
const FROM = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266' as Hex
const common = createCustomCommon({ chainId: 31337 }, Mainnet, { hardfork: 'prague' })
let counter: CompiledContract

/** mines one tx on `source` as block `n`; returns the next layer and the tx result */
async function mineOn(source: MemoryStateSource, n: bigint, nonce: bigint, to: Hex | undefined, data: Hex) {
  const state = new OverlayStateManager(source)
  const vm = await createVM({ common: common.copy(), stateManager: state })
  const block = createBlock({ header: { number: n, timestamp: 1_700_000_000n + n, gasLimit: 30_000_000n, baseFeePerGas: 7n } }, { common: vm.common })
  const tx = createLegacyTx({ nonce, gasPrice: 10n, gasLimit: 3_000_000n, to, data }, { common: vm.common }).sign(PK)
  const result = await runTx(vm, { tx, block })
  return { next: source.withWrites(state.flatten()), result, state }
}

async function read(source: MemoryStateSource, to: Hex, fn: 'count' | 'm', args: bigint[] = []) {
  const state = new OverlayStateManager(source)
  const vm = await createVM({ common: common.copy(), stateManager: state })
  const r = await vm.evm.runCall({
    caller: createAddressFromString(FROM),
    to: createAddressFromString(to),
    data: hexToBytes(encodeFunctionData({ abi: counter.abi, functionName: fn, args })),
    gasLimit: 1_000_000n,
  })
  return decodeFunctionResult({ abi: counter.abi, functionName: fn, data: bytesToHex(r.execResult.returnValue) as Hex }) as bigint
}

describe('MemoryStateSource + OverlayStateManager on a real VM', () => {
  beforeAll(() => {
    counter = compile({ 'Counter.sol': SOURCE }).Counter!
  })

  it('blocks become layers; every earlier layer keeps its own state', async () => {
    const genesis = MemoryStateSource.fromAlloc({ [FROM]: { balance: 10n ** 21n } })
    const addr = getContractAddress({ from: FROM, nonce: 0n }).toLowerCase() as Hex
    const b1 = await mineOn(genesis, 1n, 0n, undefined, encodeDeployData({ abi: counter.abi, bytecode: counter.bytecode }))
    expect(b1.result.execResult.exceptionError).toBeUndefined()
    expect(bytesToHex(await b1.next.getCode(addr))).toBe(counter.deployedBytecode)

    const bump = encodeFunctionData({ abi: counter.abi, functionName: 'bump' })
    const b2 = await mineOn(b1.next, 2n, 1n, addr, bump)
    const b3 = await mineOn(b2.next, 3n, 2n, addr, bump)
    expect(await read(b3.next, addr, 'count')).toBe(2n)
    expect(await read(b2.next, addr, 'count')).toBe(1n)
    expect(await read(b1.next, addr, 'count')).toBe(0n)
    // sender paid gas*price for each block, nonce moved by one per tx
    const sender = (await b3.next.getAccount(FROM))!
    expect(sender.nonce).toBe(3n)
    const spent = [b1, b2, b3].reduce((s, b) => s + b.result.totalGasSpent * 10n, 0n)
    expect(sender.balance).toBe(10n ** 21n - spent)
    // the tracer view reads the same state
    const reader = createStateReader(b3.state)
    expect(await reader.getStorage(addr, '0x0')).toBe(`0x${'2'.padStart(64, '0')}`)
    expect(await reader.getNonce(FROM)).toBe(3n)
    expect(await reader.isEmpty('0x000000000000000000000000000000000000dead')).toBe(true)
  })

  it('a caught revert leaves nothing; a reset refunds exactly (EIP-2200/3529 originals)', async () => {
    const genesis = MemoryStateSource.fromAlloc({ [FROM]: { balance: 10n ** 21n } })
    const addr = getContractAddress({ from: FROM, nonce: 0n }).toLowerCase() as Hex
    let { next } = await mineOn(genesis, 1n, 0n, undefined, encodeDeployData({ abi: counter.abi, bytecode: counter.bytecode }))
    ;({ next } = await mineOn(next, 2n, 1n, addr, encodeFunctionData({ abi: counter.abi, functionName: 'bump' })))
    const t = await mineOn(next, 3n, 2n, addr, encodeFunctionData({ abi: counter.abi, functionName: 'tryInner', args: [5n] }))
    expect(t.result.execResult.exceptionError).toBeUndefined()
    expect(await read(t.next, addr, 'count')).toBe(1n)
    expect(await read(t.next, addr, 'm', [5n])).toBe(0n)
    expect(await read(t.next, addr, 'm', [6n])).toBe(1n)
    expect([...t.state.flatten().storage.get(addr)!.slots.keys()]).toHaveLength(1)

    // count 1 → 0: the refund is computed from the original value at tx start
    const r = await mineOn(t.next, 4n, 3n, addr, encodeFunctionData({ abi: counter.abi, functionName: 'reset' }))
    expect(r.result.gasRefund).toBe(4800n) // EIP-3529 SSTORE_CLEARS_SCHEDULE: original 1, new 0
    expect(await read(r.next, addr, 'count')).toBe(0n)
  })
})
