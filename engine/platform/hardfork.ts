/**
 * hardfork: which ethereumjs hardfork (and so which Common) a block runs under.
 *
 * - Known public chains (mainnet, Sepolia, Holesky, Hoodi): the chain's own schedule from
 *   @ethereumjs/common, by block number and timestamp, so a replay of an old block uses its rules.
 * - Anything else (Anvil, L2s, the embedded devnet): one fixed fork, `opts.hardfork` when the
 *   operator set one, else DEFAULT_HARDFORK.
 *
 * DEFAULT_HARDFORK is Osaka: ethereumjs v10.1 lists it as Final and the EVM implements all of its
 * execution-layer EIPs (7823/7883 modexp, 7825 tx gas cap, 7939 CLZ, 7951 secp256r1, 7918 blob
 * fee), and Anvil 1.7 (our test upstream) defaults to it too. Amsterdam is still a draft there.
 *
 * @example
 * const common = commonFor(1, { number: 19_000_000n, timestamp: 1_705_000_000n })
 */
import {
  Common,
  Hardfork,
  Holesky,
  Hoodi,
  Mainnet,
  Sepolia,
  createCommonFromGethGenesis,
  createCustomCommon,
  type ChainConfig,
  type GethGenesis,
} from '@ethereumjs/common'
import { EVM } from '@ethereumjs/evm'
import { EngineError } from './errors.js'
import { ecrecover } from './ecrecover.js'
import { keccak256 } from './keccak.js'
import { kzgBackend } from './kzg.js'

export const DEFAULT_HARDFORK: string = Hardfork.Osaka

const KNOWN_CHAINS: Record<number, { config: ChainConfig; name: string }> = {
  1: { config: Mainnet, name: 'mainnet' },
  11155111: { config: Sepolia, name: 'sepolia' },
  17000: { config: Holesky, name: 'holesky' },
  560048: { config: Hoodi, name: 'hoodi' },
}

/** human network name for health: 'mainnet', 'sepolia', ... or 'chain-<id>' */
export function networkName(chainId: number): string {
  return KNOWN_CHAINS[chainId]?.name ?? `chain-${chainId}`
}

/** throws VALIDATION_ERROR for a fork name the EVM does not run (a config mistake, said early) */
export function checkHardfork(name: string): string {
  const supported = (EVM as unknown as { supportedHardforks: string[] }).supportedHardforks
  if (!supported.includes(name)) {
    throw new EngineError('VALIDATION_ERROR', `unsupported hardfork '${name}'; supported: ${supported.join(', ')}`)
  }
  return name
}

/** a block number past every number-scheduled fork */
const FAR_BLOCK = 1n << 60n

/** 2^64 - 1: geth's gas limits are uint64, so no call can exceed it */
const NO_TX_GAS_CAP = '18446744073709551615'

/**
 * RPC execution semantics: geth's ToMessage sets SkipTransactionChecks for eth_call, eth_simulateV1
 * and traces, which skips the Osaka EIP-7825 per-transaction gas cap (geth-reference §1.2), and
 * Anvil leaves it off unless --enable-tx-gas-limit. ethereumjs enforces it in every tx constructor,
 * which re-merges its own params into the tx's Common copy; so the cap is lifted again after every
 * params merge, on this Common and (Common.copy keeps own properties) on every copy of it. Mined
 * transactions obey the cap anyway, so replays are unaffected.
 */
function withoutTxGasCap(common: Common): Common {
  const merge = Common.prototype.updateParams
  const lift = function (this: Common, params: Parameters<Common['updateParams']>[0]): void {
    merge.call(this, params)
    if ('7825' in params || 7825 in params) merge.call(this, { 7825: { maxTransactionGasLimit: NO_TX_GAS_CAP } })
  }
  Object.defineProperty(common, 'updateParams', { value: lift, writable: true, enumerable: true, configurable: true })
  merge.call(common, { 7825: { maxTransactionGasLimit: NO_TX_GAS_CAP } })
  return common
}

/** the Set form of a Common's list of active EIPs, and the list it was made from */
const EIP_SET = Symbol('activatedEipSet')
type EipLookup = Common & { _activatedEIPsCache: number[]; [EIP_SET]?: { from: number[]; set: Set<number> } }

/**
 * `isActivatedEIP` answered from a Set. ethereumjs asks it on every opcode (and in gas functions)
 * and answers with `Array.includes` over the fork's ~50 EIPs: 70 ns a call against 13 ns (a CPU
 * profile of the service put up to 5% of a warm simulation there; timed alone it is nearer 1%). ethereumjs replaces the list (never mutates it) whenever the
 * fork or the EIPs change, so the Set is rebuilt when the list it was made from is no longer the
 * Common's. Installed like `withoutTxGasCap`: an own property, which Common.copy keeps.
 */
