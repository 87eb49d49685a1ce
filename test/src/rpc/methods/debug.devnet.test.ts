/**
 * The debug_* handlers called directly with an RpcContext over a real engine on the embedded
 * devnet (its demo history: engine/chains/devnet/DEMO.md). Block 4 holds two DEMO transfers, one
 * Transfer log each: the second one's log is index 1 in geth (one log counter per block).
 */
import { encodeFunctionData, parseAbi, type Address, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../../../config/loadConfig.js'
import { createMemoryCacheStore } from '../../../../host/cache/memoryCacheStore.js'
import { createEngine } from '../../../../engine/index.js'
import type { Engine } from '../../../../engine/types.js'
import { debugMethods } from '../../../../src/rpc/methods/debug.js'
import { RpcError } from '../../../../src/rpc/rpcError.js'
import type { RpcContext } from '../../../../src/rpc/types.js'
import { ON_CHAIN } from '../../../../engine/types.js'

const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3' as Address
const ACCOUNTS = [
  '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
  '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
] as Address[]
const BLOCK4_TX0 = '0x8849d23607d7c87b58414fda583340f2c2b6393f2461223972e42e81c7fda23b' as Hex
const BLOCK4_TX1 = '0xdfc2c5c9fea5f9d7bc4ed8a0e7300b5da54dd6a339a5fca1bb6b195fc3efbc01' as Hex
const erc20 = parseAbi(['function balanceOf(address) view returns (uint256)', 'function transfer(address,uint256) returns (bool)'])
const balanceOf = (who: Address) => encodeFunctionData({ abi: erc20, functionName: 'balanceOf', args: [who] })
const transfer = (to: Address, n: bigint) => encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [to, n] })
/** JUMPDEST PUSH1 0 JUMP: loops until the gas runs out */
const LOOP_CODE = '0x5b600056'
const LOOPER = '0x0000000000000000000000000000000000001000' as Address

type Frame = { type: string; output?: string; logs?: { index: string; position: string }[]; calls?: Frame[] }

