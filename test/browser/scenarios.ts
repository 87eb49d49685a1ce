/**
 * Scenarios of the viewer's browser test. A nested swap: compiled with npm solc: `Scenario.run()` deploys two
 * tokens, a Uniswap-V2-style pair and router (the real function signatures, so the bundled ABIs
 * decode them), adds liquidity and swaps through the router. Placed by a state override (code
 * only: run() builds everything), so the devnet needs no transaction of its own. And a Fanout
 * making thousands of calls, some nested deep, for a large tree.
 */
import { compile, type CompiledContract } from '../support/solc.js'

const SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract SwapToken {
    string public symbol;
    uint8 public constant decimals = 18;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    constructor(string memory s, uint256 supply) { symbol = s; balanceOf[msg.sender] = supply; emit Transfer(address(0), msg.sender, supply); }
    function transfer(address to, uint256 v) external returns (bool) { _move(msg.sender, to, v); return true; }
    function approve(address s, uint256 v) external returns (bool) { allowance[msg.sender][s] = v; emit Approval(msg.sender, s, v); return true; }
    function transferFrom(address f, address t, uint256 v) external returns (bool) {
        require(allowance[f][msg.sender] >= v, "SwapToken: allowance");
        allowance[f][msg.sender] -= v; _move(f, t, v); return true;
    }
    function _move(address f, address t, uint256 v) internal { require(balanceOf[f] >= v, "SwapToken: balance"); balanceOf[f] -= v; balanceOf[t] += v; emit Transfer(f, t, v); }
}

contract Pair {
    address public token0; address public token1;
    uint112 reserve0; uint112 reserve1;
    event Sync(uint112 reserve0, uint112 reserve1);
    event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to);
    constructor(address a, address b) { token0 = a; token1 = b; }
    function getReserves() public view returns (uint112, uint112, uint32) { return (reserve0, reserve1, 0); }
    function sync() public {
        reserve0 = uint112(SwapToken(token0).balanceOf(address(this)));
        reserve1 = uint112(SwapToken(token1).balanceOf(address(this)));
        emit Sync(reserve0, reserve1);
    }
    function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata) external {
        require(amount0Out < reserve0 && amount1Out < reserve1, "Pair: INSUFFICIENT_LIQUIDITY");
        if (amount0Out > 0) SwapToken(token0).transfer(to, amount0Out);
        if (amount1Out > 0) SwapToken(token1).transfer(to, amount1Out);
        uint256 b0 = SwapToken(token0).balanceOf(address(this));
        uint256 b1 = SwapToken(token1).balanceOf(address(this));
        uint256 in0 = b0 > reserve0 - amount0Out ? b0 - (reserve0 - amount0Out) : 0;
        uint256 in1 = b1 > reserve1 - amount1Out ? b1 - (reserve1 - amount1Out) : 0;
        require(b0 * b1 >= uint256(reserve0) * reserve1, "Pair: K");
        reserve0 = uint112(b0); reserve1 = uint112(b1);
        emit Sync(reserve0, reserve1);
        emit Swap(msg.sender, in0, in1, amount0Out, amount1Out, to);
    }
}

contract Router {
    function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] calldata path, address to, uint256 deadline)
        external returns (uint256[] memory amounts)
    {
        require(deadline >= block.timestamp, "Router: EXPIRED");
        Pair pair = Pair(pairFor[path[0]][path[1]]);
        (uint256 out, bool zeroIn) = quote(pair, path[0], amountIn);
        require(out >= amountOutMin, "Router: INSUFFICIENT_OUTPUT_AMOUNT");
        SwapToken(path[0]).transferFrom(msg.sender, address(pair), amountIn);
        pair.swap(zeroIn ? 0 : out, zeroIn ? out : 0, to, "");
        amounts = new uint256[](2); amounts[0] = amountIn; amounts[1] = out;
    }
    function quote(Pair pair, address tokenIn, uint256 amountIn) internal view returns (uint256 out, bool zeroIn) {
        (uint112 r0, uint112 r1, ) = pair.getReserves();
        zeroIn = pair.token0() == tokenIn;
        (uint256 rIn, uint256 rOut) = zeroIn ? (uint256(r0), uint256(r1)) : (uint256(r1), uint256(r0));
        out = (amountIn * 997 * rOut) / (rIn * 1000 + amountIn * 997);
    }
    mapping(address => mapping(address => address)) public pairFor;
    function register(address a, address b, address pair) external { pairFor[a][b] = pair; pairFor[b][a] = pair; }
}

contract Scenario {
    function run(uint256 amountIn, uint256 amountOutMin) external returns (uint256 out) {
        SwapToken a = new SwapToken("WETH", 1000 ether);
        SwapToken b = new SwapToken("USDC", 2000000 ether);
        Pair pair = new Pair(address(a), address(b));
        Router router = new Router();
        router.register(address(a), address(b), address(pair));
        a.transfer(address(pair), 100 ether);
        b.transfer(address(pair), 200000 ether);
        pair.sync();
        a.approve(address(router), amountIn);
        address[] memory path = new address[](2); path[0] = address(a); path[1] = address(b);
        uint256[] memory amounts = router.swapExactTokensForTokens(amountIn, amountOutMin, path, msg.sender, block.timestamp);
        out = amounts[1];
    }
}
`

const FANOUT = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Fanout {
    function fan(uint256 width, uint256 depth) external returns (uint256 sum) {
        for (uint256 i = 0; i < width; i++) sum += this.leaf(i);
        sum += this.dive(depth);
    }
    function leaf(uint256 i) external pure returns (uint256) { return i * 2; }
    function dive(uint256 depth) external returns (uint256) { return depth == 0 ? 0 : 1 + this.dive(depth - 1); }
}
`

let compiled: Record<string, CompiledContract> | undefined

/** the nested swap's Solidity, as a path → text map (a build-info of it registers its sources) */
export const SWAP_SOURCES = { 'Swap.sol': SOURCE }

export function scenarioContracts(): Record<string, CompiledContract> {
  compiled ??= compile({ 'Swap.sol': SOURCE, 'Fanout.sol': FANOUT })
  return compiled
}
