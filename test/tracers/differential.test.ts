/**
 * Differential tests: our trace service (over a JSON-RPC fork of a real Anvil) against Anvil's own
 * debug_traceCall / debug_traceTransaction, for reverts (Error, Panic, custom), nested calls,
 * delegatecall, create/create2, selfdestruct, precompiles, out of gas in a subcall, value
 * transfers and contract creation. Where Anvil deviates from geth (spec/geth-reference.md §5) the
 * comparison goes through gethRules.ts, which applies geth's rule and names the deviation.
 */
import { encodeDeployData, encodeFunctionData, toHex, type Address, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChainSource } from '../../engine/chain/types.js'
import type { CallInput } from '../../engine/execution/types.js'
import { createTraceService, type TraceService } from '../../engine/trace/traceService.js'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../support/anvil.js'
import { anvilChainSource } from './chainFor.js'
import { contracts } from './contracts.js'
import {
  comparableStructLogs,
  firstStepDifference,
  fourByteFromGeth,
  gethCallFrame,
  gethPrestate,
  renumberLogs,
  withoutCodeHash,
  type Frame,
  type Prestate,
  type StructLog,
} from './gethRules.js'

const hasAnvil = requireAnvil()
const GAS = 1_000_000n
const GAS_CAP = 50_000_000n
const SENDER = DEV_ACCOUNTS[1] as Address
const BENEFICIARY = '0x00000000000000000000000000000000000be4ef' as Address

