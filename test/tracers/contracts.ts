/**
 * Solidity fixtures of the tracer differential tests, compiled with npm solc in the test run.
 * One contract per behaviour the brief lists: reverts (Error and Panic), nested calls,
 * delegatecall, create/create2, selfdestruct, precompile calls, out of gas in a subcall, events.
 */
import { compile, type CompiledContract } from '../support/solc.js'

export const SOURCES = {
  'Target.sol': `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Target {
    uint256 public stored;
    mapping(address => uint256) public balances;
    event Stored(address indexed who, uint256 value);
    error Custom(uint256 code);

    constructor() payable { stored = 1; }

    function store(uint256 v) external payable returns (uint256) {
        stored = v;
        balances[msg.sender] += msg.value;
        emit Stored(msg.sender, v);
        return v * 2;
    }
    function read() external view returns (uint256) { return stored; }
    function env() external view returns (uint256 n, uint256 t, bytes32 h, address cb, uint256 bf) {
        return (block.number, block.timestamp, blockhash(block.number - 1), block.coinbase, block.basefee);
    }
    function fail(string calldata why) external pure { revert(why); }
    function failCustom() external pure { revert Custom(7); }
    function overflow(uint256 a) external pure returns (uint256) { return a + type(uint256).max; }
    function divide(uint256 a, uint256 b) external pure returns (uint256) { return a / b; }
    function burn() external { uint256 i; while (true) { i++; } }
    function destroy(address payable to) external { selfdestruct(to); }
    receive() external payable {}
}
`,
  'Caller.sol': `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface ITarget {
    function store(uint256 v) external payable returns (uint256);
    function read() external view returns (uint256);
    function burn() external;
    function fail(string calldata why) external pure;
}

contract Child {
    uint256 public x;
    constructor(uint256 v) payable { x = v; }
    function kill(address payable to) external { selfdestruct(to); }
}

contract Caller {
    uint256 public stored;
    event Called(uint256 step);

    function nested(address target, uint256 v) external payable returns (uint256 r) {
        emit Called(1);
        r = ITarget(target).store{value: msg.value}(v);
        r += ITarget(target).read();
        try ITarget(target).fail("inner") {} catch {}
        emit Called(2);
    }
    function delegate(address target, uint256 v) external returns (bytes memory) {
        (bool ok, bytes memory out) = target.delegatecall(abi.encodeWithSignature("store(uint256)", v));
        require(ok, "delegate failed");
        return out;
    }
    function makeChildren(uint256 v) external payable returns (address a, address b) {
        a = address(new Child{value: msg.value / 2}(v));
        b = address(new Child{salt: bytes32(uint256(0x5a17)), value: msg.value / 2}(v + 1));
    }
    function makeAndKill(address payable to) external payable returns (address a) {
        Child c = new Child{value: msg.value}(3);
        c.kill(to);
        a = address(c);
    }
    function precompiles(bytes calldata data) external view returns (bytes32 h, address signer, bytes memory id) {
        h = sha256(data);
        signer = ecrecover(keccak256(data), 27, bytes32(uint256(1)), bytes32(uint256(2)));
        (, id) = address(4).staticcall(data);
    }
    function oogInner(address target) external returns (bool ok) {
        (ok, ) = target.call{gas: 50000}(abi.encodeWithSignature("burn()"));
        stored = ok ? 1 : 2;
    }
    function failOuter(address target) external {
        ITarget(target).store(5);
        require(stored == 99, "outer failed");
    }
    /** reads the parent hash from the EIP-2935 history contract: needs the block-start system call */
    function recordParentHash() external returns (bytes32 h) {
        (bool ok, bytes memory out) = address(0x0000F90827F1C53a10cb7A02335B175320002935).staticcall(abi.encode(block.number - 1));
        require(ok && out.length == 32, "history");
        h = abi.decode(out, (bytes32));
        stored = uint256(h);
    }
    /** reads this block's beacon root from the EIP-4788 contract: needs the block-start system call */
    function recordBeaconRoot() external returns (bool ok) {
        (ok, ) = address(0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02).staticcall(abi.encode(block.timestamp));
        stored = ok ? 3 : 4;
    }
    function memoryWork(uint256 n) external pure returns (bytes memory out) {
        out = new bytes(n);
        for (uint256 i = 0; i < n; i++) out[i] = bytes1(uint8(i));
    }
}
`,
}

/** EIP-4788 beacon roots contract runtime code (from the EIP) */
export const BEACON_ROOTS_CODE =
  '0x3373fffffffffffffffffffffffffffffffffffffffe14604d57602036146024575f5ffd5b5f35801560495762001fff810690815414603c575f5ffd5b62001fff01545f5260205ff35b5f5ffd5b62001fff42064281555f359062001fff015500'

let cached: Record<string, CompiledContract> | undefined
export function contracts(): Record<string, CompiledContract> {
  cached ??= compile(SOURCES, { evmVersion: 'cancun' })
  return cached
}
