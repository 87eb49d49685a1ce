/** Contracts of the engine's fork tests, compiled with npm solc in the test (no artifacts). */
import { compile, type CompiledContract } from '../support/solc.js'

const SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Token {
    string public constant symbol = "TKN";
    uint8 public constant decimals = 18;
    mapping(address => uint256) public balanceOf;
    event Transfer(address indexed from, address indexed to, uint256 value);
    error Short(uint256 have, uint256 want);
    constructor(uint256 supply) { balanceOf[msg.sender] = supply; emit Transfer(address(0), msg.sender, supply); }
    function transfer(address to, uint256 value) external returns (bool) {
        uint256 have = balanceOf[msg.sender];
        if (have < value) revert Short(have, value);
        balanceOf[msg.sender] = have - value;
        balanceOf[to] += value;
        emit Transfer(msg.sender, to, value);
        return true;
    }
}

contract Child {
    uint256 public v;
    event Born(uint256 v);
    constructor(uint256 x) payable { v = x; emit Born(x); }
}

contract Probe {
    uint256 public counter;
    event Ping(uint256 indexed n, address sender);

    function nested(address token, address to, uint256 amount) external returns (uint256) {
        Token(token).transfer(to, amount);
        counter += 1;
        emit Ping(counter, msg.sender);
        return counter;
    }
    function make(uint256 x) external payable returns (address) {
        return address(new Child{value: msg.value}(x));
    }
    function forward(address payable to) external payable { to.transfer(msg.value); }
    function check(uint256 x) external pure returns (uint256) { require(x < 10, "too big"); return 100 / x; }
    function env() external view returns (uint256, uint256, uint256, address) {
        return (block.number, block.timestamp, block.basefee, block.coinbase);
    }
    function prevHash(uint256 back) external view returns (bytes32) { return blockhash(block.number - back); }
    function tryMove(address token) external returns (bool ok) {
        (ok, ) = token.call(abi.encodeWithSignature("transfer(address,uint256)", address(1), 1e30));
        counter += 1;
    }
    function burn(uint256 rounds) external returns (uint256 acc) {
        for (uint256 i = 0; i < rounds; i++) acc = uint256(keccak256(abi.encode(acc, i)));
        counter = acc;
    }
}
`

let cached: Record<string, CompiledContract> | undefined
export function engineContracts(): Record<string, CompiledContract> {
  cached ??= compile({ 'Engine.sol': SOURCE })
  return cached
}
