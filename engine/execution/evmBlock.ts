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

/** what a block's header fields decode to, with the values they were decoded from */
interface BlockFields {
  from: BlockEnv
  coinbase: EjsAddress
  prevRandao: Uint8Array
  parentBeaconBlockRoot: Uint8Array | undefined
}
let last: BlockFields | undefined

/**
 * The header's decoded fields, reused while runs follow one another at the same block (the warm
 * path: every run decoded the coinbase and the randomness anew, about 1% of a warm transfer).
 * Compared by value: each request has a BlockEnv, and a Common, of its own. Nothing in ethereumjs
 * writes to them.
 */
function blockFields(env: BlockEnv): BlockFields {
  const l = last
  if (l !== undefined && l.from.coinbase === env.coinbase && l.from.prevRandao === env.prevRandao && l.from.parentBeaconBlockRoot === env.parentBeaconBlockRoot)
    return l
  last = {
    from: { ...env },
    coinbase: new EjsAddress(hexToBytes(env.coinbase)),
    prevRandao: setLengthLeft(hexToBytes(env.prevRandao), 32),
    parentBeaconBlockRoot: env.parentBeaconBlockRoot ? hexToBytes(env.parentBeaconBlockRoot) : undefined,
  }
  return last
}

export function buildEvmBlock(env: BlockEnv, common: Common, opts: EvmBlockOptions): Block {
  const cancun = common.isActivatedEIP(4844)
  const fields = blockFields(env)
  const header = {
    number: env.number,
    coinbase: fields.coinbase,
    timestamp: env.timestamp,
    difficulty: env.difficulty,
    prevRandao: fields.prevRandao,
    mixHash: fields.prevRandao,
    gasLimit: env.gasLimit,
    gasUsed: 0n,
    baseFeePerGas: opts.baseFeePerGas,
    excessBlobGas: env.excessBlobGas,
    parentBeaconBlockRoot: fields.parentBeaconBlockRoot,
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
