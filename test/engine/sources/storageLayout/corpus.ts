/**
 * Contracts whose storage exercises every layout shape: value types of each kind packed and alone,
 * short and long strings, nested mappings, structs in mappings and arrays, static and dynamic
 * arrays, an ERC-7201 namespace and an EIP-1967 proxy over an implementation.
 */
export const STORAGE_CORPUS = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Shapes {
  enum Phase { Idle, Open, Closed }
  struct Position { uint128 liquidity; address owner; bool active; uint256[] ticks; }

  uint8 public small;
  bool public paused;
  Phase public phase;
  bytes4 public selector;
  int16 public delta;
  address public owner;
  uint256 public totalSupply;
  string public name;
  bytes public blob;
  mapping(address => uint256) public balances;
  mapping(address => mapping(address => uint256)) public allowances;
  mapping(uint256 => Position) public positions;
  Position[] public queue;
  uint64[5] public packedArr;
  uint256[] public numbers;
  mapping(string => uint256) public byName;

  function setValues(uint8 s, bool p, Phase ph, bytes4 sel, int16 d, address o, uint256 t) external {
    small = s; paused = p; phase = ph; selector = sel; delta = d; owner = o; totalSupply = t;
  }
  function setPaused(bool p) external { paused = p; }
  function setName(string calldata n) external { name = n; }
  function setBlob(bytes calldata b) external { blob = b; }
  function credit(address a, uint256 v) external { balances[a] += v; }
  function approve(address o, address s, uint256 v) external { allowances[o][s] = v; }
  function open(uint256 id, uint128 liq, address o, uint256 tick) external {
    Position storage p = positions[id];
    p.liquidity = liq; p.owner = o; p.active = true; p.ticks.push(tick);
  }
  function enqueue(uint128 liq, address o) external {
    Position storage p = queue.push();
    p.liquidity = liq; p.owner = o;
  }
  function setPacked(uint256 i, uint64 v) external { packedArr[i] = v; }
  function pushNumber(uint256 v) external { numbers.push(v); }
  function setByName(string calldata k, uint256 v) external { byName[k] = v; }
  function positionTick(uint256 id, uint256 i) external view returns (uint256) { return positions[id].ticks[i]; }
  function queueLength() external view returns (uint256) { return queue.length; }
}

contract Namespaced {
  /// @custom:storage-location erc7201:example.main
  struct MainStorage { uint256 counter; mapping(address => uint256) credits; uint64 epoch; bool open; address admin; uint256[] list; }
  // keccak256(abi.encode(uint256(keccak256("example.main")) - 1)) & ~bytes32(uint256(0xff))
  bytes32 private constant MAIN_LOCATION = keccak256(abi.encode(uint256(keccak256("example.main")) - 1)) & ~bytes32(uint256(0xff));
  function _main() private pure returns (MainStorage storage $) { bytes32 loc = MAIN_LOCATION; assembly { $.slot := loc } }
  function bump(address a, uint256 v) external { MainStorage storage $ = _main(); $.counter += 1; $.credits[a] += v; }
  function configure(uint64 e, bool o, address a, uint256 item) external { MainStorage storage $ = _main(); $.epoch = e; $.open = o; $.admin = a; $.list.push(item); }
  function poke(uint256 slot, uint256 v) external { assembly { sstore(slot, v) } }
  function counter() external view returns (uint256) { return _main().counter; }
  function epoch() external view returns (uint64) { return _main().epoch; }
  function open() external view returns (bool) { return _main().open; }
  function admin() external view returns (address) { return _main().admin; }
  function listAt(uint256 i) external view returns (uint256) { return _main().list[i]; }
  function credits(address a) external view returns (uint256) { return _main().credits[a]; }
}

contract Implementation {
  address public owner;
  uint256 public value;
  function set(uint256 v) external { owner = msg.sender; value = v; }
}

contract Proxy {
  bytes32 private constant IMPLEMENTATION_SLOT = 0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc;
  constructor(address impl) { assembly { sstore(IMPLEMENTATION_SLOT, impl) } }
  fallback() external payable {
    assembly {
      let impl := sload(IMPLEMENTATION_SLOT)
      calldatacopy(0, 0, calldatasize())
      let ok := delegatecall(gas(), impl, 0, calldatasize(), 0, 0)
      returndatacopy(0, 0, returndatasize())
      if iszero(ok) { revert(0, returndatasize()) }
      return(0, returndatasize())
    }
  }
}
`
