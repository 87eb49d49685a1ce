/**
 * The devnet booted from a geth genesis and an imported RLP chain (engine/chains/devnet/importedDevnet.ts),
 * against ethereumjs' own chain machinery as the reference: a small proof-of-work chain crossing
 * Spurious Dragon → Byzantium → London is built by @ethereumjs/blockchain + @ethereumjs/vm
 * buildBlock (real tries, real roots, block rewards), serialized, and imported. The genesis hash,
 * every block hash, the state, the refusal of a tampered block, and eth_simulateV1's real state
 * roots (with the ethash reward, and pre-Byzantium receipts' intermediate roots) must agree with
 * what ethereumjs computed.
 */
import { createBlock, type Block } from '@ethereumjs/block'
import { createBlockchain } from '@ethereumjs/blockchain'
import { createCommonFromGethGenesis, parseGethGenesisState, type GethGenesis } from '@ethereumjs/common'
import { createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx'
import { bytesToHex, concatBytes, createAddressFromString, hexToBytes } from '@ethereumjs/util'
import { buildBlock, createVM } from '@ethereumjs/vm'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Address, Hex } from 'viem'
import { createMemoryCacheStore } from '../../../../host/cache/memoryCacheStore.js'
import { DEV_ACCOUNTS } from '../../../../engine/chains/memory/accounts.js'
import { createImportedDevnet } from '../../../../engine/chains/devnet/importedDevnet.js'
import { createEngine } from '../../../../engine/index.js'
import type { Engine, SimulateV1Params } from '../../../../engine/types.js'
import { ON_CHAIN } from '../../../../engine/types.js'

const dev = DEV_ACCOUNTS[0]!
const MINER: Address = '0x00000000000000000000000000000000000000aa'
const PAYEE: Address = '0x00000000000000000000000000000000000000bb'

// proof of work throughout: Spurious Dragon at 0, Byzantium at 2, London at 3
const genesis: GethGenesis = {
  config: {
    chainId: 1337,
    homesteadBlock: 0,
    eip150Block: 0,
    eip155Block: 0,
    eip158Block: 0,
    byzantiumBlock: 2,
    constantinopleBlock: 3,
    petersburgBlock: 3,
    istanbulBlock: 3,
    berlinBlock: 3,
    londonBlock: 3,
    ethash: {},
  },
  nonce: '0x0',
  timestamp: '0x0',
  gasLimit: '0x1c9c380',
  difficulty: '0x20000',
  extraData: '0x1234',
  coinbase: MINER,
  alloc: { [dev.address]: { balance: '0x56bc75e2d63100000' } },
}

/** ethereumjs builds the chain: block 1-3 one transfer of 1000 wei each; block 4 empty (not imported) */
async function referenceChain(): Promise<{ genesisHash: Hex; blocks: Block[] }> {
  const common = createCommonFromGethGenesis(genesis, { chain: 'reference' })
  const state = parseGethGenesisState(genesis)
  const blockchain = await createBlockchain({ common, genesisState: state, validateConsensus: false, validateBlocks: false })
  const vm = await createVM({ common, blockchain })
  await (vm.stateManager as MerkleStateManager).generateCanonicalGenesis(state)
  let parent = await blockchain.getCanonicalHeadBlock()
  const genesisHash = bytesToHex(parent.hash()) as Hex
  const blocks: Block[] = []
  const key = hexToBytes(dev.privateKey)
  const to = createAddressFromString(PAYEE)
  for (let n = 1n; n <= 4n; n++) {
    vm.common.setHardforkBy({ blockNumber: n })
    const builder = await buildBlock(vm, {
      parentBlock: parent,
      headerData: { timestamp: parent.header.timestamp + 10n, coinbase: createAddressFromString(MINER), gasLimit: parent.header.gasLimit },
      blockOpts: { calcDifficultyFromHeader: parent.header, putBlockIntoBlockchain: false },
    })
    const nonce = n - 1n
    if (n === 1n || n === 2n)
      await builder.addTransaction(createLegacyTx({ nonce, gasPrice: 10n ** 9n, gasLimit: 21_000n, to, value: 1000n }, { common: vm.common }).sign(key))
    if (n === 3n)
      await builder.addTransaction(
        createFeeMarket1559Tx({ nonce, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, gasLimit: 21_000n, to, value: 1000n }, { common: vm.common }).sign(
          key,
        ),
      )
    const { block } = await builder.build()
    blocks.push(block)
    parent = block
  }
  return { genesisHash, blocks }
}

const streamOf = (blocks: Block[]) => concatBytes(...blocks.map((b) => b.serialize()))

