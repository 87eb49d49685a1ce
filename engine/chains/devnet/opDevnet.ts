/**
 * The embedded devnet as an OP-stack chain (`kind = "op-stack"`): the OP-stack rules
 * (engine/chains/rollups/opStack/) and a genesis holding the predeploys they read — L1Block with its fee
 * values set and GasPriceOracle (flagged Ecotone and Fjord, so `getL1Fee` prices as the fork does),
 * their code from npm `@eth-optimism/contracts-bedrock` (opPredeploys.json,
 * scripts/vendor-op-predeploys.ts). The fee vaults are accounts the fees credit.
 *
 * That package's L1Block predates Isthmus (no `setL1BlockValuesIsthmus`, no operator fee slot):
 * the devnet runs OP forks up to Holocene, Holocene by default, and refuses a later one with a
 * clear error rather than mine blocks whose L1 attributes deposit reverts.
 *
 * @example
 * const { rules, alloc, fork } = opStackDevnet('fjord')
 */
import type { Hex } from 'viem'
import { EngineError } from '../../platform/errors.js'
import { createOpStackRules, type OpStackRules } from '../rollups/opStack/opStackRules.js'
import { isOpFork, opActive, OP_FORKS, type OpFork } from '../rollups/opStack/forks.js'
import type { GenesisAccount } from '../../state/index.js'
import { DEVNET_CHAIN_ID } from '../memory/accounts.js'
import predeploys from './opPredeploys.json' with { type: 'json' }

export const OP_DEVNET_DEFAULT_FORK: OpFork = 'holocene'
const NEWEST: OpFork = 'holocene'

/**
 * The L1 values the devnet's L1Block starts with (an OP Mainnet block's order of magnitude): its
 * L1 origin never moves (there is no L1), each block's deposit writes them back.
 */
export const OP_DEVNET_L1 = {
  number: 1n,
  timestamp: 1_735_689_588n,
  baseFee: 10_000_000_000n,
  blobBaseFee: 1n,
  baseFeeScalar: 1368n,
  blobBaseFeeScalar: 810_949n,
  /** pre-Ecotone forks: the single scalar and overhead */
  scalar: 684_000n,
  overhead: 188n,
}

const word = (n: bigint): Hex => `0x${n.toString(16).padStart(64, '0')}`
const slot = (n: number): Hex => word(BigInt(n))

export function opStackDevnet(hardfork: string | undefined): { rules: OpStackRules; alloc: Record<string, GenesisAccount>; fork: OpFork } {
  const fork = (hardfork ?? OP_DEVNET_DEFAULT_FORK) as OpFork
  if (!isOpFork(fork) || opActive(fork, 'isthmus')) {
    throw new EngineError(
      'VALIDATION_ERROR',
      `the embedded OP-stack devnet runs the OP forks up to ${NEWEST}, not '${hardfork}': its L1Block predeploy (${predeploys.source.split(',')[0]}) predates Isthmus`,
      { supported: OP_FORKS.slice(0, OP_FORKS.indexOf(NEWEST) + 1) },
      `set hardfork to one of ${OP_FORKS.slice(0, OP_FORKS.indexOf(NEWEST) + 1).join(', ')}, or fork an OP-stack node for Isthmus and later`,
    )
  }
  const rules = createOpStackRules({ chainId: DEVNET_CHAIN_ID, hardfork: fork })
  const l1 = OP_DEVNET_L1
  const storage: Record<Hex, Hex> = {
    [slot(0)]: word((l1.timestamp << 64n) | l1.number),
    [slot(1)]: word(l1.baseFee),
    [slot(2)]: word(0x11n),
    // sequenceNumber | blobBaseFeeScalar << 64 | baseFeeScalar << 96
    [slot(3)]: word((l1.baseFeeScalar << 96n) | (l1.blobBaseFeeScalar << 64n)),
    [slot(5)]: word(l1.overhead),
    [slot(6)]: word(l1.scalar),
    [slot(7)]: word(l1.blobBaseFee),
  }
  const alloc: Record<string, GenesisAccount> = {
    [predeploys.L1Block.address]: { code: predeploys.L1Block.deployedBytecode as Hex, storage },
    [predeploys.GasPriceOracle.address]: {
      code: predeploys.GasPriceOracle.deployedBytecode as Hex,
      // isEcotone (byte 0), isFjord (byte 1) of slot 0
      storage: { [slot(0)]: word((opActive(fork, 'ecotone') ? 1n : 0n) | (opActive(fork, 'fjord') ? 0x100n : 0n)) },
    },
  }
  return { rules, alloc, fork }
}
