/**
 * The token zoo of the decoding tests, compiled with npm solc: a standard ERC-20, a fee-on-transfer
 * ERC-20 whose Transfer event states the full amount while only 99% arrives, a token without
 * symbol()/decimals(), a bytes32-symbol token (MKR-style), an ERC-721, an ERC-1155, a WETH-like
 * wrapper, a contract that forwards ETH internally (one forward may revert), one that self-destructs
 * and one that delegatecalls with value.
 */
import { compile, type CompiledContract } from '../../support/solc.js'

const SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Token {
    string public symbol;
    uint8 public decimals;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    constructor(string memory s, uint8 d, uint256 supply) {
        symbol = s; decimals = d; balanceOf[msg.sender] = supply;
        emit Transfer(address(0), msg.sender, supply);
    }
    function transfer(address to, uint256 v) external returns (bool) { _move(msg.sender, to, v); return true; }
    function approve(address s, uint256 v) external returns (bool) { allowance[msg.sender][s] = v; emit Approval(msg.sender, s, v); return true; }
    function transferFrom(address f, address t, uint256 v) external returns (bool) { allowance[f][msg.sender] -= v; _move(f, t, v); return true; }
    function _move(address f, address t, uint256 v) internal virtual { balanceOf[f] -= v; balanceOf[t] += v; emit Transfer(f, t, v); }
}

/// Keeps 1% of every transfer but announces the full amount: only balances tell the truth.
contract FeeToken is Token {
    constructor(uint256 supply) Token("FEE", 18, supply) {}
    function _move(address f, address t, uint256 v) internal override {
        uint256 fee = v / 100;
        balanceOf[f] -= v; balanceOf[t] += v - fee;
        emit Transfer(f, t, v);
    }
}

contract NoMetaToken {
    mapping(address => uint256) public balanceOf;
    event Transfer(address indexed from, address indexed to, uint256 value);
    constructor(uint256 supply) { balanceOf[msg.sender] = supply; }
    function transfer(address to, uint256 v) external returns (bool) {
        balanceOf[msg.sender] -= v; balanceOf[to] += v; emit Transfer(msg.sender, to, v); return true;
    }
}

contract Bytes32Token {
    bytes32 public symbol = "MKR";
    uint256 public decimals = 18;
}

contract Nft {
    string public symbol = "DEMO-NFT";
    mapping(uint256 => address) internal owners;
    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    function mint(address to, uint256 id) external { require(owners[id] == address(0)); owners[id] = to; emit Transfer(address(0), to, id); }
    function ownerOf(uint256 id) external view returns (address) { address o = owners[id]; require(o != address(0), "nonexistent"); return o; }
    function transferFrom(address f, address t, uint256 id) external { require(owners[id] == f && f == msg.sender); owners[id] = t; emit Transfer(f, t, id); }
}

contract Multi {
    mapping(uint256 => mapping(address => uint256)) internal balances;
    event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value);
    event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values);
    function balanceOf(address a, uint256 id) external view returns (uint256) { return balances[id][a]; }
    function mint(address to, uint256 id, uint256 v) external { balances[id][to] += v; emit TransferSingle(msg.sender, address(0), to, id, v); }
    function safeBatchTransferFrom(address f, address t, uint256[] calldata ids, uint256[] calldata vs, bytes calldata) external {
        require(f == msg.sender);
        for (uint256 i = 0; i < ids.length; i++) { balances[ids[i]][f] -= vs[i]; balances[ids[i]][t] += vs[i]; }
        emit TransferBatch(msg.sender, f, t, ids, vs);
    }
}

contract Weth {
    string public symbol = "WETH";
    uint8 public decimals = 18;
    mapping(address => uint256) public balanceOf;
    event Deposit(address indexed dst, uint256 wad);
    event Withdrawal(address indexed src, uint256 wad);
    function deposit() external payable { balanceOf[msg.sender] += msg.value; emit Deposit(msg.sender, msg.value); }
    function withdraw(uint256 wad) external {
        balanceOf[msg.sender] -= wad; payable(msg.sender).transfer(wad); emit Withdrawal(msg.sender, wad);
    }
}

contract Rejecter {
    receive() external payable { revert("no thanks"); }
}

/// Sends its whole balance away by SELFDESTRUCT (the adapter's synthesized frame carries the value).
contract Doomed {
    constructor() payable {}
    function kill(address payable to) external { selfdestruct(to); }
}

contract Sink {
    event Seen(uint256 value);
    function touch() external payable { emit Seen(msg.value); }
}

/// Runs Sink's code in its own context: DELEGATECALL moves no value between accounts.
contract Delegator {
    function run(address impl) external payable {
        (bool ok, ) = impl.delegatecall(abi.encodeWithSignature("touch()")); require(ok);
    }
}

/// Forwards ETH with inner calls; a failed forward is tolerated, so its value stays here.
contract Forwarder {
    function forward(address payable to) external payable {
        (bool ok, ) = to.call{value: msg.value}(""); require(ok);
    }
    function split(address payable good, address payable bad) external payable {
        uint256 half = msg.value / 2;
        (bool ok, ) = good.call{value: half}(""); require(ok);
        (bool ignored, ) = bad.call{value: msg.value - half}(""); ignored;
    }
    /// A call with more value than this contract holds fails before it starts: nothing moves.
    function overspend(address payable to) external {
        (bool ok, ) = to.call{value: address(this).balance + 1}(""); ok;
    }
    /// The token moves happen in an inner call that reverts: none of them may be reported.
    function tryPay(Token token, address to, uint256 v) external {
        try this.payThenFail(token, to, v) {} catch {}
    }
    function payThenFail(Token token, address to, uint256 v) external {
        token.transfer(to, v);
        revert("after paying");
    }
}

/// Creates a Token by CREATE: the first one of any simulation on a block lands at the same
/// address whatever symbol it was given, so its metadata must not be cached across simulations.
contract TokenFactory {
    string public nextSymbol = "AAA";
    function setSymbol(string memory s) external { nextSymbol = s; }
    function deploy() external returns (Token t) { t = new Token(nextSymbol, 18, 1e18); }
}
`

let compiled: Record<string, CompiledContract> | undefined

export function contracts(): Record<string, CompiledContract> {
  compiled ??= compile({ 'Zoo.sol': SOURCE })
  return compiled
}
