/**
 * Contracts of the call-tree decoding tests, compiled with npm solc: a Vault whose functions,
 * event and custom error are in no bundled ABI (stash, Stashed, Overdrawn are not in the
 * signature database either; setTransferPrice, PriceChanged and burn are), an ERC-1967-style
 * proxy that forwards every call by DELEGATECALL, and a caller that lets a custom error bubble up.
 */
import { compile, type CompiledContract } from '../../../support/solc.js'

const SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Vault {
    mapping(address => uint256) public stashed;
    uint256 public price;
    event Stashed(address indexed who, uint256 amount, string memo);
    event PriceChanged(uint256 oldPrice, uint256 newPrice);
    error Overdrawn(uint256 available, uint256 wanted);

    function stash(uint256 amount, string calldata memo) external returns (uint256 total) {
        stashed[msg.sender] += amount;
        emit Stashed(msg.sender, amount, memo);
        return stashed[msg.sender];
    }
    function take(uint256 amount) external {
        uint256 available = stashed[msg.sender];
        if (available < amount) revert Overdrawn(available, amount);
        stashed[msg.sender] = available - amount;
    }
    function setTransferPrice(uint256 p) external { emit PriceChanged(price, p); price = p; }
    /// shares its selector 0x42966c68 with collate_propagate_storage(bytes16)
    function burn(uint256 amount) external returns (bool) { price = amount; return true; }
}

/// ERC-1967 slot, everything forwarded by DELEGATECALL with the same calldata
contract Proxy {
    bytes32 internal constant SLOT = 0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc;
    constructor(address impl) { assembly { sstore(SLOT, impl) } }
    fallback() external payable {
        assembly {
            let impl := sload(SLOT)
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), impl, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            switch ok case 0 { revert(0, returndatasize()) } default { return(0, returndatasize()) }
        }
    }
}

/// Solidity re-throws a failed call's revert data: the custom error bubbles up unchanged
contract Caller {
    function takeFrom(Vault v, uint256 amount) external { v.take(amount); }
    function fail() external pure { revert("caller says no"); }
}
`

let compiled: Record<string, CompiledContract> | undefined

export function callTreeContracts(): Record<string, CompiledContract> {
  compiled ??= compile({ 'CallTree.sol': SOURCE })
  return compiled
}
