/**
 * eth_simulateV1 differentially against Anvil's own, on the same requests, with the engine
 * forking that Anvil. Anvil is not exact per block (no maxUsedGas, a non-zero base fee without
 * validation, the head's number for the first simulated block, no blocks filling a skipped
 * number, the transactions root printed as the receipts root, no creation without `to`), so only
 * the calls are compared; blocks are tested against geth's own vectors (simulateV1.test.ts and
 * scripts/simulateV1Vectors.ts). Anvil's per-call deviations, undone here: a failed call's
 * returnData holds the revert bytes (geth: `0x`, the bytes in error.data) and its error code is
 * -32000/-3200 (geth: 3 for a revert, -32015 for a VM error). Not compared: a value sent into a
 * frame that reverts — Anvil keeps its ETH transfer log, geth drops it with the frame (the
 * execution-apis vector ethSimulate-eth-send-should-produce-no-logs-on-forward-revert, which the
 * engine passes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Hex } from 'viem'
import { loadConfig } from '../../../../config/loadConfig.js'
import { createMemoryCacheStore } from '../../../../host/cache/memoryCacheStore.js'
import { createEngine } from '../../../../engine/index.js'
import { type Engine, ON_CHAIN } from '../../../../engine/types.js'
import { simulateV1Methods } from '../../../../src/rpc/methods/simulateV1.js'
import type { RpcContext } from '../../../../src/rpc/types.js'
import { requireAnvil, startAnvil, type AnvilInstance } from '../../../support/anvil.js'

const C0 = '0xc000000000000000000000000000000000000000'
const C1 = '0xc100000000000000000000000000000000000000'
const C2 = '0xc200000000000000000000000000000000000000'
const COUNTER_CODE = '0x6000546001018060005560005260206000f3'
const REVERT_CODE = '0x63deadbeef60e01b60005260046000fd'
/** LOG1(topic 0x01…01) then forwards its value to C2 and returns */
const EMIT_AND_FORWARD = `0x7f${'01'.repeat(32)}60006000a1600060006000600034${C2.slice(2).replace(/^/, '73')}5af100`

const C3 = '0xc300000000000000000000000000000000000000'
/** LOG1 with topic 2, LOG1 with topic 3, then REVERT */
const LOG_TWICE_AND_REVERT = '0x600260006000a1600360006000a160006000fd'
/** LOG1 with topic 1, CALL C2, LOG1 with topic 4 */
const LOG_CALL_C2_LOG = `0x600160006000a16000600060006000600073${C2.slice(2)}5af150600460006000a100`
const LOG_ONCE = '0x600560006000a100'
const LOGGERS = { [C1]: { code: LOG_CALL_C2_LOG }, [C2]: { code: LOG_TWICE_AND_REVERT }, [C3]: { code: LOG_ONCE } }

let anvil: AnvilInstance | undefined
let engine: Engine | undefined
let ctx: RpcContext
const cache = createMemoryCacheStore()
const toHexNumber = (n: bigint): Hex => `0x${n.toString(16)}`

const run = requireAnvil()
beforeAll(async () => {
  if (!run) return
  anvil = await startAnvil()
  await anvil.rpc('anvil_mine', ['0x3'])
  engine = await createEngine({ rpcUrl: anvil.url, cache, gasCap: 30_000_000n, rpcTimeoutMs: 10_000, maxStructLogSteps: 50_000, simulationTtlSeconds: 60 })
  ctx = { engine, config: loadConfig({ env: {} }), at: ON_CHAIN } as RpcContext
}, 60_000)
afterAll(async () => {
  await engine?.close()
  await anvil?.stop()
})

interface CallOut {
  returnData: Hex
  gasUsed: Hex
  status: Hex
  logs: { address: Hex; topics: Hex[]; data: Hex; logIndex: Hex }[]
  error?: { code: number; message: string; data?: Hex }
}

/** what both print per call; `anvil` undoes Anvil's deviations (see above) */
const comparable = (blocks: { calls: CallOut[] }[], anvil: boolean) =>
  blocks.map((b) =>
    b.calls.map((c) => {
      const failed = c.status === '0x0'
      return {
        returnData: anvil && failed ? '0x' : c.returnData,
        gasUsed: c.gasUsed,
        status: c.status,
        logs: c.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data, logIndex: l.logIndex })),
        // the revert bytes: geth's error.data, Anvil's returnData
        revert: failed ? (anvil ? c.returnData : (c.error?.data ?? '0x')) : undefined,
        failed: failed && c.error !== undefined,
      }
    }),
  )