let reference: Awaited<ReturnType<typeof referenceChain>>
let engine: Engine
beforeAll(async () => {
  reference = await referenceChain()
  engine = await createEngine({
    devnetImport: { genesis, blocks: streamOf(reference.blocks.slice(0, 3)) },
    cache: createMemoryCacheStore(),
    gasCap: 50_000_000n,
    rpcTimeoutMs: 5_000,
    maxStructLogSteps: 10_000,
    simulationTtlSeconds: 60,
  })
})
afterAll(() => engine?.close())

const simulate = (p: Partial<SimulateV1Params> & Pick<SimulateV1Params, 'blockStateCalls' | 'block'>) =>
  engine.simulateV1(ON_CHAIN, { traceTransfers: false, validation: false, returnFullTransactions: false, ...p }) as Promise<Record<string, unknown>[]>

describe('a devnet imported from a geth genesis and its blocks', () => {
  it('has the genesis and the blocks ethereumjs built, hash for hash', async () => {
    const devnet = await createImportedDevnet({ genesis, blocks: streamOf(reference.blocks.slice(0, 3)) })
    expect(devnet.chainId).toBe(1337)
    expect(devnet.head()).toBe(3n)
    expect((await devnet.resolveBlock({ number: 0n })).hash).toBe(reference.genesisHash)
    for (const [i, b] of reference.blocks.slice(0, 3).entries()) {
      expect((await devnet.resolveBlock({ number: BigInt(i + 1) })).hash).toBe(bytesToHex(b.hash()))
    }
    expect(devnet.hardfork).toBe('london')
  })

  it('answers reads of its state and history as the chain holds them', async () => {
    expect(await engine.readChain(ON_CHAIN, 'eth_getBalance', [PAYEE, 'latest'])).toBe('0xbb8')
    expect(await engine.readChain(ON_CHAIN, 'eth_getBalance', [PAYEE, '0x1'])).toBe('0x3e8')
    const receipt = (await engine.readChain(ON_CHAIN, 'eth_getTransactionReceipt', [bytesToHex(reference.blocks[2]!.transactions[0]!.hash())])) as Record<
      string,
      unknown
    >
    expect(receipt).toMatchObject({ status: '0x1', gasUsed: '0x5208', blockNumber: '0x3', from: dev.address })
  })

  it('refuses a block whose state root is not what its transactions give', async () => {
    const last = reference.blocks[2]!
    const forged = createBlock(
      { header: { ...last.header.toJSON(), stateRoot: reference.blocks[1]!.header.stateRoot }, transactions: last.transactions.map((t) => t.toJSON()) },
      { common: last.common },
    )
    await expect(createImportedDevnet({ genesis, blocks: streamOf([...reference.blocks.slice(0, 2), forged]) })).rejects.toThrow(
      /devnet block 3 does not import: invalid block stateRoot/,
    )
  })

  it('refuses a stream whose blocks do not follow one another', async () => {
    await expect(createImportedDevnet({ genesis, blocks: streamOf([reference.blocks[0]!, reference.blocks[2]!]) })).rejects.toThrow(
      /devnet block 3 does not follow block 1/,
    )
    await expect(createImportedDevnet({ genesis, blocks: new Uint8Array([0x01, 0x02]) })).rejects.toThrow(/not an RLP stream of blocks/)
  })
})

describe('eth_simulateV1 on it: real state roots', () => {
  it('an empty proof-of-work block credits the ethash reward: the root ethereumjs gave its empty block 4', async () => {
    const [block] = await simulate({ blockStateCalls: [{ calls: [] }], block: { number: 3n } })
    const block4 = reference.blocks[3]!
    expect(block!.stateRoot).toBe(bytesToHex(block4.header.stateRoot))
    expect(block!.parentHash).toBe(bytesToHex(reference.blocks[2]!.hash()))
    expect(block!.miner).toBe(MINER)
  })

  it('a pre-Byzantium call gets the intermediate root in its receipt: block 1 re-simulated on genesis has its roots', async () => {
    const block1 = reference.blocks[0]!
    const [block] = await simulate({
      blockStateCalls: [
        {
          blockOverrides: { time: block1.header.timestamp },
          calls: [{ from: dev.address, to: PAYEE, value: 1000n, gas: 21_000n, gasPrice: 10n ** 9n, nonce: 0n, data: '0x' }],
        },
      ],
      block: { number: 0n },
      validation: true,
    })
    // the transaction itself is geth's unsigned form (another hash), but receipts and state are the same
    expect(block!.receiptsRoot).toBe(bytesToHex(block1.header.receiptTrie))
    expect(block!.stateRoot).toBe(bytesToHex(block1.header.stateRoot))
    expect(block!.gasUsed).toBe('0x5208')
  })
})
