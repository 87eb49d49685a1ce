/**
 * EIP-4844 on a fork of a real Anvil (Prague: blob transactions in the EIP-4844 network form):
 * - a mined blob transaction traces like Anvil's debug_traceTransaction (ethereumjs builds a type-3
 *   transaction only with a KZG backend: engine/platform/kzg.ts), its BLOBHASH reading the versioned hash;
 * - a later transaction of the same block replays the blob transaction first (its blob fee shows in
 *   the sender's prestate balance);
 * - the point-evaluation precompile (0x0a) verifies a real KZG proof, and rejects a wrong one,
 *   with Anvil's output and gas.
 */
import { type Common, Mainnet, createCustomCommon } from '@ethereumjs/common'
import { createBlob4844Tx } from '@ethereumjs/tx'
import { computeVersionedHash, getBlobs, hexToBytes } from '@ethereumjs/util'
import { bytesToHex, concatHex, toHex, type Address, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChainSource } from '../../engine/chains/types.js'
import { kzgBackend, sharedKzg } from '../../engine/platform/kzg.js'
import { createTraceService, type TraceService } from '../../engine/operations/trace/traceService.js'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../support/anvil.js'
import { createMemoryCacheStore } from '../../host/cache/memoryCacheStore.js'
import { createRpcChain } from '../../engine/chains/remote/rpcChain.js'
import { gethCallFrame, gethPrestate, renumberLogs, withoutCodeHash, type Frame, type Prestate } from './gethRules.js'

const hasAnvil = requireAnvil()
const KEY0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const [A, B] = DEV_ACCOUNTS as unknown as [Address, Address]
/** PUSH0 BLOBHASH PUSH0 MSTORE PUSH1 32 PUSH0 LOG0 STOP: logs the first versioned hash */
const READER = '0x0000000000000000000000000000000000b10b00' as Address
const READER_CODE = '0x5f495f5260205fa000'
const POINT_EVALUATION = '0x000000000000000000000000000000000000000a' as Address
const GAS = 200_000n

