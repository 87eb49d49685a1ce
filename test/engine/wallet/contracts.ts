/**
 * Contracts of the wallet-preview tests, compiled with npm solc in the test: an OpenZeppelin-style
 * ERC-20 with ERC-2612 permit, a USDT-style token (no return values), a token that approves
 * without an event, ERC-721, ERC-1155, an EIP-1967 proxy, Ownable contracts (event and ERC-7201
 * slot), a spender that pulls what it was allowed, a factory and a self-destructing contract.
 * Permit2 is the devnet's, compiled from its published source by scripts/compile-permit2.ts.
 */
import type { Abi, Hex } from 'viem'
import artifact from '../../../engine/chains/devnet/permit2.json' with { type: 'json' }
import { compile, type CompiledContract } from '../../support/solc.js'

const SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract PermitToken {
    string public name; string public symbol; uint8 public constant decimals = 18;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    mapping(address => uint256) public nonces;
    bytes32 public constant PERMIT_TYPEHASH = keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    constructor(string memory n, string memory s, uint256 supply) { name = n; symbol = s; balanceOf[msg.sender] = supply; emit Transfer(address(0), msg.sender, supply); }
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(abi.encode(keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"), keccak256(bytes(name)), keccak256("1"), block.chainid, address(this)));
    }
    function transfer(address to, uint256 v) external returns (bool) { _move(msg.sender, to, v); return true; }
    function approve(address s, uint256 v) external returns (bool) { _approve(msg.sender, s, v); return true; }
    function increaseAllowance(address s, uint256 v) external returns (bool) { _approve(msg.sender, s, allowance[msg.sender][s] + v); return true; }
    function decreaseAllowance(address s, uint256 v) external returns (bool) { _approve(msg.sender, s, allowance[msg.sender][s] - v); return true; }
    function transferFrom(address f, address t, uint256 v) external returns (bool) {
        uint256 a = allowance[f][msg.sender];
        if (a != type(uint256).max) { require(a >= v, "allowance"); allowance[f][msg.sender] = a - v; }
        _move(f, t, v); return true;
    }
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s) external {
        require(block.timestamp <= deadline, "expired");
        bytes32 digest = keccak256(abi.encodePacked("\\x19\\x01", DOMAIN_SEPARATOR(), keccak256(abi.encode(PERMIT_TYPEHASH, owner, spender, value, nonces[owner]++, deadline))));
        address signer = ecrecover(digest, v, r, s);
        require(signer != address(0) && signer == owner, "signature");
        _approve(owner, spender, value);
    }
    function _approve(address o, address s, uint256 v) private { allowance[o][s] = v; emit Approval(o, s, v); }
    function _move(address f, address t, uint256 v) private { require(balanceOf[f] >= v, "balance"); balanceOf[f] -= v; balanceOf[t] += v; emit Transfer(f, t, v); }
}

/// USDT's shape: no return values, and a non-zero allowance must go to zero before it changes
contract TetherToken {
    string public name = "Tether USD"; string public symbol = "USDT"; uint256 public decimals = 6;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    constructor(uint256 supply) { balanceOf[msg.sender] = supply; }
    function transfer(address to, uint256 v) external { balanceOf[msg.sender] -= v; balanceOf[to] += v; emit Transfer(msg.sender, to, v); }
    function approve(address s, uint256 v) external {
        require(!((v != 0) && (allowance[msg.sender][s] != 0)));
        allowance[msg.sender][s] = v; emit Approval(msg.sender, s, v);
    }
    function transferFrom(address f, address t, uint256 v) external {
        uint256 a = allowance[f][msg.sender];
        if (a < type(uint256).max) allowance[f][msg.sender] = a - v;
        balanceOf[f] -= v; balanceOf[t] += v; emit Transfer(f, t, v);
    }
}

/// approves without an Approval event (such tokens exist)
contract SilentToken {
    string public symbol = "HUSH"; uint8 public decimals = 8;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    event Transfer(address indexed from, address indexed to, uint256 value);
    constructor(uint256 supply) { balanceOf[msg.sender] = supply; }
    function approve(address s, uint256 v) external returns (bool) { allowance[msg.sender][s] = v; return true; }
    function transferFrom(address f, address t, uint256 v) external returns (bool) {
        allowance[f][msg.sender] -= v; balanceOf[f] -= v; balanceOf[t] += v; emit Transfer(f, t, v); return true;
    }
}

