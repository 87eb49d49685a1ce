/**
 * The genesis block of a chain described by a geth genesis file: the alloc as its state, and its
 * header with the real state root (computed from the alloc), so its hash is the one the chain's
 * block 1 names as parent. Used by the devnet booted from a genesis (importedDevnet.ts).
 *
 * @example
 * const genesis = genesisFromGeth(json, commonFor)
 * genesis.header.hash // block 1's parentHash
 */
import { createBlockHeader } from '@ethereumjs/block'
import type { Common, GethGenesis } from '@ethereumjs/common'
import { createAddressFromString, hexToBytes } from '@ethereumjs/util'
import type { Hex } from 'viem'
import { EngineError } from '../../platform/errors.js'
import { MemoryStateSource, stateRootOf, type GenesisAccount } from '../../state/index.js'
import { headerInfo, type DevnetBlock } from '../memory/mineBlock.js'

const big = (v: string | number | null | undefined): bigint | undefined => (v === undefined || v === null ? undefined : BigInt(v))

/** the alloc of a geth genesis as the state layer takes it (balances and nonces are hex or decimal strings) */
export function allocOf(genesis: GethGenesis): Record<string, GenesisAccount> {
  return Object.fromEntries(
    Object.entries(genesis.alloc).map(([address, a]) => [
      address.startsWith('0x') ? address : `0x${address}`,
      { balance: big(a.balance) ?? 0n, nonce: big(a.nonce), code: a.code as Hex | undefined, storage: a.storage },
    ]),
  )
}

export async function genesisFromGeth(genesis: GethGenesis, commonFor: (at: { number: bigint; timestamp: bigint }) => Common): Promise<DevnetBlock> {
  if (!genesis?.config || typeof genesis.alloc !== 'object' || genesis.gasLimit === undefined) {
    throw new EngineError('VALIDATION_ERROR', 'the devnet genesis is not a geth genesis file (config, alloc and gasLimit are needed)')
  }
  const number = big(genesis.number) ?? 0n
  const timestamp = big(genesis.timestamp) ?? 0n
  const common = commonFor({ number, timestamp })
  const state = MemoryStateSource.fromAlloc(allocOf(genesis))
  const ethHeader = createBlockHeader(
    {
      number,
      timestamp,
      gasLimit: BigInt(genesis.gasLimit),
      gasUsed: big(genesis.gasUsed) ?? 0n,
      difficulty: big(genesis.difficulty) ?? 0n,
      nonce: genesis.nonce ? hexToBytes(`0x${BigInt(genesis.nonce).toString(16).padStart(16, '0')}`) : undefined,
      extraData: genesis.extraData ? hexToBytes(genesis.extraData as Hex) : undefined,
      mixHash: genesis.mixHash ? hexToBytes(genesis.mixHash) : undefined,
      coinbase: genesis.coinbase ? createAddressFromString(genesis.coinbase) : undefined,
      parentHash: genesis.parentHash ? hexToBytes(genesis.parentHash) : undefined,
      // ethereumjs fills the post-fork fields the genesis fork needs (base fee, blob gas, roots)
      baseFeePerGas: big(genesis.baseFeePerGas ?? undefined),
      excessBlobGas: big(genesis.excessBlobGas),
      stateRoot: await stateRootOf(state),
    },
    { common, setHardfork: false },
  )
  return { header: headerInfo(ethHeader), ethHeader, transactions: [], receipts: [], state }
}
