/**
 * A call of about a million steps with its sources known: a Solidity loop of 4,000 turns through an
 * internal function and a mapping write, run on the embedded devnet with its code set by a state
 * override, under the tracers given. Every line change of every turn is a step the source-aware
 * tracers see, so the run is what a long profiled or debugged transaction costs. Used by the gas
 * profile's long-run test and the bench's row that times it against geth's callTracer.
 *
 * @example
 * const loop = await createMillionStepLoop()
 * const ms = await loop.run([createGasProfile({ sources: loop.sources })])
 */
import { encodeFunctionData, type Abi, type Hex } from 'viem'
import { createDevnet } from '../../engine/chains/devnet/devnetChain.js'
import { executeCall } from '../../engine/execution/executeTransaction.js'
import { executionContext, openRun, withCallDefaults } from '../../engine/run/index.js'
import { contractsOfBuildInfo } from '../../engine/sources/buildInfo.js'
import { createSourceIndex } from '../../engine/sources/sourceIndex.js'
import type { Tracer } from '../../tracers/types.js'
import { compileStandard } from './solcStandard.js'

const LOOP = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract L {
  mapping(address => uint256) public balanceOf;
  function loop(uint256 n) external returns (uint256 s) {
    for (uint256 i; i < n; i++) {
      s += _step(i);
      balanceOf[address(uint160(i % 4))] += 1;
    }
  }
  function _step(uint256 i) internal pure returns (uint256) { return i * 3; }
}
`
const LOOPER: Hex = '0x0000000000000000000000000000000000001000'
const FROM: Hex = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
/** turns of the loop: about 250 steps each */
export const LOOP_TURNS = 4_000
/** the line of the loop's body that calls `_step` */
export const LOOP_BODY_LINE = 7

export async function createMillionStepLoop() {
  const pair = compileStandard({ 'src/L.sol': LOOP })
  const artifact = pair.output.contracts['src/L.sol']!.L
  const sources = createSourceIndex(contractsOfBuildInfo(pair))
  const devnet = await createDevnet()
  const call = { from: FROM, to: LOOPER, data: encodeFunctionData({ abi: artifact.abi as Abi, functionName: 'loop', args: [BigInt(LOOP_TURNS)] }) }
  const stateOverrides = { [LOOPER]: { code: `0x${artifact.evm.deployedBytecode.object}` as Hex } }
  return {
    sources,
    /** runs the loop under `tracers`; the run's time, ms */
    async run(tracers: Tracer[]): Promise<number> {
      const { header, state } = await openRun(devnet, { block: { tag: 'latest' }, calls: [call], stateOverrides })
      const ctx = executionContext(devnet, header, state)
      const started = performance.now()
      await executeCall(ctx, withCallDefaults('trace', call, { blockGasLimit: ctx.block.gasLimit, gasCap: 500_000_000n }), { tracers, validation: false })
      return performance.now() - started
    },
    close: () => devnet.close(),
  }
}