describe('debug_* handlers on the devnet engine', () => {
  let engine: Engine
  let ctx: RpcContext
  const call = (method: string, params: unknown[]) => debugMethods[method]!(params, ctx)
  const rpcError = async (method: string, params: unknown[]) => {
    const e = await call(method, params).then(
      () => undefined,
      (err: unknown) => err,
    )
    expect(e).toBeInstanceOf(RpcError)
    return e as RpcError
  }

  beforeAll(async () => {
    const config = loadConfig({ env: { APP_ENV: 'test', RPC_URL: '' } })
    engine = await createEngine({
      cache: createMemoryCacheStore(),
      gasCap: BigInt(config.chain.gas_cap),
      rpcTimeoutMs: config.chain.rpc_timeout_ms,
      maxStructLogSteps: config.limits.max_struct_log_steps,
      simulationTtlSeconds: config.cache.simulation_ttl_seconds,
    })
    ctx = { engine, config, at: ON_CHAIN }
  })
  afterAll(() => engine?.close())

  describe('debug_traceTransaction', () => {
    it("numbers a mined transaction's logs from the block start (geth v1.17), here and in the engine op behind /v1/trace/tx", async () => {
      const first = (await call('debug_traceTransaction', [BLOCK4_TX0, { tracer: 'callTracer', tracerConfig: { withLog: true } }])) as Frame
      const second = (await call('debug_traceTransaction', [BLOCK4_TX1, { tracer: 'callTracer', tracerConfig: { withLog: true } }])) as Frame
      expect(first.logs?.map((l) => l.index)).toEqual(['0x0'])
      expect(second.logs?.map((l) => l.index)).toEqual(['0x1'])
      const rest = await engine.traceTransaction(ON_CHAIN, BLOCK4_TX1, { callTracer: { withLog: true } })
      expect(rest.callTracer).toEqual(second)
    })

    it("without a tracer is geth's struct logger: memory off unless enableMemory, limit cuts the log short", async () => {
      const plain = (await call('debug_traceTransaction', [BLOCK4_TX0])) as {
        gas: number
        failed: boolean
        returnValue: string
        structLogs: Record<string, unknown>[]
      }
      expect(Object.keys(plain)).toEqual(['gas', 'failed', 'returnValue', 'structLogs'])
      expect(plain.failed).toBe(false)
      expect(plain.returnValue).toBe(`0x${'1'.padStart(64, '0')}`)
      expect(plain.structLogs.length).toBeGreaterThan(100)
      expect(plain.structLogs.some((l) => 'memory' in l)).toBe(false)
      expect(plain.structLogs.every((l) => Array.isArray(l.stack))).toBe(true)

      const withMemory = (await call('debug_traceTransaction', [BLOCK4_TX0, { enableMemory: true, disableStack: true, disableStorage: true }])) as typeof plain
      expect(withMemory.structLogs.some((l) => 'memory' in l)).toBe(true)
      expect(withMemory.structLogs.some((l) => 'stack' in l || 'storage' in l)).toBe(false)

      const limited = (await call('debug_traceTransaction', [BLOCK4_TX0, { limit: 1000 }])) as typeof plain
      // geth logs until the JSON passed `limit` bytes: the step that crosses it is the last
      const sizes = limited.structLogs.map((l) => JSON.stringify(l).length)
      const before = sizes.slice(0, -1).reduce((a, b) => a + b, 0)
      expect(before).toBeLessThanOrEqual(1000)
      expect(before + sizes.at(-1)!).toBeGreaterThan(1000)
      expect(limited.structLogs).toEqual(plain.structLogs.slice(0, limited.structLogs.length))
      expect(limited.gas).toBe(plain.gas)
      // geth's int compare: a negative limit is passed before the first step
      expect(((await call('debug_traceTransaction', [BLOCK4_TX0, { limit: -1 }])) as typeof plain).structLogs).toEqual([])
    })

    it("4byteTracer in geth's form, noopTracer, muxTracer with results keyed and sorted as geth prints them", async () => {
      expect(await call('debug_traceTransaction', [BLOCK4_TX0, { tracer: '4byteTracer' }])).toEqual({ '0xa9059cbb-64': 1 })
      expect(await call('debug_traceTransaction', [BLOCK4_TX0, { tracer: 'noopTracer' }])).toEqual({})
      const mux = (await call('debug_traceTransaction', [
        BLOCK4_TX1,
        { tracer: 'muxTracer', tracerConfig: { prestateTracer: { diffMode: true }, callTracer: { withLog: true }, '4byteTracer': null } },
      ])) as Record<string, unknown>
      expect(Object.keys(mux)).toEqual(['4byteTracer', 'callTracer', 'prestateTracer'])
      expect(mux.callTracer).toEqual(await call('debug_traceTransaction', [BLOCK4_TX1, { tracer: 'callTracer', tracerConfig: { withLog: true } }]))
      expect(mux.prestateTracer).toEqual(await call('debug_traceTransaction', [BLOCK4_TX1, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }]))
      expect(mux['4byteTracer']).toEqual({ '0xa9059cbb-64': 1 })
      expect(await call('debug_traceTransaction', [BLOCK4_TX1, { tracer: 'muxTracer', tracerConfig: {} }])).toEqual({})
    })

    it("answers geth's errors: unknown transaction, unknown tracer, bad options and params", async () => {
      expect(await rpcError('debug_traceTransaction', [`0x${'ab'.repeat(32)}`])).toMatchObject({ code: -32000, message: 'transaction not found' })
      expect(await rpcError('debug_traceTransaction', [BLOCK4_TX0, { tracer: 'nopeTracer' }])).toMatchObject({ code: -32000, message: 'tracer not found' })
      expect((await rpcError('debug_traceTransaction', [BLOCK4_TX0, { tracer: '{step: function() {}}' }])).message).toMatch(
        /JavaScript tracers are not supported/,
      )
      expect(await rpcError('debug_traceTransaction', [BLOCK4_TX0, { tracer: 'callTracer', timeout: 'soon' }])).toMatchObject({
        code: -32000,
        message: 'time: invalid duration "soon"',
      })
      expect(await rpcError('debug_traceTransaction', ['0x1234'])).toMatchObject({
        code: -32602,
        message: 'invalid argument 0: transactionHash: a hash must be 32 bytes, got 2',
      })
      expect(await rpcError('debug_traceTransaction', [BLOCK4_TX0.slice(2)])).toMatchObject({
        code: -32602,
        message: 'invalid argument 0: transactionHash: hex string without 0x prefix',
      })
      expect(await rpcError('debug_traceTransaction', [])).toMatchObject({ code: -32602, message: 'missing value for required argument 0' })
      expect(await rpcError('debug_traceTransaction', [BLOCK4_TX0, {}, 1])).toMatchObject({ code: -32602, message: 'too many arguments, want at most 2' })
      const unknownKey = await rpcError('debug_traceTransaction', [BLOCK4_TX0, { tracer: 'callTracer', tracerConfig: { withLogs: true } }])
      expect(unknownKey.code).toBe(-32602)
      expect(unknownKey.message).toMatch(/^invalid argument 1: tracerConfig\.withLogs: unknown field/)
      expect((await rpcError('debug_traceTransaction', [BLOCK4_TX0, { tracer: 'callTracer', tracerConfig: { onlyTopCall: 'yes' } }])).message).toBe(
        'invalid argument 1: tracerConfig.onlyTopCall: expected a boolean, got string',
      )
      expect((await rpcError('debug_traceTransaction', [BLOCK4_TX0, { tracr: 'callTracer' }])).message).toMatch(/^invalid argument 1: tracr: unknown field/)
      expect((await rpcError('debug_traceTransaction', [BLOCK4_TX0, { tracer: 'flatCallTracer', tracerConfig: { parity: true } }])).message).toMatch(
        /^invalid argument 1: tracerConfig\.parity: unknown field/,
      )
    })
  })

  describe('debug_traceTransaction with flatCallTracer', () => {
    it("answers geth's flat frames of the mined transaction: the top call first, with the transaction's own fields", async () => {
      const flat = (await call('debug_traceTransaction', [BLOCK4_TX0, { tracer: 'flatCallTracer' }])) as {
        type: string
        traceAddress: number[]
        transactionHash: Hex
        blockNumber: number
        action: { to: Hex }
      }[]
      const top = (await call('debug_traceTransaction', [BLOCK4_TX0, { tracer: 'callTracer' }])) as Frame & { to: Hex }
      expect(flat[0]).toMatchObject({ type: 'call', traceAddress: [], transactionHash: BLOCK4_TX0, blockNumber: 4 })
      expect(flat[0]!.action.to).toBe(top.to)
    })
  })

  describe('debug_traceBlockByNumber / debug_traceBlockByHash', () => {
    it('trace every transaction of the block in order, equal to tracing each one alone', async () => {
      const cfg = { tracer: 'callTracer', tracerConfig: { withLog: true } }
      const byNumber = (await call('debug_traceBlockByNumber', ['0x4', cfg])) as { txHash: Hex; result: Frame }[]
      expect(byNumber.map((e) => e.txHash)).toEqual([BLOCK4_TX0, BLOCK4_TX1])
      expect(byNumber[0]!.result).toEqual(await call('debug_traceTransaction', [BLOCK4_TX0, cfg]))
      expect(byNumber[1]!.result).toEqual(await call('debug_traceTransaction', [BLOCK4_TX1, cfg]))
      expect(byNumber.map((e) => e.result.logs?.[0]?.index)).toEqual(['0x0', '0x1'])

      expect(await engine.traceBlock(ON_CHAIN, { block: { number: 4n }, tracerConfig: { noopTracer: true } })).toEqual([
        { txHash: BLOCK4_TX0, result: { noopTracer: {} } },
        { txHash: BLOCK4_TX1, result: { noopTracer: {} } },
      ])
      const blockHash = await blockHashOf(4n)
      expect(await call('debug_traceBlockByHash', [blockHash, cfg])).toEqual(byNumber)
      // the struct logger per transaction, geth's shape
      const logs = (await call('debug_traceBlockByNumber', ['0x4'])) as { result: { structLogs: unknown[] } }[]
      expect(logs.map((e) => e.result.structLogs.length)).toEqual(
        await Promise.all(
          [BLOCK4_TX0, BLOCK4_TX1].map(async (h) => ((await call('debug_traceTransaction', [h])) as { structLogs: unknown[] }).structLogs.length),
        ),
      )
    })

    it("refuses genesis and unknown blocks with geth's words", async () => {
      await expect(call('debug_traceBlockByNumber', ['0x0'])).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: 'genesis is not traceable' })
      expect(await rpcError('debug_traceBlockByNumber', ['0x99'])).toMatchObject({ code: -32000, message: 'block #153 not found' })
      const unknown = `0x${'cd'.repeat(32)}`
      expect(await rpcError('debug_traceBlockByHash', [unknown])).toMatchObject({ code: -32000, message: `block ${unknown} not found` })
      expect((await rpcError('debug_traceBlockByNumber', [4])).message).toBe(
        'invalid argument 0: blockNumber: expected a block number or tag string, got number',
      )
      expect((await rpcError('debug_traceBlockByNumber', ['0x04'])).message).toBe('invalid argument 0: blockNumber: hex number with leading zero digits')
    })
  })

  async function blockHashOf(n: bigint): Promise<Hex> {
    // the devnet's history is deterministic: a second devnet has the same block hashes
    const { createDevnet } = await import('../../../../engine/chains/devnet/devnetChain.js')
    const devnet = await createDevnet()
    return (await devnet.resolveBlock({ number: n })).hash
  }

  describe('debug_traceCall', () => {
    const balanceCall = (who: Address) => ({ from: ACCOUNTS[0], to: TOKEN, data: balanceOf(who) })
    const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`

    it('runs at a block (number, tag, hash, EIP-1898 object) and at a transaction index inside it', async () => {
      const out = async (block: unknown, extra: object = {}) =>
        ((await call('debug_traceCall', [balanceCall(ACCOUNTS[2]), block, { tracer: 'callTracer', ...extra }])) as Frame).output
      const after = word(500n * 10n ** 18n)
      expect(await out('0x4')).toBe(after)
      expect(await out('0x3')).toBe(word(0n))
      expect(await out({ blockHash: await blockHashOf(4n) })).toBe(after)
      expect(await out(await blockHashOf(4n))).toBe(after)
      expect(await out({ blockNumber: '0x4' })).toBe(after)
      // before the block's second transaction (the one paying account 2), after it, after all
      expect(await out('0x4', { txIndex: '0x1' })).toBe(word(0n))
      expect(await out('0x4', { txIndex: '0x2' })).toBe(after)
      expect(await out('0x4', { txIndex: '0x0' })).toBe(word(0n))
      const tooFar = await call('debug_traceCall', [balanceCall(ACCOUNTS[2]), '0x4', { txIndex: '0x3' }]).catch((e: unknown) => e)
      expect(tooFar).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/^transaction index 3 out of range for block 0x/) })
    })

    it("applies state and block overrides (geth's and Erigon's names), refuses pending as geth does", async () => {
      const slotOverride = await call('debug_traceCall', [
        { from: ACCOUNTS[0], to: LOOPER, gas: '0x186a0' },
        'latest',
        { tracer: 'prestateTracer', stateOverrides: { [LOOPER]: { code: '0x00', balance: '0x7' } } },
      ])
      expect((slotOverride as Record<string, { balance: string; code: string }>)[LOOPER]).toMatchObject({ balance: '0x7', code: '0x00' })
      // NUMBER TIMESTAMP COINBASE: written to memory and returned
      const env = '0x4360005242602052416040526060' + '6000f3'
      const envOut = (await call('debug_traceCall', [
        { from: ACCOUNTS[0], to: LOOPER },
        'latest',
        { tracer: 'callTracer', stateOverrides: { [LOOPER]: { code: env } }, blockOverrides: { number: '0x64', time: '0x5', feeRecipient: ACCOUNTS[1] } },
      ])) as Frame
      expect(envOut.output).toBe(word(0x64n) + word(5n).slice(2) + word(BigInt(ACCOUNTS[1])).slice(2))
      expect(await rpcError('debug_traceCall', [balanceCall(ACCOUNTS[2]), 'pending'])).toMatchObject({
        code: -32000,
        message: 'tracing on top of pending is not supported',
      })
      expect((await rpcError('debug_traceCall', [balanceCall(ACCOUNTS[2]), 'latest', { blockOverrides: { beaconRoot: word(1n) } }])).message).toBe(
        'invalid argument 2: blockOverrides.beaconRoot: block override "beaconRoot" is not supported for this RPC method',
      )
      expect(
        (await rpcError('debug_traceCall', [balanceCall(ACCOUNTS[2]), 'latest', { stateOverrides: { [LOOPER]: { state: {}, stateDiff: {} } } }])).message,
      ).toBe(`account ${LOOPER} has both 'state' and 'stateDiff'`)
      expect(await rpcError('debug_traceCall', [balanceCall(ACCOUNTS[2])])).toMatchObject({ code: -32602, message: 'missing value for required argument 1' })
      expect((await rpcError('debug_traceCall', [{ ...balanceCall(ACCOUNTS[2]), input: '0x00' }, 'latest'])).message).toBe(
        'invalid argument 0: both "data" and "input" are set and not equal. Please use "input" to pass transaction call data',
      )
      expect((await rpcError('debug_traceCall', [{ ...balanceCall(ACCOUNTS[2]), blobs: [] }, 'latest'])).message).toMatch(
        /^invalid argument 0: call\.blobs: not supported/,
      )
      expect((await rpcError('debug_traceCall', [{ ...balanceCall(ACCOUNTS[2]), gas: 5 }, 'latest'])).message).toBe(
        'invalid argument 0: call.gas: expected a hex quantity string, got number',
      )
    })

    it('answers BLOCKHASH under a number override as geth: zero at or past the traced header, real for the header when the override is the next number', async () => {
      // NUMBER PUSH1 1 SWAP1 SUB BLOCKHASH PUSH1 0 MSTORE PUSH1 0x20 PUSH1 0 RETURN: blockhash(number - 1)
      const prevHash = '0x4360019003406000526020' + '6000f3'
      const at = async (block: string, number?: string) =>
        (
          (await call('debug_traceCall', [
            { from: ACCOUNTS[0], to: LOOPER },
            block,
            { tracer: 'callTracer', stateOverrides: { [LOOPER]: { code: prevHash } }, ...(number && { blockOverrides: { number } }) },
          ])) as Frame
        ).output
      expect(await at('0x3')).toBe(await blockHashOf(2n))
      expect(await at('0x3', '0x4')).toBe(await blockHashOf(3n))
      // block 5 exists on the chain, but not below the traced header (block 3)
      expect(await at('0x3', '0x6')).toBe(word(0n))
      expect(await at('0x3', '0x3')).toBe(await blockHashOf(2n))
    })

    it('stops a trace past its timeout with geth\'s "execution timeout" (capped by the request timeout)', async () => {
      const loop = [{ from: ACCOUNTS[0], to: LOOPER, gas: '0x2faf080' }, 'latest']
      const err = await call('debug_traceCall', [...loop, { tracer: 'callTracer', timeout: '20ms', stateOverrides: { [LOOPER]: { code: LOOP_CODE } } }]).catch(
        (e: unknown) => e,
      )
      expect(err).toMatchObject({ code: 'EXECUTION_TIMEOUT', message: 'execution timeout' })
      // the same loop without a deadline runs out of gas instead: the timeout is what stopped it
      const done = (await call('debug_traceCall', [
        { ...(loop[0] as object), gas: '0x30d40' },
        'latest',
        { tracer: 'callTracer', stateOverrides: { [LOOPER]: { code: LOOP_CODE } } },
      ])) as { error?: string }
      expect(done.error).toBe('out of gas')
      const capped = { ...ctx, config: { ...ctx.config, server: { ...ctx.config.server, request_timeout_ms: 20 } } }
      const viaCap = await debugMethods.debug_traceCall!(
        [...loop, { tracer: 'noopTracer', timeout: '10m', stateOverrides: { [LOOPER]: { code: LOOP_CODE } } }],
        capped,
      ).catch((e: unknown) => e)
      expect(viaCap).toMatchObject({ code: 'EXECUTION_TIMEOUT', message: 'execution timeout' })
    })
  })

  describe('debug_traceCallMany', () => {
    it('runs bundles in order with state carried over, from a transaction index of a block (Erigon/reth stateContext)', async () => {
      const bundles = [
        { transactions: [{ from: ACCOUNTS[1], to: TOKEN, data: transfer(ACCOUNTS[2], 7n) }] },
        { transactions: [{ from: ACCOUNTS[0], to: TOKEN, data: balanceOf(ACCOUNTS[2]) }] },
      ]
      const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`
      const atIndex1 = (await call('debug_traceCallMany', [bundles, { blockNumber: '0x4', transactionIndex: 1 }, { tracer: 'callTracer' }])) as Frame[][]
      expect(atIndex1.map((b) => b.length)).toEqual([1, 1])
      expect(atIndex1[1]![0]!.output).toBe(word(7n))
      const wholeBlock = (await call('debug_traceCallMany', [bundles, { blockNumber: '0x4', transactionIndex: -1 }, { tracer: 'callTracer' }])) as Frame[][]
      expect(wholeBlock[1]![0]!.output).toBe(word(500n * 10n ** 18n + 7n))
      const latest = (await call('debug_traceCallMany', [bundles])) as unknown[][]
      expect((latest[0]![0] as { structLogs: unknown[] }).structLogs.length).toBeGreaterThan(0)
    })

    it("applies each bundle's blockOverride from that bundle on", async () => {
      const env = '0x4360005242602052416040526060' + '6000f3'
      const read = { from: ACCOUNTS[0], to: LOOPER }
      const out = (await call('debug_traceCallMany', [
        [
          { transactions: [read] },
          { transactions: [read], blockOverride: { blockNumber: '0x10' } },
          { transactions: [read], blockOverride: { timestamp: '0x9' } },
        ],
        { blockNumber: '0x4' },
        { tracer: 'callTracer', stateOverrides: { [LOOPER]: { code: env } } },
      ])) as Frame[][]
      const numberAndTime = out.map((b) => [BigInt(b[0]!.output!.slice(0, 66)), BigInt(`0x${b[0]!.output!.slice(66, 130)}`)])
      const block4Time = numberAndTime[0]![1]!
      expect(numberAndTime).toEqual([
        [4n, block4Time],
        [16n, block4Time],
        [16n, 9n],
      ])
    })

    it('refuses malformed bundles', async () => {
      expect((await rpcError('debug_traceCallMany', [{}])).message).toBe('invalid argument 0: bundles: expected an array of {transactions, blockOverride}')
      expect((await rpcError('debug_traceCallMany', [[{ transactions: [], extra: 1 }]])).message).toMatch(
        /^invalid argument 0: bundles\[0\]\.extra: unknown field/,
      )
      expect((await rpcError('debug_traceCallMany', [[{ transactions: [] }], { blockNumber: '0x4', transactionIndex: 'one' }])).message).toMatch(
        /stateContext\.transactionIndex/,
      )
    })
  })
})
