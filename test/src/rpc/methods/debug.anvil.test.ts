/**
 * Differential: the debug_* handlers over a real engine forking a real Anvil, against Anvil's own
 * answer to the SAME JSON-RPC params. Anvil's deviations from geth (docs/geth-reference.md §5) are
 * undone by test/tracers/gethRules.ts, each named there; the ones met only here are named inline:
 * Anvil's debug_traceCall knows no 4byteTracer or muxTracer ("unsupported tracer type"; its
 * debug_traceTransaction answers `{}` for muxTracer), its block traces put `result` before `txHash`,
 * and it answers a BLOCKHASH of a block beyond the head with a made-up hash (geth: zero).
 */
import { encodeDeployData, encodeFunctionData, toHex, type Address, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../../../config/loadConfig.js'
import { createMemoryCacheStore } from '../../../../host/cache/memoryCacheStore.js'
import { createEngine } from '../../../../engine/index.js'
import type { Engine } from '../../../../engine/types.js'
import { debugMethods } from '../../../../src/rpc/methods/debug.js'
import type { RpcContext } from '../../../../src/rpc/types.js'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../../../support/anvil.js'
import { contracts } from '../../../tracers/contracts.js'
import {
  comparableStructLogs,
  firstStepDifference,
  gethCallFrame,
  gethPrestate,
  renumberLogs,
  withoutCodeHash,
  type Frame,
  type Prestate,
  type StructLog,
} from '../../../tracers/gethRules.js'
import { ON_CHAIN } from '../../../../engine/types.js'

const hasAnvil = requireAnvil()
const GAS = 1_000_000n
const SENDER = DEV_ACCOUNTS[1] as Address
const BENEFICIARY = '0x00000000000000000000000000000000000be4ef' as Address

type Logs = { gas: number; failed: boolean; returnValue: string; structLogs: StructLog[] }
type Receipt = { status: Hex; contractAddress: Address | null; blockNumber: Hex; transactionIndex: Hex; gasUsed: Hex; logs: unknown[] }

describe.runIf(hasAnvil)('debug_* handlers vs Anvil (fork)', () => {
  let anvil: AnvilInstance
  let engine: Engine
  let ctx: RpcContext
  let target: Address
  let caller: Address
  const c = contracts()
  const ours = (method: string, params: unknown[]) => debugMethods[method]!(params, ctx)

  const receipt = async (hash: Hex): Promise<Receipt> => {
    for (let i = 0; ; i++) {
      const r = await anvil.rpc<Receipt | null>('eth_getTransactionReceipt', [hash])
      if (r) return r
      if (i === 100) throw new Error(`no receipt for ${hash}`)
      await new Promise((res) => setTimeout(res, 20))
    }
  }

  beforeAll(async () => {
    anvil = await startAnvil()
    const deploy = async (data: Hex, value = '0x0') =>
      (await receipt(await anvil.rpc<Hex>('eth_sendTransaction', [{ from: DEV_ACCOUNTS[0], data, value }]))).contractAddress!
    target = (await deploy(encodeDeployData({ abi: c.Target.abi, bytecode: c.Target.bytecode }), '0x10')).toLowerCase() as Address
    caller = (await deploy(c.Caller.bytecode)).toLowerCase() as Address
    const config = loadConfig({ env: { APP_ENV: 'test', RPC_URL: anvil.url } })
    engine = await createEngine({
      rpcUrl: anvil.url,
      cache: createMemoryCacheStore(),
      gasCap: BigInt(config.chain.gas_cap),
      rpcTimeoutMs: 10_000,
      maxStructLogSteps: 200_000,
      simulationTtlSeconds: 60,
    })
    ctx = { engine, config, at: ON_CHAIN }
  })

  afterAll(async () => {
    await engine?.close()
    await anvil?.stop()
  })

  const rpcCall = (to: Address, data: Hex, value = 0n) => ({ from: SENDER, to, data, value: toHex(value), gas: toHex(GAS) })
  const onTarget = (fn: string, args: unknown[] = [], value = 0n) =>
    rpcCall(target, encodeFunctionData({ abi: c.Target.abi, functionName: fn, args } as never), value)
  const onCaller = (fn: string, args: unknown[] = [], value = 0n) =>
    rpcCall(caller, encodeFunctionData({ abi: c.Caller.abi, functionName: fn, args } as never), value)

  const scenarios: [string, () => ReturnType<typeof rpcCall>][] = [
    ['nested calls with value, events and a caught inner revert', () => onCaller('nested', [target, 5n], 3n)],
    ['revert with Error(string)', () => onTarget('fail', ['boom'])],
    ['CREATE and CREATE2 with value', () => onCaller('makeChildren', [7n], 4n)],
    ['selfdestruct of a pre-existing contract', () => onTarget('destroy', [BENEFICIARY])],
    ['precompile calls', () => onCaller('precompiles', ['0x68656c6c6f'])],
    ['outer revert after an inner call with logs', () => onCaller('failOuter', [target])],
  ]

  describe.each(scenarios)('debug_traceCall: %s', (_name, make) => {
    it('callTracer (withLog), prestateTracer and the struct logger answer as geth', async () => {
      const params = (cfg: object) => [make(), 'latest', cfg]
      const callCfg = { tracer: 'callTracer', tracerConfig: { withLog: true } }
      expect(await ours('debug_traceCall', params(callCfg))).toEqual(
        renumberLogs(gethCallFrame(await anvil.rpc<Frame>('debug_traceCall', params(callCfg)), GAS)),
      )

      const preCfg = { tracer: 'prestateTracer' }
      expect(withoutCodeHash((await ours('debug_traceCall', params(preCfg))) as Prestate)).toEqual(
        gethPrestate(await anvil.rpc<Prestate>('debug_traceCall', params(preCfg))),
      )

      // no tracer: geth's struct logger with geth's option names
      const logCfg = { enableMemory: true, enableReturnData: true }
      const mine = (await ours('debug_traceCall', params(logCfg))) as Logs
      const theirs = await anvil.rpc<Logs>('debug_traceCall', params(logCfg))
      expect({ gas: mine.gas, failed: mine.failed, returnValue: mine.returnValue }).toEqual({
        gas: theirs.gas,
        failed: theirs.failed,
        returnValue: theirs.returnValue,
      })
      expect(firstStepDifference(comparableStructLogs(mine.structLogs), comparableStructLogs(theirs.structLogs))).toBeUndefined()
      const noStack = (await ours('debug_traceCall', params({ disableStack: true, disableStorage: true }))) as Logs
      const theirsNoStack = await anvil.rpc<Logs>('debug_traceCall', params({ disableStack: true, disableStorage: true }))
      expect(firstStepDifference(comparableStructLogs(noStack.structLogs), comparableStructLogs(theirsNoStack.structLogs))).toBeUndefined()
    })
  })

  it("debug_traceCall with geth's state and block overrides sees what Anvil sees", async () => {
    const slot0 = toHex(0n, { size: 32 })
    const head = BigInt(await anvil.rpc<Hex>('eth_blockNumber'))
    const cfg = {
      tracer: 'callTracer',
      stateOverrides: { [target]: { stateDiff: { [slot0]: toHex(77n, { size: 32 }) } } },
      // the next block (BLOCKHASH of the head is known to both), a base fee the call pays (geth
      // zeroes BASEFEE for a call with no gas price)
      blockOverrides: { number: toHex(head + 1n), time: '0x77359400', feeRecipient: BENEFICIARY, baseFeePerGas: '0x7' },
    }
    for (const call of [
      { ...onTarget('read'), gasPrice: '0x7' },
      { ...onTarget('env'), gasPrice: '0x7' },
    ]) {
      const mine = (await ours('debug_traceCall', [call, 'latest', cfg])) as Frame
      expect(mine).toEqual(gethCallFrame(await anvil.rpc<Frame>('debug_traceCall', [call, 'latest', cfg]), GAS))
      expect(mine.output).toBeDefined()
    }
    // alloy's names (reth, cast): the same block
    const alloyCfg = { ...cfg, blockOverrides: { blockNumber: toHex(head + 1n), timestamp: '0x77359400', coinbase: BENEFICIARY, baseFee: '0x7' } }
    const call = { ...onTarget('env'), gasPrice: '0x7' }
    const mine = await ours('debug_traceCall', [call, 'latest', alloyCfg])
    expect(mine).toEqual(gethCallFrame(await anvil.rpc<Frame>('debug_traceCall', [call, 'latest', alloyCfg]), GAS))
    expect(mine).toEqual(await ours('debug_traceCall', [call, 'latest', cfg]))
  })

  it("muxTracer: each part equals Anvil's answer for that tracer alone (Anvil has no mux of its own)", async () => {
    const call = onCaller('nested', [target, 5n], 3n)
    const mux = (await ours('debug_traceCall', [
      call,
      'latest',
      { tracer: 'muxTracer', tracerConfig: { callTracer: { withLog: true }, prestateTracer: null } },
    ])) as Record<string, unknown>
    expect(Object.keys(mux)).toEqual(['callTracer', 'prestateTracer'])
    expect(mux.callTracer).toEqual(
      renumberLogs(gethCallFrame(await anvil.rpc<Frame>('debug_traceCall', [call, 'latest', { tracer: 'callTracer', tracerConfig: { withLog: true } }]), GAS)),
    )
    expect(withoutCodeHash(mux.prestateTracer as Prestate)).toEqual(
      gethPrestate(await anvil.rpc<Prestate>('debug_traceCall', [call, 'latest', { tracer: 'prestateTracer' }])),
    )
    expect(await ours('debug_traceCall', [call, 'latest', { tracer: 'noopTracer' }])).toEqual(
      await anvil.rpc('debug_traceCall', [call, 'latest', { tracer: 'noopTracer' }]),
    )
  })

  describe('a mined block with two transactions that both log', () => {
    let hashA: Hex
    let hashB: Hex
    let ra: Receipt
    let rb: Receipt

    beforeAll(async () => {
      await anvil.rpc('evm_setAutomine', [false])
      try {
        hashA = await anvil.rpc<Hex>('eth_sendTransaction', [{ ...onTarget('store', [1000n]), from: DEV_ACCOUNTS[2] }])
        hashB = await anvil.rpc<Hex>('eth_sendTransaction', [{ ...onCaller('nested', [target, 6n], 1n), from: DEV_ACCOUNTS[3] }])
        await anvil.rpc('evm_mine', [])
      } finally {
        await anvil.rpc('evm_setAutomine', [true])
      }
      ;[ra, rb] = await Promise.all([receipt(hashA), receipt(hashB)])
      expect([ra.blockNumber, ra.transactionIndex, rb.transactionIndex]).toEqual([rb.blockNumber, '0x0', '0x1'])
      expect(ra.logs.length).toBeGreaterThan(0)
    })

    /** geth's callTracer of a mined tx from Anvil's: §5.1 top gas, §5.2 receipt gas, §5.3 + block-start log numbering */
    const gethMined = (anvilFrame: Frame, gasLimit: bigint, gasUsed: Hex, logsBefore: number) =>
      renumberLogs({ ...gethCallFrame(anvilFrame, gasLimit), gasUsed }, logsBefore)

    it("debug_traceTransaction numbers the second transaction's logs after the first one's", async () => {
      const cfg = { tracer: 'callTracer', tracerConfig: { withLog: true } }
      const mine = (await ours('debug_traceTransaction', [hashB, cfg])) as Frame
      expect(mine).toEqual(gethMined(await anvil.rpc<Frame>('debug_traceTransaction', [hashB, cfg]), GAS, rb.gasUsed, ra.logs.length))
      expect(mine.logs?.[0]?.index).toBe(toHex(ra.logs.length))
      // the REST /v1/trace/tx engine operation numbers them the same way
      expect((await engine.traceTransaction(ON_CHAIN, hashB, { callTracer: { withLog: true } })).callTracer).toEqual(mine)
      const structs = (await ours('debug_traceTransaction', [hashB, { enableMemory: true }])) as Logs
      const theirs = await anvil.rpc<Logs>('debug_traceTransaction', [hashB, { enableMemory: true }])
      expect(firstStepDifference(comparableStructLogs(structs.structLogs), comparableStructLogs(theirs.structLogs))).toBeUndefined()
      expect(structs.gas).toBe(Number(BigInt(rb.gasUsed)))
      // geth's own 4byte form, as Anvil prints it for a mined transaction
      const four = await ours('debug_traceTransaction', [hashB, { tracer: '4byteTracer' }])
      expect(Object.keys(four as object).length).toBeGreaterThan(1)
      expect(four).toEqual(await anvil.rpc('debug_traceTransaction', [hashB, { tracer: '4byteTracer' }]))
    })

    it("debug_traceBlockByNumber / ByHash: [{txHash, result}] as Anvil answers, geth's rules applied", async () => {
      const cfg = { tracer: 'callTracer', tracerConfig: { withLog: true } }
      const mine = (await ours('debug_traceBlockByNumber', [rb.blockNumber, cfg])) as { txHash: Hex; result: Frame }[]
      const theirs = await anvil.rpc<{ txHash: Hex; result: Frame }[]>('debug_traceBlockByNumber', [rb.blockNumber, cfg])
      expect(mine.map((e) => Object.keys(e))).toEqual([
        ['txHash', 'result'],
        ['txHash', 'result'],
      ])
      expect(mine.map((e) => e.txHash)).toEqual(theirs.map((e) => e.txHash))
      expect(mine[0]!.result).toEqual(gethMined(theirs[0]!.result, GAS, ra.gasUsed, 0))
      expect(mine[1]!.result).toEqual(gethMined(theirs[1]!.result, GAS, rb.gasUsed, ra.logs.length))
      const block = await anvil.rpc<{ hash: Hex }>('eth_getBlockByNumber', [rb.blockNumber, false])
      expect(await ours('debug_traceBlockByHash', [block.hash, cfg])).toEqual(mine)

      const pre = (await ours('debug_traceBlockByNumber', [rb.blockNumber, { tracer: 'prestateTracer' }])) as { result: Prestate }[]
      const theirPre = await anvil.rpc<{ result: Prestate }[]>('debug_traceBlockByNumber', [rb.blockNumber, { tracer: 'prestateTracer' }])
      expect(pre.map((e) => withoutCodeHash(e.result))).toEqual(theirPre.map((e) => gethPrestate(e.result)))
    })

    it('a transaction whose trace is refused answers {txHash, error}; the next one still sees its state and counts its logs', async () => {
      // a second block: the long `nested` (stores 8 in the target, 3 logs) before a short `read`
      await anvil.rpc('evm_setAutomine', [false])
      let long: Hex, short: Hex
      try {
        long = await anvil.rpc<Hex>('eth_sendTransaction', [{ ...onCaller('nested', [target, 8n]), from: DEV_ACCOUNTS[4] }])
        short = await anvil.rpc<Hex>('eth_sendTransaction', [{ ...onTarget('store', [9n]), from: DEV_ACCOUNTS[5] }])
        await anvil.rpc('evm_mine', [])
      } finally {
        await anvil.rpc('evm_setAutomine', [true])
      }
      const [rl, rs] = await Promise.all([receipt(long), receipt(short)])
      expect(rs.blockNumber).toBe(rl.blockNumber)
      const cfg = { tracer: 'muxTracer', tracerConfig: { callTracer: { withLog: true }, prestateTracer: {} } }
      const roomy = (await ours('debug_traceBlockByNumber', [rl.blockNumber, cfg])) as { txHash: Hex; result: Record<string, unknown> }[]
      // the short one starts from what the long one left: slot 0 of the target holds 8, its log counts on
      const slot0 = toHex(0n, { size: 32 })
      expect(withoutCodeHash(roomy[1]!.result.prestateTracer as Prestate)[target]!.storage?.[slot0]).toBe(toHex(8n, { size: 32 }))
      expect(((roomy[1]!.result.callTracer as Frame).logs ?? [])[0]?.index).toBe(toHex(rl.logs.length))
      // the same block on an engine whose struct log limit the long transaction passes
      const steps = await Promise.all([long, short].map(async (h) => ((await ours('debug_traceTransaction', [h])) as Logs).structLogs.length))
      expect(steps[0]).toBeGreaterThan(steps[1]!)
      const tight = await createEngine({
        rpcUrl: anvil.url,
        cache: createMemoryCacheStore(),
        gasCap: 50_000_000n,
        rpcTimeoutMs: 10_000,
        maxStructLogSteps: steps[1]!,
        simulationTtlSeconds: 60,
      })
      try {
        const entries = (await debugMethods.debug_traceBlockByNumber!([rl.blockNumber, {}], { ...ctx, engine: tight })) as {
          txHash: Hex
          error?: string
          result?: Logs
        }[]
        expect(entries[0]).toEqual({ txHash: long, error: `struct log exceeds the limit of ${steps[1]} steps` })
        expect(entries[1]).toEqual({ txHash: short, result: await ours('debug_traceTransaction', [short, {}]) })
        // the struct logger, callTracer and prestateTracer in one run: the refused long one is
        // applied untraced, so the short one sees its state and counts its logs
        const both = await tight.traceBlock(ON_CHAIN, {
          block: { number: BigInt(rl.blockNumber) },
          tracerConfig: { structLogger: {}, callTracer: { withLog: true }, prestateTracer: {} },
        })
        expect(both[0]).toEqual({ txHash: long, error: `struct log exceeds the limit of ${steps[1]} steps` })
        const after = both[1] as { result: Record<string, unknown> }
        expect(after.result.callTracer).toEqual(roomy[1]!.result.callTracer)
        expect(after.result.prestateTracer).toEqual(roomy[1]!.result.prestateTracer)
      } finally {
        await tight.close()
      }
    })

    it('debug_traceCall at txIndex 1 sees the state before the second transaction, as debug_traceCallMany at transactionIndex 1', async () => {
      const read = onTarget('read')
      const before = (await ours('debug_traceCall', [read, rb.blockNumber, { tracer: 'callTracer', txIndex: '0x1' }])) as Frame
      expect(before.output).toBe(toHex(1000n, { size: 32 }))
      const atStart = (await ours('debug_traceCall', [read, rb.blockNumber, { tracer: 'callTracer', txIndex: '0x0' }])) as Frame
      const parent = toHex(BigInt(rb.blockNumber) - 1n)
      expect(atStart.output).toBe(((await ours('debug_traceCall', [read, parent, { tracer: 'callTracer' }])) as Frame).output)
      expect(atStart.output).toBe(await anvil.rpc('eth_call', [read, parent]))
      const many = (await ours('debug_traceCallMany', [
        [{ transactions: [read] }],
        { blockNumber: rb.blockNumber, transactionIndex: 1 },
        { tracer: 'callTracer' },
      ])) as Frame[][]
      expect(many[0]![0]).toEqual(before)
    })
  })
})
