/**
 * eth_simulateV1 through its JSON-RPC handler with a real engine on the embedded devnet: the
 * spec's block chain rules (numbers, times, gaps, limits), state carried across blocks, block
 * overrides seen by the EVM, movePrecompileToAddress, traceTransfers' ETH logs, per-call results
 * and errors, the spec's error codes, and transaction hashes / receipts roots against independent
 * references (viem's serializer; the receipts root geth recorded in execution-apis'
 * ethSimulate-simple vector, which does not depend on the chain).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keccak256, pad, serializeTransaction, toHex, type Address, type Hex } from 'viem'
import { loadConfig } from '../../../../config/loadConfig.js'
import { createMemoryCacheStore } from '../../../../host/cache/memoryCacheStore.js'
import { createEngine } from '../../../../engine/index.js'
import type { Engine } from '../../../../engine/types.js'
import { simulateV1Methods } from '../../../../src/rpc/methods/simulateV1.js'
import { RpcError } from '../../../../src/rpc/rpcError.js'
import type { RpcContext } from '../../../../src/rpc/types.js'
import { ON_CHAIN } from '../../../../engine/types.js'

const C0: Address = '0xc000000000000000000000000000000000000000'
const C1: Address = '0xc100000000000000000000000000000000000000'
const C2: Address = '0xc200000000000000000000000000000000000000'
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
/** returns (NUMBER, TIMESTAMP, COINBASE, BASEFEE) as four words */
const BLOCK_INFO_CODE = '0x4360005242602052416040524860605260806000f3'
/** slot 0 += 1, returns the new value */
const COUNTER_CODE = '0x6000546001018060005560005260206000f3'
/** reverts with the 4 bytes 0xdeadbeef */
const REVERT_CODE = '0x63deadbeef60e01b60005260046000fd'
/** LOG1 with topic 2, LOG1 with topic 3, then REVERT */
const LOG_TWICE_AND_REVERT = '0x600260006000a1600360006000a160006000fd'
/** LOG1 with topic 1, CALL C2 (which may log and revert), LOG1 with topic 4 */
const LOG_CALL_C2_LOG = `0x600160006000a16000600060006000600073${C2.slice(2)}5af150600460006000a100`
/** LOG1 with topic 5 */
const LOG_ONCE = '0x600560006000a100'
/** ecrecover input (hash, v, r, s) whose signer is 0xb11cad98ad3f8114e0b3a1f6e7228bc8424df48a (execution-apis vector) */
const ECRECOVER_INPUT =
  '0x1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8000000000000000000000000000000000000000000000000000000000000001cb7cf302145348387b9e69fde82d8e634a0f8761e78da3bfa059efced97cbed0d2a66b69167cafe0ccfc726aec6ee393fea3cf0e4f3f9c394705e0f56d9bfe1c9'

let engine: Engine
let ctx: RpcContext
beforeAll(async () => {
  engine = await createEngine({
    cache: createMemoryCacheStore(),
    gasCap: 50_000_000n,
    rpcTimeoutMs: 5_000,
    maxStructLogSteps: 50_000,
    simulationTtlSeconds: 60,
  })
  ctx = { engine, config: loadConfig({ env: {} }), at: ON_CHAIN } as RpcContext
})
afterAll(() => engine.close())

type Block = Record<string, unknown> & {
  calls: {
    returnData: Hex
    logs: Record<string, unknown>[]
    gasUsed: Hex
    maxUsedGas: Hex
    status: Hex
    error?: { code: number; message: string; data?: Hex }
  }[]
}
const simulate = (opts: unknown, block: unknown = 'latest') => simulateV1Methods.eth_simulateV1!([opts, block], ctx) as Promise<Block[]>

async function rpcError(opts: unknown, block: unknown = 'latest'): Promise<RpcError> {
  try {
    await simulate(opts, block)
  } catch (e) {
    if (e instanceof RpcError) return e
    throw e
  }
  throw new Error('expected an RpcError')
}