contract Nft {
    string public name = "Test NFT"; string public symbol = "TNFT";
    mapping(uint256 => address) public ownerOf_;
    mapping(uint256 => address) public getApproved;
    mapping(address => mapping(address => bool)) public isApprovedForAll;
    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId);
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);
    function supportsInterface(bytes4 id) external pure returns (bool) { return id == 0x80ac58cd || id == 0x01ffc9a7; }
    function ownerOf(uint256 id) external view returns (address o) { o = ownerOf_[id]; require(o != address(0), "none"); }
    function mint(address to, uint256 id) external { ownerOf_[id] = to; emit Transfer(address(0), to, id); }
    function approve(address to, uint256 id) external {
        address o = ownerOf_[id]; require(msg.sender == o || isApprovedForAll[o][msg.sender], "owner");
        getApproved[id] = to; emit Approval(o, to, id);
    }
    function setApprovalForAll(address op, bool ok) external { isApprovedForAll[msg.sender][op] = ok; emit ApprovalForAll(msg.sender, op, ok); }
    function transferFrom(address f, address t, uint256 id) public {
        require(ownerOf_[id] == f, "from");
        require(msg.sender == f || getApproved[id] == msg.sender || isApprovedForAll[f][msg.sender], "approved");
        delete getApproved[id]; ownerOf_[id] = t; emit Transfer(f, t, id);
    }
}

contract Multi {
    mapping(uint256 => mapping(address => uint256)) public balances;
    mapping(address => mapping(address => bool)) public isApprovedForAll;
    event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value);
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);
    function supportsInterface(bytes4 id) external pure returns (bool) { return id == 0xd9b67a26 || id == 0x01ffc9a7; }
    function balanceOf(address a, uint256 id) external view returns (uint256) { return balances[id][a]; }
    function mint(address to, uint256 id, uint256 v) external { balances[id][to] += v; emit TransferSingle(msg.sender, address(0), to, id, v); }
    function setApprovalForAll(address op, bool ok) external { isApprovedForAll[msg.sender][op] = ok; emit ApprovalForAll(msg.sender, op, ok); }
    function safeTransferFrom(address f, address t, uint256 id, uint256 v, bytes calldata) external {
        require(msg.sender == f || isApprovedForAll[f][msg.sender], "approved");
        balances[id][f] -= v; balances[id][t] += v; emit TransferSingle(msg.sender, f, t, id, v);
    }
}

/// pulls what an owner allowed it: an ERC-20 allowance or a Permit2 allowance
contract Puller {
    function pull(address token, address from, uint256 v) external { TetherToken(token).transferFrom(from, msg.sender, v); }
    function pull2(address permit2, address token, address from, uint160 v) external {
        (bool ok, bytes memory out) = permit2.call(abi.encodeWithSignature("transferFrom(address,address,uint160,address)", from, msg.sender, v, token));
        if (!ok) assembly { revert(add(out, 32), mload(out)) }
    }
}

/// an EIP-1967 proxy: implementation and admin in their slots
contract Proxy1967 {
    bytes32 constant IMPL = 0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc;
    bytes32 constant ADMIN = 0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103;
    event Upgraded(address indexed implementation);
    event AdminChanged(address previousAdmin, address newAdmin);
    constructor(address impl) { assembly { sstore(IMPL, impl) sstore(ADMIN, caller()) } }
    function admin_() internal view returns (address a) { assembly { a := sload(ADMIN) } }
    function upgradeTo(address impl) external { require(msg.sender == admin_()); assembly { sstore(IMPL, impl) } emit Upgraded(impl); }
    function upgradeSilently(address impl) external { require(msg.sender == admin_()); assembly { sstore(IMPL, impl) } }
    function changeAdmin(address a) external { require(msg.sender == admin_()); emit AdminChanged(admin_(), a); assembly { sstore(ADMIN, a) } }
    function changeAdminSilently(address a) external { require(msg.sender == admin_()); assembly { sstore(ADMIN, a) } }
    fallback() external payable {
        assembly {
            let impl := sload(IMPL)
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), impl, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            if iszero(ok) { revert(0, returndatasize()) }
            return(0, returndatasize())
        }
    }
}

contract Counter { uint256 public n; function bump() external { n += 1; } }

/// Ownable's event, and OpenZeppelin's ERC-7201 namespaced owner slot written without one
contract Owned {
    address public owner;
    bytes32 constant NS = 0x9016d09d72d40fdae2fd8ceac6b6234c7706214fd39c1cd1e609a0528c199300;
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);
    constructor() { owner = msg.sender; assembly { sstore(NS, caller()) } }
    function transferOwnership(address n) external { require(msg.sender == owner); emit OwnershipTransferred(owner, n); owner = n; }
    function setNamespacedOwner(address n) external { assembly { sstore(NS, n) } }
    function poke() external { assembly { sstore(NS, caller()) } }
}

contract Factory { function make() external returns (address) { return address(new Counter()); } }

contract Bomb {
    constructor() payable {}
    function boom(address payable to) external { selfdestruct(to); }
}
`

let cached: Record<string, CompiledContract> | undefined
export function contracts(): Record<string, CompiledContract> {
  cached ??= compile({ 'Preview.sol': SOURCE })
  return cached
}

/** Permit2 as the devnet holds it, compiled from its published source by scripts/compile-permit2.ts */
export function permit2(): CompiledContract {
  return { abi: artifact.abi as Abi, bytecode: artifact.bytecode as Hex, deployedBytecode: artifact.deployedBytecode as Hex }
}
