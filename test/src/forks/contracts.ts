/**
 * The contracts the fork tests deploy, compiled with npm solc: an ERC-20 and a router that pulls
 * tokens with transferFrom and pays out (a swap-shaped call through two contracts, which reverts
 * with a reason when asked for too much), and a clock that records block times.
 */
import { compile, type CompiledContract } from '../../support/solc.js'

const SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Token {
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    constructor(uint256 supply) { balanceOf[msg.sender] = supply; emit Transfer(address(0), msg.sender, supply); }
    function transfer(address to, uint256 v) external returns (bool) { _move(msg.sender, to, v); return true; }
    function approve(address s, uint256 v) external returns (bool) { allowance[msg.sender][s] = v; emit Approval(msg.sender, s, v); return true; }
    function transferFrom(address f, address t, uint256 v) external returns (bool) {
        require(allowance[f][msg.sender] >= v, "allowance");
        allowance[f][msg.sender] -= v; _move(f, t, v); return true;
    }
    function _move(address f, address t, uint256 v) internal { require(balanceOf[f] >= v, "balance"); balanceOf[f] -= v; balanceOf[t] += v; emit Transfer(f, t, v); }
}

contract Router {
    Token public immutable token;
    event Swapped(address indexed who, uint256 amountIn, uint256 amountOut);
    constructor(Token t) { token = t; }
    /// takes amountIn from the caller, pays back 99% of it from the router's own balance
    function swap(uint256 amountIn, uint256 minOut) external returns (uint256 out) {
        out = amountIn * 99 / 100;
        require(out >= minOut, "slippage");
        token.transferFrom(msg.sender, address(this), amountIn);
        token.transfer(msg.sender, out);
        emit Swapped(msg.sender, amountIn, out);
    }
}

contract Clock {
    uint256 public last;
    function tick() external { last = block.timestamp; }
}
`

let compiled: Record<string, CompiledContract> | undefined

export function forkContracts(): { Token: CompiledContract; Router: CompiledContract; Clock: CompiledContract } {
  compiled ??= compile({ 'Fork.sol': SOURCE })
  return { Token: compiled.Token!, Router: compiled.Router!, Clock: compiled.Clock! }
}