describe('eth_simulateV1 on the devnet', () => {
  it('runs two ETH transfers as geth does: gas, status, tx hashes, receipts root, ETH transfer logs', async () => {
    const [block] = await simulate({
      blockStateCalls: [
        {
          stateOverrides: { [C0]: { balance: '0x3e8' } },
          calls: [
            { from: C0, to: C1, value: '0x3e8' },
            { from: C1, to: C2, value: '0x3e8' },
          ],
        },
      ],
      traceTransfers: true,
    })
    const head = await engine.health(ON_CHAIN)
    expect(block!.calls.map((c) => [c.status, c.gasUsed, c.maxUsedGas, c.returnData])).toEqual([
      ['0x1', '0x5208', '0x5208', '0x'],
      ['0x1', '0x5208', '0x5208', '0x'],
    ])
    expect(block!.gasUsed).toBe('0xa410')
    // geth's receipts root for these two receipts (execution-apis ethSimulate-simple)
    expect(block!.receiptsRoot).toBe('0x75308898d571eafb5cd8cde8278bf5b3d13c5f6ec074926de3bb895b519264e1')
    // the unsigned EIP-1559 transaction geth builds, hashed by viem's own serializer
    const expected = keccak256(
      serializeTransaction(
        // a call without gas gets the block's (the devnet's 30M, under the 50M cap)
        {
          type: 'eip1559',
          chainId: head.chainId,
          nonce: 0,
          gas: BigInt(block!.gasLimit as Hex),
          to: C1,
          value: 1000n,
          maxFeePerGas: 0n,
          maxPriorityFeePerGas: 0n,
        },
        { r: '0x0', s: '0x0', yParity: 0 },
      ),
    )
    expect((block!.transactions as Hex[])[0]).toBe(expected)
    const log = block!.calls[0]!.logs[0]!
    expect(log).toMatchObject({
      address: '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
      topics: [TRANSFER_TOPIC, pad(C0), pad(C1)],
      data: pad('0x3e8'),
      transactionHash: expected,
      transactionIndex: '0x0',
      logIndex: '0x0',
      blockHash: block!.hash,
      removed: false,
    })
    // the log index runs across the block
    expect(block!.calls[1]!.logs[0]!.logIndex).toBe('0x1')
  })

  it('without traceTransfers an ETH transfer has no logs', async () => {
    const [block] = await simulate({ blockStateCalls: [{ stateOverrides: { [C0]: { balance: '0x3e8' } }, calls: [{ from: C0, to: C1, value: '0x3e8' }] }] })
    expect(block!.calls[0]!.logs).toEqual([])
  })

  it('numbers and times: +1 and +12 s by default, gaps filled with empty blocks, parent hashes chained, overrides seen by the EVM', async () => {
    const latest = (await simulate({ blockStateCalls: [{}] }))[0]!
    const base = BigInt(latest.number as Hex) - 1n
    const baseTime = BigInt(latest.timestamp as Hex) - 12n
    const blocks = await simulate({
      blockStateCalls: [
        { stateOverrides: { [C2]: { code: BLOCK_INFO_CODE } }, calls: [{ from: C0, to: C2 }] },
        { blockOverrides: { number: toHex(base + 4n), feeRecipient: C1, baseFeePerGas: '0x7' }, calls: [{ from: C0, to: C2 }] },
      ],
    })
    expect(blocks.map((b) => BigInt(b.number as Hex))).toEqual([base + 1n, base + 2n, base + 3n, base + 4n])
    expect(blocks.map((b) => BigInt(b.timestamp as Hex) - baseTime)).toEqual([12n, 24n, 36n, 48n])
    for (let i = 1; i < blocks.length; i++) expect(blocks[i]!.parentHash).toBe(blocks[i - 1]!.hash)
    expect(blocks[1]!.calls).toEqual([])
    const words = (h: Hex) => [0, 1, 2, 3].map((i) => BigInt(`0x${h.slice(2 + 64 * i, 66 + 64 * i)}`))
    expect(words(blocks[0]!.calls[0]!.returnData)).toEqual([base + 1n, baseTime + 12n, 0n, 0n])
    // geth's NoBaseFee: a zero-fee call without validation reads BASEFEE 0; the header keeps the override
    expect(words(blocks[3]!.calls[0]!.returnData)).toEqual([base + 4n, baseTime + 48n, BigInt(C1), 0n])
    expect(blocks[3]!.baseFeePerGas).toBe('0x7')
    // the fee recipient carries over to later blocks, as geth's headers do
    expect(blocks[3]!.miner).toBe(C1)
  })

  it('state carries across blocks; BLOCKHASH of a simulated block is its hash', async () => {
    const blocks = await simulate({
      blockStateCalls: [
        {
          stateOverrides: { [C2]: { code: COUNTER_CODE } },
          calls: [
            { from: C0, to: C2 },
            { from: C0, to: C2 },
          ],
        },
        // BLOCKHASH(NUMBER - 1)
        {
          stateOverrides: { [C1]: { code: '0x600143034060005260206000f3' } },
          calls: [
            { from: C0, to: C2 },
            { from: C0, to: C1 },
          ],
        },
      ],
    })
    expect(blocks[0]!.calls.map((c) => BigInt(c.returnData))).toEqual([1n, 2n])
    expect(BigInt(blocks[1]!.calls[0]!.returnData)).toBe(3n)
    expect(blocks[1]!.calls[1]!.returnData).toBe(blocks[0]!.hash)
  })

  it('movePrecompileToAddress: ecrecover answers at the new address, the old one is empty', async () => {
    const [block] = await simulate({
      blockStateCalls: [
        {
          stateOverrides: { '0x0000000000000000000000000000000000000001': { movePrecompileToAddress: '0x0000000000000000000000000000000000123456' } },
          calls: [
            { from: C1, to: '0x0000000000000000000000000000000000123456', input: ECRECOVER_INPUT },
            { from: C1, to: '0x0000000000000000000000000000000000000001', input: ECRECOVER_INPUT },
          ],
        },
      ],
    })
    expect(block!.calls[0]!.returnData).toBe(pad('0xb11cad98ad3f8114e0b3a1f6e7228bc8424df48a'))
    expect(block!.calls[1]!.returnData).toBe('0x')
    const e = await rpcError({ blockStateCalls: [{ stateOverrides: { [C1]: { movePrecompileToAddress: C2 } } }] })
    expect([e.code, e.message]).toEqual([-32000, 'account 0xc100000000000000000000000000000000000000 is not a precompile'])
  })

  it('a revert is status 0 with code 3, empty returnData and the revert bytes as data; the block goes on', async () => {
    const [block] = await simulate({
      blockStateCalls: [
        {
          stateOverrides: { [C2]: { code: REVERT_CODE }, [C0]: { balance: '0x10' } },
          calls: [
            { from: C0, to: C2, value: '0x1' },
            { from: C0, to: C1, value: '0x1' },
          ],
        },
      ],
      traceTransfers: true,
    })
    expect(block!.calls[0]).toMatchObject({ status: '0x0', returnData: '0x', logs: [], error: { code: 3, message: 'execution reverted', data: '0xdeadbeef' } })
    expect(block!.calls[1]!.status).toBe('0x1')
    const failed = await simulate({ blockStateCalls: [{ calls: [{ from: C0, to: C2, gas: '0x5300' }] }] })
    expect(failed[0]!.calls[0]!.error).toBeUndefined()
    const oog = await simulate({ blockStateCalls: [{ stateOverrides: { [C2]: { code: COUNTER_CODE } }, calls: [{ from: C0, to: C2, gas: '0x5300' }] }] })
    expect(oog[0]!.calls[0]).toMatchObject({ status: '0x0', gasUsed: '0x5300', error: { code: -32015, message: 'out of gas' } })
  })

  it("a reverted frame frees its logs' indices, as geth's log tracer does: the next log takes the first freed one", async () => {
    const C3: Address = '0xc300000000000000000000000000000000000000'
    const topicsAndIndices = (b: Block) => b.calls.map((c) => c.logs.map((l) => [BigInt((l.topics as Hex[])[0]!), l.logIndex]))
    const [inner] = await simulate({
      blockStateCalls: [
        {
          stateOverrides: { [C1]: { code: LOG_CALL_C2_LOG }, [C2]: { code: LOG_TWICE_AND_REVERT }, [C3]: { code: LOG_ONCE } },
          // an inner frame logs twice and reverts between two logs of its caller; then another call logs
          calls: [
            { from: C0, to: C1 },
            { from: C0, to: C3 },
          ],
        },
      ],
    })
    expect(topicsAndIndices(inner!)).toEqual([
      [
        [1n, '0x0'],
        [4n, '0x1'],
      ],
      [[5n, '0x2']],
    ])
    const [top] = await simulate({
      blockStateCalls: [
        {
          stateOverrides: { [C2]: { code: LOG_TWICE_AND_REVERT }, [C3]: { code: LOG_ONCE } },
          // a whole call logs twice and reverts; the next call's log is the block's first
          calls: [
            { from: C0, to: C3 },
            { from: C0, to: C2 },
            { from: C0, to: C3 },
          ],
        },
      ],
    })
    expect(top!.calls.map((c) => c.status)).toEqual(['0x1', '0x0', '0x1'])
    expect(topicsAndIndices(top!)).toEqual([[[5n, '0x0']], [], [[5n, '0x1']]])
  })

  it("takes alloy's block override names (baseFee, coinbase, timestamp), as reth does; both names of one field are refused", async () => {
    const calls = [{ from: C0, to: C2 }]
    const state = { [C2]: { code: BLOCK_INFO_CODE } }
    const alloy = await simulate({
      blockStateCalls: [{ blockOverrides: { baseFee: '0x7', coinbase: C1, timestamp: '0x7fffffff' }, stateOverrides: state, calls }],
    })
    const geth = await simulate({
      blockStateCalls: [{ blockOverrides: { baseFeePerGas: '0x7', feeRecipient: C1, time: '0x7fffffff' }, stateOverrides: state, calls }],
    })
    expect(alloy).toEqual(geth)
    expect(alloy[0]!.baseFeePerGas).toBe('0x7')
    expect(alloy[0]!.miner).toBe(C1)
    const e = await rpcError({ blockStateCalls: [{ blockOverrides: { baseFee: '0x7', baseFeePerGas: '0x7' } }] })
    expect([e.code, e.message]).toEqual([-32602, 'invalid argument 0: blockStateCalls[0].blockOverrides.baseFeePerGas: baseFee is given twice'])
  })

  it("returnFullTransactions prints geth's RPC transactions", async () => {
    const [block] = await simulate({
      blockStateCalls: [
        {
          blockOverrides: { baseFeePerGas: '0xf' },
          stateOverrides: { [C0]: { balance: '0xe8d4a51000' } },
          calls: [{ from: C0, to: C1, maxFeePerGas: '0x10', value: '0x3e8' }],
        },
      ],
      validation: true,
      returnFullTransactions: true,
    })
    const tx = (block!.transactions as Record<string, unknown>[])[0]!
    expect(tx).toMatchObject({
      from: C0,
      to: C1,
      gas: block!.gasLimit,
      gasPrice: '0xf',
      maxFeePerGas: '0x10',
      maxPriorityFeePerGas: '0x0',
      nonce: '0x0',
      type: '0x2',
      value: '0x3e8',
      blockHash: block!.hash,
      transactionIndex: '0x0',
      v: '0x0',
      r: '0x0',
      s: '0x0',
      yParity: '0x0',
    })
    const { chainId } = await engine.health(ON_CHAIN)
    expect(tx.hash).toBe(
      keccak256(
        serializeTransaction(
          { type: 'eip1559', chainId, nonce: 0, gas: BigInt(block!.gasLimit as Hex), to: C1, value: 1000n, maxFeePerGas: 16n, maxPriorityFeePerGas: 0n },
          { r: '0x0', s: '0x0', yParity: 0 },
        ),
      ),
    )
  })

  it("refuses a request with the spec's codes and geth's words", async () => {
    const next = BigInt((await simulate({ blockStateCalls: [{}] }))[0]!.number as Hex)
    const cases: [unknown, number, string | RegExp][] = [
      [
        { blockStateCalls: [{ blockOverrides: { number: toHex(next + 5n) } }, { blockOverrides: { number: toHex(next + 2n) } }] },
        -38020,
        `block numbers must be in order: ${next + 2n} <= ${next + 5n}`,
      ],
      [{ blockStateCalls: [{ blockOverrides: { number: toHex(next + 256n) } }] }, -38026, 'too many blocks'],
      [
        { blockStateCalls: [{ blockOverrides: { time: '0xffffffff' } }, { blockOverrides: { time: '0xfffffff0' } }] },
        -38021,
        'block timestamps must be in order: 4294967280 <= 4294967295',
      ],
      [{ blockStateCalls: Array.from({ length: 257 }, () => ({})) }, -38026, 'too many blocks'],
      [
        { blockStateCalls: [{ calls: [{ from: C0, to: C1, value: '0x3e8' }] }] },
        -38014,
        'err: insufficient funds for gas * price + value: address 0xC000000000000000000000000000000000000000 have 0 want 1000 (supplied gas 30000000)',
      ],
      [{ blockStateCalls: [{ calls: [{ from: C1, to: C1, gas: '0x0' }] }] }, -38013, 'err: intrinsic gas too low: have 0, want 21000 (supplied gas 0)'],
      [
        {
          blockStateCalls: [
            {
              blockOverrides: { baseFeePerGas: '0xa' },
              stateOverrides: { [C0]: { balance: '0x7d0' } },
              calls: [{ from: C0, to: C1, maxFeePerGas: '0x0', maxPriorityFeePerGas: '0x0' }],
            },
          ],
          validation: true,
        },
        -38012,
        'err: max fee per gas less than block base fee: address 0xC000000000000000000000000000000000000000, maxFeePerGas: 0, baseFee: 10 (supplied gas 30000000)',
      ],
      [
        { blockStateCalls: [{ stateOverrides: { [C0]: { nonce: '0x5' } }, calls: [{ from: C0, to: C1, nonce: '0x1' }] }], validation: true },
        -38010,
        /^err: nonce too low/,
      ],
      [{ blockStateCalls: [{ calls: [{ from: C0, to: C1, nonce: '0x9' }] }], validation: true }, -38011, /^err: nonce too high/],
      [
        {
          blockStateCalls: [
            {
              blockOverrides: { gasLimit: '0x5208' },
              calls: [
                { from: C0, to: C1 },
                { from: C0, to: C1, gas: '0x5208' },
              ],
            },
          ],
        },
        -38015,
        'block gas limit reached: 21000 >= 21000',
      ],
      [{ blockStateCalls: [] }, -32602, 'empty input'],
      [{ blockStateCalls: [{ calls: [{ from: C0, to: C1, chainId: '0x1' }] }] }, -32000, /^chainId does not match node's \(have=1, want=/],
      [
        { blockStateCalls: [{ stateOverrides: { [C0]: { nonce: '0xffffffffffffffff' } }, calls: [{ from: C0, to: C1 }] }], validation: true },
        -32603,
        'err: nonce has max value: address 0xC000000000000000000000000000000000000000, nonce: 18446744073709551615 (supplied gas 30000000)',
      ],
    ]
    for (const [opts, code, message] of cases) {
      const e = await rpcError(opts)
      expect(e.code, JSON.stringify(opts).slice(0, 120)).toBe(code)
      if (typeof message === 'string') expect(e.message).toBe(message)
      else expect(e.message).toMatch(message)
    }
    // a base block past the head: geth's words
    const past = await rpcError({ blockStateCalls: [{}] }, toHex(next + 10n))
    expect([past.code, past.message]).toEqual([-32000, 'header not found'])
  })

  it("a sender at nonce 2^64-1 runs without validation, and its nonce wraps to 0 as geth's uint64 does", async () => {
    const [block] = await simulate({
      blockStateCalls: [
        {
          stateOverrides: { [C0]: { nonce: '0xffffffffffffffff' } },
          calls: [
            { from: C0, to: C1 },
            { from: C0, to: C1 },
          ],
        },
      ],
      returnFullTransactions: true,
    })
    expect(block!.calls.map((c) => c.status)).toEqual(['0x1', '0x1'])
    expect((block!.transactions as { nonce: Hex }[]).map((t) => t.nonce)).toEqual(['0xffffffffffffffff', '0x0'])
  })

  it('a blob call is a type-3 transaction: BLOBHASH sees its hashes, the block counts its blob gas', async () => {
    const hash = `0x01${'ab'.repeat(31)}` as Hex
    const [block] = await simulate({
      blockStateCalls: [
        {
          // returns BLOBHASH(0) and BLOBHASH(1)
          stateOverrides: { [C0]: { balance: '0x3b9aca00' }, [C2]: { code: '0x60004960005260014960205260406000f3' } },
          calls: [{ from: C0, to: C2, maxFeePerBlobGas: '0xa', blobVersionedHashes: [hash] }],
        },
      ],
      returnFullTransactions: true,
    })
    expect(block!.calls[0]).toMatchObject({ status: '0x1', returnData: `${hash}${'0'.repeat(64)}` })
    expect(block!.blobGasUsed).toBe('0x20000')
    const tx = (block!.transactions as Record<string, unknown>[])[0]!
    expect(tx).toMatchObject({ type: '0x3', maxFeePerBlobGas: '0xa', blobVersionedHashes: [hash], to: C2 })
    const { chainId } = await engine.health(ON_CHAIN)
    expect(tx.hash).toBe(
      keccak256(
        serializeTransaction(
          {
            type: 'eip4844',
            chainId,
            nonce: 0,
            gas: BigInt(tx.gas as Hex),
            to: C2,
            maxFeePerGas: 0n,
            maxPriorityFeePerGas: 0n,
            maxFeePerBlobGas: 10n,
            blobVersionedHashes: [hash],
          },
          { r: '0x0', s: '0x0', yParity: 0 },
        ),
      ),
    )
  })

  it('bad params are -32602 naming the field; nothing unknown is dropped', async () => {
    const cases: [unknown[], RegExp][] = [
      [[], /missing value for required argument 0/],
      [
        [{ blockStateCalls: [{ calls: [{ from: C0, to: C1, colour: 'red' }] }] }],
        /invalid argument 0: blockStateCalls\[0\]\.calls\[0\]: unknown field "colour"/,
      ],
      [[{ blockStateCalls: [{ calls: [{ from: C0, gas: '0x0012' }] }] }], /calls\[0\]\.gas: hex number with leading zero digits/],
      [[{ blockStateCalls: [{ calls: [{ from: 'nope' }] }] }], /calls\[0\]\.from: expected a 20-byte/],
      [[{ blockStateCalls: [{ blockOverrides: { beaconRoot: `0x${'0'.repeat(64)}` } }] }], /beaconRoot is not supported/],
      [[{ blockStateCalls: [{ calls: [{ from: C0, data: '0x01', input: '0x02' }] }] }], /both "data" and "input" are set and not equal/],
      [[{ blockStateCalls: [{}], validate: true }], /unknown field "validate"/],
      [[{ blockStateCalls: [{}] }, { blockHash: '0x00' }], /invalid argument 1: .*block hash is not supported/],
      [
        [{ blockStateCalls: [{ calls: [{ from: C0, blobVersionedHashes: [`0x01${'00'.repeat(31)}`] }] }] }],
        /calls\[0\]\.to: a blob transaction cannot create a contract/,
      ],
      [
        [{ blockStateCalls: [{ calls: [{ from: C0, to: C1, authorizationList: [{}] }] }] }],
        /calls\[0\]\.authorizationList: EIP-7702 transactions are not simulated/,
      ],
    ]
    for (const [params, message] of cases) {
      const e = await simulateV1Methods.eth_simulateV1!(params, ctx).then(
        () => undefined,
        (x: unknown) => x,
      )
      expect(e).toBeInstanceOf(RpcError)
      expect((e as RpcError).code).toBe(-32602)
      expect((e as RpcError).message).toMatch(message)
    }
  })
})
