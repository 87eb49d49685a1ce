/**
 * The contracts the gas-profile tests trace: recursion, a loop over an internal function, an
 * external call, a constructor that creates, a revert inside an internal function, a selector the
 * bundled ABIs name and one nothing names, a storage clear that earns a refund.
 */
export const PROFILED_SOURCES = {
  'src/Profiled.sol': `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Helper {
  function twice(uint256 x) external pure returns (uint256) { return 2 * x; }
}
contract Profiled {
  mapping(uint256 => uint256) public slots;
  Helper public helper;
  constructor() { helper = new Helper(); }
  function run(uint256 n) external returns (uint256 s) {
    s = _fib(n);
    s += helper.twice(s);
    slots[n] = s;
  }
  function loop(uint256 n) external returns (uint256 s) {
    for (uint256 i; i < n; i++) {
      s += _square(i);
    }
    slots[0] = s;
  }
  function transfer(address, uint256 amount) external returns (bool) { slots[1] = _square(amount); return true; }
  function zzqUnnamed7x() external { slots[2] = 1; }
  function fail() external { _boom(); }
  function clear(uint256 k) external { delete slots[k]; }
  function _fib(uint256 n) internal pure returns (uint256) { return n < 2 ? n : _fib(n - 1) + _fib(n - 2); }
  function _square(uint256 x) internal pure returns (uint256) { return x * x; }
  function _boom() internal pure { revert("boom"); }
}
`,
}