describe.runIf(hasAnvil)('trace service vs Anvil', () => {
  let anvil: AnvilInstance
  let chain: ChainSource
  let traces: TraceService
  let target: Address
  let caller: Address
  const c = contracts()

  const send = async (tx: Record<string, unknown>) => {
    const hash = await anvil.rpc<Hex>('eth_sendTransaction', [tx])
    // automine answers before the receipt is always readable on a busy machine: poll briefly
    for (let i = 0; ; i++) {
      const receipt = await anvil.rpc<{ status: Hex; contractAddress: Address | null } | null>('eth_getTransactionReceipt', [hash])
      if (receipt) return { hash, ...receipt }
      if (i === 100) throw new Error(`no receipt for ${hash}`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }

  beforeAll(async () => {
    anvil = await startAnvil() // Anvil 1.7 runs Osaka, as the fork chain does by default (engine/hardfork.ts)
    const t = await send({ from: DEV_ACCOUNTS[0], data: encodeDeployData({ abi: c.Target.abi, bytecode: c.Target.bytecode }), value: '0x10' })
    const k = await send({ from: DEV_ACCOUNTS[0], data: c.Caller.bytecode })
    target = t.contractAddress!.toLowerCase() as Address
    caller = k.contractAddress!.toLowerCase() as Address
    chain = await anvilChainSource(anvil.url)
    traces = createTraceService(chain, { gasCap: GAS_CAP, maxStructLogSteps: 200_000 })
  })

  afterAll(async () => {
    await chain?.close()
    await anvil?.stop()
  })

  const callTarget = (fn: string, args: unknown[] = [], value = 0n): CallInput => ({
    from: SENDER,
    to: target,
    data: encodeFunctionData({ abi: c.Target.abi, functionName: fn, args } as never),
    value,
    gas: GAS,
  })
  const callCaller = (fn: string, args: unknown[] = [], value = 0n): CallInput => ({
    from: SENDER,
    to: caller,
    data: encodeFunctionData({ abi: c.Caller.abi, functionName: fn, args } as never),
    value,
    gas: GAS,
  })
  const rpcCall = (call: CallInput) => ({
    from: call.from,
    to: call.to ?? undefined,
    data: call.data,
    value: toHex(call.value ?? 0n),
    gas: toHex(call.gas ?? GAS),
  })

  const scenarios: [string, () => CallInput][] = [
    ['nested calls with value, events and a caught inner revert', () => callCaller('nested', [target, 5n], 3n)],
    ['top-level revert with Error(string)', () => callTarget('fail', ['boom'])],
    ['custom error revert', () => callTarget('failCustom')],
    ['Panic 0x11 (overflow)', () => callTarget('overflow', [1n])],
    ['Panic 0x12 (division by zero)', () => callTarget('divide', [1n, 0n])],
    ['delegatecall writing the caller storage', () => callCaller('delegate', [target, 9n])],
    ['CREATE and CREATE2 with value', () => callCaller('makeChildren', [7n], 4n)],
    ['create then selfdestruct in the same tx', () => callCaller('makeAndKill', [BENEFICIARY], 6n)],
    ['selfdestruct of a pre-existing contract', () => callTarget('destroy', [BENEFICIARY])],
    ['precompile calls (sha256, ecrecover, identity)', () => callCaller('precompiles', ['0x68656c6c6f'])],
    ['out of gas in a subcall', () => callCaller('oogInner', [target])],
    ['outer revert after a successful inner call with logs', () => callCaller('failOuter', [target])],
    ['plain value transfer to a fresh account', () => ({ from: SENDER, to: '0x000000000000000000000000000000000000f00d', data: '0x', value: 5n, gas: 100_000n })],
    ['contract creation', () => ({ from: SENDER, to: null, data: encodeDeployData({ abi: c.Target.abi, bytecode: c.Target.bytecode }), value: 1n, gas: GAS })],
  ]

  describe.each(scenarios)('%s', (_name, make) => {
    it('callTracer (withLog) matches geth', async () => {
      const call = make()
      const ours = (await traces.traceCall({ call, block: { tag: 'latest' }, tracerConfig: { callTracer: { withLog: true } } })).callTracer
      const theirs = await anvil.rpc<Frame>('debug_traceCall', [rpcCall(call), 'latest', { tracer: 'callTracer', tracerConfig: { withLog: true } }])
      // §5.1 top gas, §5.14 Panic texts, §5.3 log numbering: geth's rule applied to Anvil's answer
      expect(ours).toEqual(renumberLogs(gethCallFrame(theirs, call.gas!)))
    })

    it('prestateTracer matches geth (default mode)', async () => {
      const call = make()
      const ours = (await traces.traceCall({ call, block: { tag: 'latest' }, tracerConfig: { prestateTracer: {} } })).prestateTracer as Prestate
      const theirs = await anvil.rpc<Prestate>('debug_traceCall', [rpcCall(call), 'latest', { tracer: 'prestateTracer' }])
      // §5.5 geth drops accounts empty before the tx; §5.13 Anvil has no codeHash (ours checked = keccak(code))
      expect(withoutCodeHash(ours)).toEqual(gethPrestate(theirs))
    })

    it('prestateTracer matches geth (diffMode)', async () => {
      const call = make()
      const ours = (await traces.traceCall({ call, block: { tag: 'latest' }, tracerConfig: { prestateTracer: { diffMode: true } } }))
        .prestateTracer as { pre: Prestate; post: Prestate }
      const theirs = await anvil.rpc<{ pre: Prestate; post: Prestate }>('debug_traceCall', [
        rpcCall(call), 'latest', { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
      ])
      // §5.5 empty-before accounts leave geth's pre; §5.13 no codeHash in Anvil's pre or post
      expect(withoutCodeHash(ours.pre)).toEqual(gethPrestate(theirs.pre))
      expect(withoutCodeHash(ours.post, false)).toEqual(theirs.post)
    })

    it('structLogger matches geth (memory, stack and storage on)', async () => {
      const call = make()
      const ours = (await traces.traceCall({ call, block: { tag: 'latest' }, tracerConfig: { structLogger: {} } })).structLogger as {
        gas: number; failed: boolean; returnValue: string; structLogs: StructLog[]
      }
      const theirs = await anvil.rpc<{ gas: number; failed: boolean; returnValue: string; structLogs: StructLog[] }>('debug_traceCall', [
        rpcCall(call), 'latest', { enableMemory: true },
      ])
      expect({ gas: ours.gas, failed: ours.failed, returnValue: ours.returnValue }).toEqual({
        gas: theirs.gas, failed: theirs.failed, returnValue: theirs.returnValue,
      })
      expect(ours.structLogs.length).toBe(theirs.structLogs.length)
      // §5.6 error texts, §5.7 CREATE gasCost, §5.8 refund:0 / memory:[] normalized on both sides
      expect(firstStepDifference(comparableStructLogs(ours.structLogs), comparableStructLogs(theirs.structLogs))).toBeUndefined()
      // geth's text and gasCost on a failing step (Anvil prints `Some(OutOfGas)` and cost 0)
      for (const l of ours.structLogs.filter((s) => s.error)) {
        if (/^(SWAP|DUP|PUSH)\d+$/.test(l.op) && l.error === 'out of gas') expect(l.gasCost).toBe(3)
      }
      if (_name === 'out of gas in a subcall') expect(ours.structLogs.filter((s) => s.error).map((s) => s.error)).toEqual(['out of gas'])
    })
  })

  it('runs every tracer in one execution and keys the result by name', async () => {
    const r = await traces.traceCall({
      call: callCaller('nested', [target, 5n], 3n),
      block: { tag: 'latest' },
      tracerConfig: { callTracer: {}, prestateTracer: {}, structLogger: { cleanStructLogs: true }, '4byteTracer': true },
    })
    expect(Object.keys(r).sort()).toEqual(['4byteTracer', 'callTracer', 'prestateTracer', 'structLogger'])
    expect(r['4byteTracer']).toEqual({
      totalIdentifiers: 4,
      identifiers: expect.objectContaining({ [callCaller('nested', [target, 5n]).data.slice(0, 10)]: { count: 1, dataSize: 64 } }),
    })
  })

  it('defaults to callTracer, and the top gas to the gas cap (geth CallDefaults)', async () => {
    const { gas: _gas, ...call } = callTarget('read')
    const r = await traces.traceCall({ call, block: { tag: 'latest' }, tracerConfig: {} })
    expect(Object.keys(r)).toEqual(['callTracer'])
    expect((r.callTracer as Frame).gas).toBe(toHex(GAS_CAP))
  })

  it('traceCallMany carries state from one transaction to the next, across bundles', async () => {
    const r = await traces.traceCallMany({
      bundles: [{ transactions: [callTarget('store', [41n])] }, { transactions: [callTarget('read'), callTarget('store', [42n])] }],
      block: { tag: 'latest' },
      tracerConfig: { callTracer: {} },
    })
    expect(r.map((b) => b.length)).toEqual([1, 2])
    expect((r[1][0].callTracer as Frame).output).toBe(toHex(41n, { size: 32 }))
  })

  it('applies state and block overrides', async () => {
    const r = await traces.traceCall({
      call: callTarget('read'),
      block: { tag: 'latest' },
      tracerConfig: { callTracer: {} },
      stateOverrides: { [target]: { stateDiff: { [toHex(0n, { size: 32 })]: toHex(77n, { size: 32 }) } } },
    })
    expect((r.callTracer as Frame).output).toBe(toHex(77n, { size: 32 }))
  })

  it('rejects an unknown hash with TRANSACTION_NOT_FOUND (Anvil returns an empty trace, §5.11)', async () => {
    await expect(traces.traceTransaction(`0x${'11'.repeat(32)}`, {})).rejects.toMatchObject({ code: 'TRANSACTION_NOT_FOUND' })
  })

  it('refuses diffMode with includeEmpty before running anything', async () => {
    await expect(
      traces.traceCall({ call: callTarget('read'), block: { tag: 'latest' }, tracerConfig: { prestateTracer: { diffMode: true, includeEmpty: true } } }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: 'cannot use diffMode with includeEmpty' })
  })

  describe('traceTransaction of mined transactions', () => {
    const mined: [string, () => CallInput][] = [
      ['nested calls', () => callCaller('nested', [target, 6n], 2n)],
      ['CREATE and CREATE2', () => callCaller('makeChildren', [8n], 2n)],
      ['out of gas in a subcall', () => callCaller('oogInner', [target])],
      ['reverting transaction', () => callTarget('fail', ['mined'])],
    ]

    it.each(mined)('%s: callTracer, prestateTracer, 4byteTracer and structLogger match geth', async (_name, make) => {
      const call = make()
      const { hash } = await send({ ...rpcCall(call), from: call.from })
      const ours = await traces.traceTransaction(hash, {
        callTracer: { withLog: true }, prestateTracer: {}, '4byteTracer': true, structLogger: {},
      })
      const [callT, pre, fourByte, structT] = await Promise.all([
        anvil.rpc<Frame>('debug_traceTransaction', [hash, { tracer: 'callTracer', tracerConfig: { withLog: true } }]),
        anvil.rpc<Prestate>('debug_traceTransaction', [hash, { tracer: 'prestateTracer' }]),
        anvil.rpc<Record<string, number>>('debug_traceTransaction', [hash, { tracer: '4byteTracer' }]),
        anvil.rpc<{ gas: number; failed: boolean; returnValue: string; structLogs: StructLog[] }>('debug_traceTransaction', [hash, { enableMemory: true }]),
      ])
      expect(ours.callTracer).toEqual(renumberLogs(gethCallFrame(callT, call.gas!)))
      expect(withoutCodeHash(ours.prestateTracer as Prestate)).toEqual(gethPrestate(pre))
      expect(ours['4byteTracer']).toEqual(fourByteFromGeth(fourByte))
      const sl = ours.structLogger as typeof structT
      expect({ gas: sl.gas, failed: sl.failed, returnValue: sl.returnValue }).toEqual({ gas: structT.gas, failed: structT.failed, returnValue: structT.returnValue })
      expect(firstStepDifference(comparableStructLogs(sl.structLogs), comparableStructLogs(structT.structLogs))).toBeUndefined()
    })
  })
})
