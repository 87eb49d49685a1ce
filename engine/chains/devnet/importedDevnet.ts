/**
 * The embedded devnet booted from a chain's own genesis and blocks instead of the demo history:
 * a geth genesis file (chain id, fork schedule, alloc, gas limit, timestamps) and an RLP stream of
 * its blocks, imported and checked block by block (importBlocks.ts). The blocks keep their real
 * headers, so hashes, roots and every read answer are those of the chain's own nodes, and the
 * chain's whole state is in process: simulated blocks on it get real state roots.
 *
 * This is how execution-apis' eth_simulateV1 vectors, recorded by geth on the hive test chain
 * (tests/genesis.json, tests/chain.rlp), run against the service (scripts/simulateV1Vectors.ts).
 *
 * @example
 * const devnet = await createImportedDevnet({ genesis: JSON.parse(genesisJson), blocks: readFileSync('chain.rlp') })
 * devnet.head() // 54n on the hive chain
 */
import type { GethGenesis } from '@ethereumjs/common'
import { EngineError } from '../../platform/errors.js'
import { createGenesisCommonFactory, networkName } from '../../platform/hardfork.js'
import { devnetOver, type Devnet } from './devnetChain.js'
import { genesisFromGeth } from './gethGenesis.js'
import { importBlocks } from './importBlocks.js'

export interface ImportedDevnetOptions {
  /** a geth genesis file, parsed */
  genesis: GethGenesis
  /** the chain's blocks after genesis as one RLP stream (`geth export`); none: genesis only */
  blocks?: Uint8Array
}

export async function createImportedDevnet(opts: ImportedDevnetOptions): Promise<Devnet> {
  const chainId = Number(opts.genesis?.config?.chainId)
  if (!Number.isSafeInteger(chainId) || chainId <= 0) throw new EngineError('VALIDATION_ERROR', 'the devnet genesis has no valid config.chainId')
  let commonFor: ReturnType<typeof createGenesisCommonFactory>
  try {
    commonFor = createGenesisCommonFactory(opts.genesis)
  } catch (e) {
    throw new EngineError('VALIDATION_ERROR', `the devnet genesis config is not usable: ${(e as Error).message}`)
  }
  const genesis = await genesisFromGeth(opts.genesis, commonFor)
  const blocks = [genesis, ...(opts.blocks?.length ? await importBlocks(commonFor, genesis, opts.blocks) : [])]
  const head = blocks[blocks.length - 1]!.header
  return devnetOver(blocks, {
    chainId,
    network: networkName(chainId),
    hardfork: commonFor(head).hardfork(),
    commonFor,
    clientVersion: 'evm-sim-service/devnet',
    realStateRoots: true,
  })
}