const requests: [string, unknown][] = [
  [
    'transfers with traceTransfers',
    {
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
    },
  ],
  [
    'state carried across blocks',
    {
      blockStateCalls: [
        {
          stateOverrides: { [C2]: { code: COUNTER_CODE } },
          calls: [
            { from: C0, to: C2 },
            { from: C0, to: C2 },
          ],
        },
        { calls: [{ from: C0, to: C2 }] },
        { stateOverrides: { [C2]: { stateDiff: { [`0x${'0'.repeat(64)}`]: `0x${'10'.padStart(64, '0')}` } } }, calls: [{ from: C0, to: C2 }] },
      ],
    },
  ],
  [
    'a revert keeps the block going',
    {
      blockStateCalls: [
        {
          stateOverrides: { [C2]: { code: REVERT_CODE } },
          calls: [
            { from: C0, to: C2 },
            { from: C0, to: C1 },
          ],
        },
      ],
    },
  ],
  // geth's current log tracer and Anvil: a reverted frame's log indices are freed for the next log
  [
    'log indices after a reverted inner frame',
    {
      blockStateCalls: [
        {
          stateOverrides: LOGGERS,
          calls: [
            { from: C0, to: C1 },
            { from: C0, to: C3 },
          ],
        },
      ],
    },
  ],
  [
    'log indices after a reverted call',
    {
      blockStateCalls: [
        {
          stateOverrides: LOGGERS,
          calls: [
            { from: C0, to: C3 },
            { from: C0, to: C2 },
            { from: C0, to: C3 },
          ],
        },
      ],
    },
  ],
  [
    'logs and a forwarded value with traceTransfers',
    {
      blockStateCalls: [
        {
          stateOverrides: { [C0]: { balance: '0x100' }, [C1]: { code: EMIT_AND_FORWARD } },
          calls: [
            { from: C0, to: C1, value: '0x10' },
            { from: C0, to: C1, value: '0x20' },
          ],
        },
      ],
      traceTransfers: true,
    },
  ],
  ['out of gas', { blockStateCalls: [{ stateOverrides: { [C2]: { code: COUNTER_CODE } }, calls: [{ from: C0, to: C2, gas: '0x5300' }] }] }],
  [
    'validation with a base fee override',
    {
      blockStateCalls: [
        {
          blockOverrides: { baseFeePerGas: '0xf' },
          stateOverrides: { [C0]: { balance: '0xe8d4a51000' } },
          calls: [
            { from: C0, to: C1, maxFeePerGas: '0x10', value: '0x2540be400' },
            { from: C1, to: C2, maxFeePerGas: '0x10', value: '0x3e8' },
          ],
        },
      ],
      validation: true,
    },
  ],
  // alloy's name for it (reth, cast)
  [
    "a base fee override under alloy's name",
    {
      blockStateCalls: [
        {
          blockOverrides: { baseFee: '0xf' },
          stateOverrides: { [C0]: { balance: '0xe8d4a51000' } },
          calls: [{ from: C0, to: C1, maxFeePerGas: '0x10', value: '0x2540be400' }],
        },
      ],
      validation: true,
    },
  ],
]

describe.runIf(run)('eth_simulateV1 against Anvil', () => {
  it('with validation the base fee follows the parent block: the one Anvil mined after it, also from a header another instance cached', async () => {
    // a block with gas used, so the next base fee moves; Anvil's own eth_simulateV1 numbers its
    // first block as the base block and reuses its base fee (a deviation), so the reference is the
    // block Anvil really mined next
    await anvil!.rpc('eth_sendTransaction', [{ from: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8', to: C1, value: '0x1' }])
    await anvil!.rpc('anvil_mine', ['0x1'])
    const head = BigInt(await anvil!.rpc<Hex>('eth_blockNumber'))
    const parent = toHexNumber(head - 1n)
    const mined = await anvil!.rpc<{ baseFeePerGas: Hex; gasUsed: Hex }>('eth_getBlockByNumber', [toHexNumber(head), false])
    const before = await anvil!.rpc<{ baseFeePerGas: Hex; gasUsed: Hex }>('eth_getBlockByNumber', [parent, false])
    expect(before.gasUsed).not.toBe('0x0')
    const opts = { blockStateCalls: [{}], validation: true }
    const ours = (await simulateV1Methods.eth_simulateV1!([opts, parent], ctx)) as { baseFeePerGas: Hex }[]
    expect(ours[0]!.baseFeePerGas).toBe(mined.baseFeePerGas)
    expect(ours[0]!.baseFeePerGas).not.toBe(before.baseFeePerGas)
    const second = await createEngine({
      rpcUrl: anvil!.url,
      cache,
      gasCap: 30_000_000n,
      rpcTimeoutMs: 10_000,
      maxStructLogSteps: 50_000,
      simulationTtlSeconds: 60,
    })
    try {
      const again = (await simulateV1Methods.eth_simulateV1!([opts, parent], { ...ctx, engine: second })) as { baseFeePerGas: Hex }[]
      expect(again[0]!.baseFeePerGas).toBe(mined.baseFeePerGas)
    } finally {
      await second.close()
    }
  })

  for (const [name, opts] of requests) {
    it(name, async () => {
      const theirs = await anvil!.rpc<{ calls: CallOut[] }[]>('eth_simulateV1', [opts, 'latest'])
      const ours = (await simulateV1Methods.eth_simulateV1!([opts, 'latest'], ctx)) as { calls: CallOut[] }[]
      expect(comparable(ours, false)).toEqual(comparable(theirs, true))
    })
  }
})
