/**
 * forks: the OP-stack hardforks, in order, and what each changes in the engine's rules — the
 * Ethereum fork its EVM follows (op-revm `OpSpecId::into_eth_spec`), its precompile changes
 * (op-revm precompiles.rs) and its fee formula (l1Fee.ts) — plus the schedules of the chains the
 * service knows by id (superchain-registry configs of OP Mainnet, Base and their Sepolia testnets).
 *
 * @example
 * opForkAt(opScheduleOf(10)!, 1_720_627_201n) // 'fjord'
 */
import { Hardfork } from '@ethereumjs/common'

export const OP_FORKS = ['bedrock', 'regolith', 'canyon', 'delta', 'ecotone', 'fjord', 'granite', 'holocene', 'isthmus', 'jovian'] as const
export type OpFork = (typeof OP_FORKS)[number]

export const isOpFork = (name: string): name is OpFork => (OP_FORKS as readonly string[]).includes(name)

/** true when `fork` is `since` or later */
export const opActive = (fork: OpFork, since: OpFork): boolean => OP_FORKS.indexOf(fork) >= OP_FORKS.indexOf(since)

/** the Ethereum fork whose EVM an OP fork runs (op-revm into_eth_spec; Delta changed no EVM rule) */
export function ethereumForkOf(fork: OpFork): string {
  if (opActive(fork, 'isthmus')) return Hardfork.Prague
  if (opActive(fork, 'ecotone')) return Hardfork.Cancun
  if (opActive(fork, 'canyon')) return Hardfork.Shanghai
  return Hardfork.Paris
}

/** activation times (seconds) of the forks after Bedrock; Bedrock is the chain's genesis here */
export type OpSchedule = Partial<Record<Exclude<OpFork, 'bedrock'>, bigint>>

/**
 * Known OP-stack chains, from the superchain registry's chain configs. Regolith on OP Mainnet
 * (and Canyon on its Bedrock-era blocks) was set at genesis of the Bedrock chain: 0.
 */
const OP_MAINNET: OpSchedule = {
  regolith: 0n,
  canyon: 1_704_992_401n,
  delta: 1_708_560_000n,
  ecotone: 1_710_374_401n,
  fjord: 1_720_627_201n,
  granite: 1_726_070_401n,
  holocene: 1_736_445_601n,
  isthmus: 1_746_806_401n,
}
const OP_SEPOLIA: OpSchedule = {
  regolith: 0n,
  canyon: 1_699_981_200n,
  delta: 1_703_203_200n,
  ecotone: 1_708_534_800n,
  fjord: 1_716_998_400n,
  granite: 1_723_478_400n,
  holocene: 1_732_633_200n,
  isthmus: 1_744_905_600n,
}

export const KNOWN_OP_CHAINS: Record<number, { name: string; schedule: OpSchedule }> = {
  10: { name: 'optimism', schedule: OP_MAINNET },
  8453: { name: 'base', schedule: { ...OP_MAINNET, regolith: 0n } },
  11155420: { name: 'optimism-sepolia', schedule: OP_SEPOLIA },
  84532: { name: 'base-sepolia', schedule: OP_SEPOLIA },
}

export const opScheduleOf = (chainId: number): OpSchedule | undefined => KNOWN_OP_CHAINS[chainId]?.schedule

/** the newest fork active at `timestamp` */
export function opForkAt(schedule: OpSchedule, timestamp: bigint): OpFork {
  let fork: OpFork = 'bedrock'
  for (const name of OP_FORKS) {
    if (name === 'bedrock') continue
    const at = schedule[name]
    if (at !== undefined && timestamp >= at) fork = name
  }
  return fork
}
