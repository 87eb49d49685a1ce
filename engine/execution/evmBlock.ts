/**
 * evmBlock: the block a transaction runs in, as the ethereumjs VM reads it, built straight from a
 * BlockEnv. A real ethereumjs Block would copy the Common and validate consensus fields a call
 * environment does not have (parent, initial base fee at the London block, ...); runTx and the
 * EVM only read these header fields (and `getBlobGasPrice`), so a plain object is exact and cheap.
 * BLOCKHASH goes through a minimal blockchain that asks `ctx.getBlockHash`.
 */
import type { Block } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm'
import { Address as EjsAddress, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import type { Hex } from 'viem'
import type { BlockEnv } from './types.js'

/** EIP-4844 fake_exponential */
export function fakeExponential(factor: bigint, numerator: bigint, denominator: bigint): bigint {
  let i = 1n
  let output = 0n
  let acc = factor * denominator
  while (acc > 0n) {
    output += acc
    acc = (acc * numerator) / (denominator * i)
    i++
  }
  return output / denominator
}

export interface EvmBlockOptions {
  /** the base fee the EVM sees (0 for a zero-fee call under eth_call semantics); undefined pre-London */
  baseFeePerGas: bigint | undefined
}

export function buildEvmBlock(env: BlockEnv, common: Common, opts: EvmBlockOptions): Block {
  const cancun = common.isActivatedEIP(4844)
  const header = {
    number: env.number,
    coinbase: new EjsAddress(hexToBytes(env.coinbase)),
    timestamp: env.timestamp,
    difficulty: env.difficulty,
    prevRandao: setLengthLeft(hexToBytes(env.prevRandao), 32),
    mixHash: setLengthLeft(hexToBytes(env.prevRandao), 32),
    gasLimit: env.gasLimit,
    gasUsed: 0n,
    baseFeePerGas: opts.baseFeePerGas,
    excessBlobGas: env.excessBlobGas,
    parentBeaconBlockRoot: env.parentBeaconBlockRoot ? hexToBytes(env.parentBeaconBlockRoot) : undefined,
    slotNumber: 0n,
    getBlobGasPrice(): bigint | undefined {
      if (!cancun) return undefined
      if (env.blobBaseFee !== undefined) return env.blobBaseFee
      return fakeExponential(common.param('minBlobGas'), env.excessBlobGas ?? 0n, common.param('blobGasPriceUpdateFraction'))
    },
  }
  return { header, common } as unknown as Block
}

/** BLOCKHASH(n) through ctx.getBlockHash; unknown hashes read as zero, as geth's GetHashFn. */
export function blockHashSource(getBlockHash?: (n: bigint) => Promise<Hex | undefined>): EVMMockBlockchainInterface {
  const source: EVMMockBlockchainInterface = {
    async getBlock(n: number) {
      const h = getBlockHash ? await getBlockHash(BigInt(n)) : undefined
      const bytes = h ? setLengthLeft(hexToBytes(h), 32) : new Uint8Array(32)
      return { hash: () => bytes }
    },
    async putBlock() {},
    shallowCopy: () => source,
  }
  return source
}
