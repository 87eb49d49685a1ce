import { toHex, type Hex } from 'viem'
import type { Devnet } from '../../../../engine/chains/devnet/devnetChain.js'
import { createTraceService } from '../../../../engine/operations/trace/traceService.js'
import { createSourceRegistry } from '../../../../engine/sources/registry.js'
import type { TracerConfig } from '../../../../engine/types.js'
import { createMemoryCacheStore } from '../../../../host/cache/memoryCacheStore.js'
import type { StandardJsonPair } from '../../../support/solcStandard.js'

export const PROFILED: Hex = '0x00000000000000000000000000000000000a11ce'
export const HELPER: Hex = '0x0000000000000000000000000000000000000b0b'
export const FROM: Hex = '0x0000000000000000000000000000000000000001'

/**
 * A call to Profiled traced by the engine's trace service over `devnet`, the compiled Profiled
 * (its helper in slot 1) and Helper put in place by state overrides; their sources registered
 * when `withSources`.
 */
export async function traceProfiled(devnet: Devnet, compiled: StandardJsonPair, data: Hex, tracerConfig: TracerConfig, withSources: boolean) {
  const artifact = (name: string) => compiled.output.contracts['src/Profiled.sol']![name]
  const sources = createSourceRegistry({ cache: createMemoryCacheStore(), maxBytes: 2 ** 24 })
  if (withSources) await sources.register(compiled)
  const service = createTraceService(devnet, { gasCap: 50_000_000n, maxStructLogSteps: 1_000_000, sources })
  return service.traceCall({
    call: { from: FROM, to: PROFILED, data },
    block: { tag: 'latest' },
    tracerConfig,
    stateOverrides: {
      [PROFILED]: {
        code: `0x${artifact('Profiled').evm.deployedBytecode.object}`,
        stateDiff: { [toHex(1, { size: 32 })]: toHex(BigInt(HELPER), { size: 32 }) },
      },
      [HELPER]: { code: `0x${artifact('Helper').evm.deployedBytecode.object}` },
    },
  })
}

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