function withEipSet(common: Common): Common {
  const isActivatedEIP = function (this: EipLookup, eip: number): boolean {
    const list = this._activatedEIPsCache
    let lookup = this[EIP_SET]
    if (lookup === undefined || lookup.from !== list) {
      lookup = { from: list, set: new Set(list) }
      this[EIP_SET] = lookup
    }
    return lookup.set.has(eip)
  }
  Object.defineProperty(common, 'isActivatedEIP', { value: isActivatedEIP, writable: true, enumerable: true, configurable: true })
  return common
}

/** ethereumjs' cryptography for every Common: KZG for blobs, WebAssembly keccak and ecrecover (keccak.ts, ecrecover.ts) */
const customCrypto = () => ({ kzg: kzgBackend(), keccak256, ecrecover })

/** the Common every factory copies from: the tx gas cap lifted, the EIP lookup a Set */
const forRpc = (common: Common): Common => withEipSet(withoutTxGasCap(common))

/**
 * A factory of Commons for one chain: a fresh Common per call (a Common is mutable and a VM may
 * change it, so requests never share one). `fixedHardfork` pins the fork for every block.
 */
export function createCommonFactory(chainId: number, fixedHardfork?: string): (at: { number: bigint; timestamp: bigint }) => Common {
  if (fixedHardfork) checkHardfork(fixedHardfork)
  const known = KNOWN_CHAINS[chainId]
  if (known && !fixedHardfork) {
    return scheduledFactory(forRpc(new Common({ chain: known.config, customCrypto: customCrypto() })))
  }
  const hardfork = fixedHardfork || DEFAULT_HARDFORK
  const base = forRpc(
    known
      ? new Common({ chain: known.config, hardfork, customCrypto: customCrypto() })
      : createCustomCommon({ chainId, name: networkName(chainId) }, Mainnet, { hardfork, customCrypto: customCrypto() }),
  )
  return () => base.copy()
}

/**
 * A factory of Commons for a chain described by a geth genesis file (`config`: chain id, fork
 * blocks and times, blob schedule): its own fork schedule by block number and timestamp, as for
 * the known public chains. The embedded devnet booted from a genesis runs on this.
 */
export function createGenesisCommonFactory(genesis: GethGenesis): (at: { number: bigint; timestamp: bigint }) => Common {
  const chainId = Number(genesis.config.chainId)
  return scheduledFactory(forRpc(createCommonFromGethGenesis(genesis, { chain: networkName(chainId), customCrypto: customCrypto() })))
}

/**
 * A fresh copy of `base` per call, set to the fork of that block. Setting a fork rebuilds the
 * Common's parameter and EIP tables (about 30 µs on mainnet's schedule, per request), so each fork
 * is set once on a copy kept here and every call gets a copy of that: the same tables, its own
 * event emitter and fork state. Finding the fork walks the schedule (about 20 µs on mainnet's), so
 * the last block's answer is kept too: requests at the head or at a pinned block repeat it.
 */
function scheduledFactory(base: Common): (at: { number: bigint; timestamp: bigint }) => Common {
  const byFork = new Map<string, Common>()
  let last: { number: bigint; timestamp: bigint; fork: string } | undefined
  return (at) => {
    const fork = last && last.number === at.number && last.timestamp === at.timestamp ? last.fork : forkAt(base, at)
    last = { number: at.number, timestamp: at.timestamp, fork }
    let configured = byFork.get(fork)
    if (!configured) {
      configured = base.copy()
      configured.setHardfork(fork)
      // builds the Set behind withEipSet's lookup once, on the copy every call copies
      configured.isActivatedEIP(1559)
      byFork.set(fork, configured)
    }
    return configured.copy()
  }
}

/** the fork of a block by ethereumjs' rules, reading `base` without changing it */
function forkAt(base: Common, at: { number: bigint; timestamp: bigint }): string {
  try {
    return base.getHardforkBy({ blockNumber: at.number, timestamp: at.timestamp })
  } catch {
    // a block override may pair a low number with a modern time (or the reverse): ethereumjs
    // refuses the mix; then the time decides (post-merge forks are by time), else the number
    try {
      return base.getHardforkBy({ blockNumber: FAR_BLOCK, timestamp: at.timestamp })
    } catch {
      return base.getHardforkBy({ blockNumber: at.number })
    }
  }
}
