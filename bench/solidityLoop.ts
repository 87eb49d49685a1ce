/**
 * The Solidity loop the in-process benches trace: storage reads and writes, hashing and a stack
 * of contract depth, put in place by a state override at LOOPER (no deployment, the devnet's
 * `latest`). `loopCall(n)` runs n turns: about 225 steps each.
 */
import { encodeFunctionData, type Address, type Hex } from 'viem'
import { compile } from '../test/support/solc.js'

export const FROM = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266' as Address
export const LOOPER = '0x0000000000000000000000000000000000001000' as Address

export const SOLIDITY_LOOP = compile({
  'L.sol': `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract L { mapping(address => uint256) public balanceOf;
  function loop(uint256 n) external returns (uint256 s) { for (uint256 i; i < n; i++) { s += i; balanceOf[address(uint160(i % 4))] += 1; } } }`,
}).L!

export const loopData = (turns: number): Hex => encodeFunctionData({ abi: SOLIDITY_LOOP.abi, functionName: 'loop', args: [BigInt(turns)] })
