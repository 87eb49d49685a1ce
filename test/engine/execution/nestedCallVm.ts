/**
 * A fresh Prague VM holding two contracts, for tests that compare step events: Outer.run(inner)
 * grows memory, emits a log and calls Inner, which clears a slot (a refund). Shared by the lean
 * step hook's tests and the ethereumjs patch's.
 */
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createVM, type VM } from '@ethereumjs/vm'
import { createAddressFromString, hexToBytes } from '@ethereumjs/util'
import { encodeFunctionData } from 'viem'
import { compile } from '../../support/solc.js'

const SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Outer {
  event Seen(bytes data);
  function run(Inner inner) external returns (uint256) {
    bytes memory x = new bytes(100);
    x[5] = 0x01;
    emit Seen(x);
    return inner.twice(x.length) + uint8(x[5]);
  }
}
contract Inner {
  uint256 s = 1;
  function twice(uint256 n) external returns (uint256) { s = 0; return n * 2; }
}
`

export const OUTER = createAddressFromString('0x00000000000000000000000000000000000000aa')
export const INNER = createAddressFromString('0x00000000000000000000000000000000000000bb')

const contracts = compile({ 'NestedCall.sol': SOURCE })

/** the calldata of Outer.run(INNER) */
export const runData = (): Uint8Array => hexToBytes(encodeFunctionData({ abi: contracts.Outer!.abi, functionName: 'run', args: [INNER.toString()] }))

/** a fresh VM with Outer at OUTER and Inner at INNER (its slot 0 set to 1) */
export async function nestedCallVm(): Promise<VM> {
  const vm = await createVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }) })
  await vm.stateManager.putCode(OUTER, hexToBytes(contracts.Outer!.deployedBytecode))
  await vm.stateManager.putCode(INNER, hexToBytes(contracts.Inner!.deployedBytecode))
  await vm.stateManager.putStorage(INNER, new Uint8Array(32), new Uint8Array([1]))
  return vm
}
