/**
 * The contracts the bench deploys on Anvil: an ERC-20 and two pools a router swaps through (two
 * hops touch four contracts, like a small swap route). Compiled with solc by the bench tools.
 *
 * @example
 * const { Token, Pool, Router } = compile({ 'Bench.sol': BENCH_SOURCE })
 */
export const BENCH_SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Token {
    mapping(address => uint256) public balanceOf;
    event Transfer(address indexed from, address indexed to, uint256 value);
    constructor(uint256 supply) { balanceOf[msg.sender] = supply; }
    function transfer(address to, uint256 v) external returns (bool) {
        balanceOf[msg.sender] -= v; balanceOf[to] += v; emit Transfer(msg.sender, to, v); return true;
    }
}
/// Two hops through two pools: touches four contracts, like a small swap route.
contract Pool {
    Token public a; Token public b; uint256 public reserve;
    constructor(Token a_, Token b_) { a = a_; b = b_; }
    function swap(address to, uint256 v) external returns (uint256 out) { reserve += v; out = v * 997 / 1000; b.transfer(to, out); }
}
contract Router {
    function route(Pool p1, Pool p2, address to, uint256 v) external returns (uint256) {
        uint256 mid = p1.swap(address(p2), v);
        return p2.swap(to, mid);
    }
}`
