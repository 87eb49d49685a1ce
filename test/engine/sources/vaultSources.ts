/**
 * Small contracts that exercise what code matching blanks: an external library linked into its
 * caller (a link reference, and the library's call protection), an immutable set by the
 * constructor, constructor arguments, a struct and an enum parameter, a modifier, an interface and
 * an abstract contract (no bytecode), and a factory that creates a contract with `new`.
 */
export const VAULT_SOURCES = {
  'src/Math.sol': `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
library Math {
  function add(uint256 a, uint256 b) external pure returns (uint256) { return a + b; }
}
`,
  'src/Vault.sol': `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
import "./Math.sol";
interface IVault { function deposit(uint256 amount) external; }
abstract contract Owned {
  address internal owner;
  modifier onlyOwner() { require(msg.sender == owner, "not owner"); _; }
}
contract Vault is IVault, Owned {
  enum Kind { Plain, Bonus }
  struct Entry { address who; uint256 amount; }
  uint256 public immutable limit;
  mapping(address => uint256) public balances;
  constructor(uint256 limit_) { limit = limit_; owner = msg.sender; }
  function deposit(uint256 amount) external { _credit(Entry(msg.sender, amount), Kind.Plain); }
  function _credit(Entry memory e, Kind kind) internal onlyOwner returns (uint256) {
    balances[e.who] = Math.add(balances[e.who], e.amount + (kind == Kind.Bonus ? 1 : 0));
    require(balances[e.who] <= limit, "over limit");
    return balances[e.who];
  }
}
contract Factory {
  function make(uint256 limit_) external returns (Vault) { return new Vault(limit_); }
}
`,
}