describe.runIf(hasAnvil)('blob transactions and KZG (Prague fork of Anvil)', () => {
  let anvil: AnvilInstance
  let chain: ChainSource
  let traces: TraceService
  let blobHash: Hex
  let laterHash: Hex
  let versionedHash: Hex

  beforeAll(async () => {
    anvil = await startAnvil({ args: ['--hardfork', 'prague'] })
    await anvil.rpc('anvil_setCode', [READER, READER_CODE])
    chain = await createRpcChain({ url: anvil.url, timeoutMs: 10_000, cache: createMemoryCacheStore(), hardfork: 'prague' })
    traces = createTraceService(chain, { gasCap: 30_000_000n, maxStructLogSteps: 10_000 })

    const common: Common = createCustomCommon({ chainId: 31337 }, Mainnet, { hardfork: 'prague', customCrypto: { kzg: kzgBackend() } })
    const nonce = BigInt(await anvil.rpc<Hex>('eth_getTransactionCount', [A, 'latest']))
    const tx = createBlob4844Tx(
      {
        chainId: 31337n,
        nonce,
        maxFeePerGas: 10n ** 11n,
        maxPriorityFeePerGas: 10n ** 9n,
        maxFeePerBlobGas: 10n ** 10n,
        gasLimit: GAS,
        to: READER,
        blobsData: ['a blob for the tracer test'],
      },
      { common },
    ).sign(hexToBytes(KEY0))
    versionedHash = tx.blobVersionedHashes[0]! as Hex
    await anvil.rpc('evm_setAutomine', [false])
    try {
      blobHash = await anvil.rpc<Hex>('eth_sendRawTransaction', [bytesToHex(tx.serializeNetworkWrapper())])
      laterHash = await anvil.rpc<Hex>('eth_sendTransaction', [{ from: A, to: B, value: '0x1', gas: toHex(21_000n) }])
      await anvil.rpc('evm_mine', [])
    } finally {
      await anvil.rpc('evm_setAutomine', [true])
    }
  }, 60_000)
  afterAll(async () => {
    await chain?.close()
    await anvil?.stop()
  })

  it('mined both in one block, the blob transaction first', async () => {
    const [ra, rb] = await Promise.all(
      [blobHash, laterHash].map((h) =>
        anvil.rpc<{ blockNumber: Hex; transactionIndex: Hex; type: Hex; blobGasUsed?: Hex; status: Hex }>('eth_getTransactionReceipt', [h]),
      ),
    )
    expect(ra).toMatchObject({ type: '0x3', transactionIndex: '0x0', status: '0x1', blobGasUsed: '0x20000' })
    expect(rb).toMatchObject({ blockNumber: ra!.blockNumber, transactionIndex: '0x1' })
  })

  it('traces the blob transaction like Anvil, BLOBHASH reading its versioned hash', async () => {
    const ours = await traces.traceTransaction(blobHash, { callTracer: { withLog: true }, prestateTracer: {} })
    const theirs = await anvil.rpc<Frame>('debug_traceTransaction', [blobHash, { tracer: 'callTracer', tracerConfig: { withLog: true } }])
    const pre = await anvil.rpc<Prestate>('debug_traceTransaction', [blobHash, { tracer: 'prestateTracer' }])
    expect(ours.callTracer).toEqual(renumberLogs(gethCallFrame(theirs, GAS)))
    expect((ours.callTracer as Frame).logs?.[0]?.data).toBe(versionedHash)
    expect(withoutCodeHash(ours.prestateTracer as Prestate)).toEqual(gethPrestate(pre))
  })

  it('replays the blob transaction (and its blob fee) before a later transaction of its block', async () => {
    const ours = await traces.traceTransaction(laterHash, { prestateTracer: {} })
    const pre = await anvil.rpc<Prestate>('debug_traceTransaction', [laterHash, { tracer: 'prestateTracer' }])
    const mine = withoutCodeHash(ours.prestateTracer as Prestate)
    expect(mine).toEqual(gethPrestate(pre))
    // the sender's balance is what the blob transaction (execution and blob gas) left
    const blockBefore = BigInt((await anvil.rpc<{ blockNumber: Hex }>('eth_getTransactionReceipt', [blobHash])).blockNumber) - 1n
    const startBalance = BigInt(await anvil.rpc<Hex>('eth_getBalance', [A, toHex(blockBefore)]))
    expect(BigInt(mine[A]!.balance!)).toBeLessThan(startBalance)
  })

  describe('point-evaluation precompile (0x0a)', () => {
    const kzg = sharedKzg()
    const blob = getBlobs('point evaluation')[0]!
    const commitment = kzg.blobToKzgCommitment(blob) as Hex
    const z = toHex(0x1234n, { size: 32 })
    const [proof, y] = kzg.computeProof(blob, z) as [Hex, Hex]
    const input = (yValue: Hex) => concatHex([computeVersionedHash(commitment, 1) as Hex, z, yValue, commitment, proof])
    const callOf = (data: Hex) => ({ from: A, to: POINT_EVALUATION, data, gas: 100_000n })

    it('verifies a real proof: output and gas as Anvil', async () => {
      const ours = await traces.traceCall({ call: callOf(input(y)), block: { tag: 'latest' }, tracerConfig: { callTracer: {} } })
      const theirs = await anvil.rpc<Frame>('debug_traceCall', [
        { from: A, to: POINT_EVALUATION, data: input(y), gas: toHex(100_000n) },
        'latest',
        { tracer: 'callTracer' },
      ])
      const frame = ours.callTracer as Frame
      expect(frame.error).toBeUndefined()
      // FIELD_ELEMENTS_PER_BLOB and BLS_MODULUS
      expect(frame.output).toBe(concatHex([toHex(4096n, { size: 32 }), '0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001']))
      expect(frame).toEqual(gethCallFrame(theirs, 100_000n))
    })

    it('rejects a wrong evaluation: failed like Anvil', async () => {
      const wrongY = toHex(BigInt(y) ^ 1n, { size: 32 })
      const ours = await traces.traceCall({ call: callOf(input(wrongY)), block: { tag: 'latest' }, tracerConfig: { callTracer: {} } })
      const theirs = await anvil.rpc<Frame>('debug_traceCall', [
        { from: A, to: POINT_EVALUATION, data: input(wrongY), gas: toHex(100_000n) },
        'latest',
        { tracer: 'callTracer' },
      ])
      const frame = ours.callTracer as Frame
      // geth's words (core/vm/contracts.go wrapping go-kzg-4844); Anvil says 'precompiled failed'
      expect(frame.error).toBe("error verifying kzg proof: can't verify opening proof")
      expect(theirs.error).toBeDefined()
      expect({ gasUsed: frame.gasUsed, failed: true }).toEqual({ gasUsed: theirs.gasUsed, failed: theirs.error !== undefined })
    })
  })
})
