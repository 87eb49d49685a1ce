/**
 * trace_* through their JSON-RPC handlers with the engine forking a real Anvil, against Anvil's
 * own trace_transaction on the same mined transactions (nested calls with value, a caught inner
 * revert, delegatecall, CREATE/CREATE2, selfdestruct, precompiles, an out-of-gas subcall, an outer
 * revert, a plain transfer and a deployment); then trace_get, trace_call, trace_callMany and
 * trace_replayTransaction against the same frames, and bad params. Anvil prints calls into
 * precompiles where reth leaves them out: its answers go through rethParityFrames first
 * (test/tracers/rethRules.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeDeployData, encodeFunctionData, toHex, type Address, type Hex } from 'viem'
import { loadConfig } from '../../../../config/loadConfig.js'
import { createMemoryCacheStore } from '../../../../host/cache/memoryCacheStore.js'
import { createEngine } from '../../../../engine/index.js'
import { type Engine, ON_CHAIN } from '../../../../engine/types.js'
import { traceMethods } from '../../../../src/rpc/methods/trace.js'
import { RpcError } from '../../../../src/rpc/rpcError.js'
import type { RpcContext } from '../../../../src/rpc/types.js'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../../../support/anvil.js'
import { contracts } from '../../../tracers/contracts.js'
import { rethParityFrames, type ParityFrame } from '../../../tracers/rethRules.js'

const run = requireAnvil()
const SENDER = DEV_ACCOUNTS[1] as Address
const BENEFICIARY = '0x00000000000000000000000000000000000be4ef' as Address

/**
 * Runtime code making, in order: STATICCALL sha256 (0x02), CALL BENEFICIARY, CALL identity (0x04)
 * with 1 wei, DELEGATECALL ecrecover (0x01), CALL BENEFICIARY — then STOP. reth hides the two
 * precompile calls that move no value; the one with value stays (traceAddress [1]).
 */
function mixedPrecompileCalls(): Hex {
  const addr = (a: Address) => `73${a.slice(2).padStart(40, '0')}`
  const args = '6000600060006000' // retSize retOffset argsSize argsOffset
  const noValue = (op: string, a: Address) => `${args}${addr(a)}5a${op}50`
  const withValue = (a: Address, v: number) => `${args}60${v.toString(16).padStart(2, '0')}${addr(a)}5af150`
  const runtime = `${[noValue('fa', '0x02'), withValue(BENEFICIARY, 0), withValue('0x04', 1), noValue('f4', '0x01'), withValue(BENEFICIARY, 0)].join('')}00`
  const length = (runtime.length / 2).toString(16).padStart(2, '0')
  return `0x60${length}600c60003960${length}6000f3${runtime}`
}

describe.runIf(run)('trace_* against Anvil', () => {
  let anvil: AnvilInstance
  let engine: Engine
  let ctx: RpcContext
  let target: Address
  let caller: Address
  const c = contracts()
  const txs: Record<string, Hex> = {}

  const send = async (tx: Record<string, unknown>) => {
    const hash = await anvil.rpc<Hex>('eth_sendTransaction', [tx])
    for (let i = 0; ; i++) {
      const receipt = await anvil.rpc<{ status: Hex; contractAddress: Address | null } | null>('eth_getTransactionReceipt', [hash])
      if (receipt) return { hash, ...receipt }
      if (i === 100) throw new Error(`no receipt for ${hash}`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }
  const callData = (name: 'Target' | 'Caller', fn: string, args: unknown[] = []) => encodeFunctionData({ abi: c[name]!.abi, functionName: fn, args } as never)
  const toCaller = (fn: string, args: unknown[], value = 0n) => ({
    from: SENDER,
    to: caller,
    data: callData('Caller', fn, args),
    gas: toHex(1_000_000n),
    value: toHex(value),
  })

  beforeAll(async () => {
    anvil = await startAnvil()
    const t = await send({ from: DEV_ACCOUNTS[0], data: encodeDeployData({ abi: c.Target!.abi, bytecode: c.Target!.bytecode }), value: '0x10' })
    const k = await send({ from: DEV_ACCOUNTS[0], data: c.Caller!.bytecode })
    target = t.contractAddress!.toLowerCase() as Address
    caller = k.contractAddress!.toLowerCase() as Address
    txs.deploy = t.hash
    txs.nested = (await send(toCaller('nested', [target, 7n], 5n))).hash
    txs.delegate = (await send(toCaller('delegate', [target, 3n]))).hash
    txs.children = (await send(toCaller('makeChildren', [9n], 4n))).hash
    txs.kill = (await send(toCaller('makeAndKill', [BENEFICIARY], 2n))).hash
    txs.precompiles = (await send(toCaller('precompiles', ['0x1234']))).hash
    const mixed = await send({ from: DEV_ACCOUNTS[0], data: mixedPrecompileCalls(), value: '0x10' })
    txs.mixedPrecompiles = (await send({ from: SENDER, to: mixed.contractAddress!, gas: toHex(1_000_000n) })).hash
    txs.oogInner = (await send(toCaller('oogInner', [target]))).hash
    txs.failOuter = (await send(toCaller('failOuter', [target]))).hash
    txs.transfer = (await send({ from: SENDER, to: BENEFICIARY, value: '0x5' })).hash
    engine = await createEngine({
      rpcUrl: anvil.url,
      cache: createMemoryCacheStore(),
      gasCap: 50_000_000n,
      rpcTimeoutMs: 10_000,
      maxStructLogSteps: 50_000,
      simulationTtlSeconds: 60,
    })
    ctx = { engine, config: loadConfig({ env: {} }), at: ON_CHAIN } as RpcContext
  }, 120_000)
  afterAll(async () => {
    await engine?.close()
    await anvil?.stop()
  })

  const reth = (frames: unknown) => rethParityFrames(frames as ParityFrame[])

  for (const name of ['deploy', 'nested', 'delegate', 'children', 'kill', 'precompiles', 'mixedPrecompiles', 'oogInner', 'failOuter', 'transfer']) {
    it(`trace_transaction equals Anvil's: ${name}`, async () => {
      const theirs = reth(await anvil.rpc('trace_transaction', [txs[name]]))
      const ours = await traceMethods.trace_transaction!([txs[name]], ctx)
      expect(ours).toEqual(theirs)
    })
  }

  it("trace_block equals Anvil's for every block the transactions were mined in", async () => {
    const blocks = new Set<Hex>()
    for (const hash of Object.values(txs)) blocks.add((await anvil.rpc<{ blockNumber: Hex }>('eth_getTransactionReceipt', [hash])).blockNumber)
    for (const n of blocks) expect(await traceMethods.trace_block!([n], ctx)).toEqual(reth(await anvil.rpc('trace_block', [n])))
  })

  it('leaves calls into precompiles out as reth does: no frame, no subtrace, no place in traceAddress', async () => {
    // ecrecover, sha256 and identity called from a view function: the top frame alone
    const plain = (await traceMethods.trace_transaction!([txs.precompiles], ctx)) as ParityFrame[]
    expect(plain.map((f) => [f.traceAddress, f.subtraces])).toEqual([[[], 0]])
    expect(((await anvil.rpc('trace_transaction', [txs.precompiles])) as ParityFrame[]).length).toBe(4)
    // interleaved with other calls: the call with value into identity stays, the siblings close up
    const mixed = (await traceMethods.trace_transaction!([txs.mixedPrecompiles], ctx)) as ParityFrame[]
    expect(mixed.map((f) => [f.action.callType, f.action.to, f.traceAddress, f.subtraces])).toEqual([
      ['call', expect.any(String), [], 3],
      ['call', BENEFICIARY, [0], 0],
      ['call', '0x0000000000000000000000000000000000000004', [1], 0],
      ['call', BENEFICIARY, [2], 0],
    ])
    const replay = (await traceMethods.trace_replayTransaction!([txs.mixedPrecompiles, ['trace']], ctx)) as { trace: ParityFrame[] }
    expect(replay.trace.map((f) => f.traceAddress)).toEqual([[], [0], [1], [2]])
  })

  it('trace_get picks one frame of the list; a missing one is null', async () => {
    const all = (await traceMethods.trace_transaction!([txs.nested], ctx)) as unknown[]
    expect(all.length).toBeGreaterThan(2)
    expect(await traceMethods.trace_get!([txs.nested, ['0x2']], ctx)).toEqual(all[2])
    expect(await traceMethods.trace_get!([txs.nested, [toHex(all.length)]], ctx)).toBeNull()
    expect(await traceMethods.trace_get!([txs.nested, ['0x0', '0x1']], ctx)).toBeNull()
  })

  it('trace_replayTransaction and trace_call print the same frames without block fields', async () => {
    const localized = (await traceMethods.trace_transaction!([txs.nested], ctx)) as Record<string, unknown>[]
    const bare = localized.map(({ blockHash: _h, blockNumber: _n, transactionHash: _t, transactionPosition: _p, ...rest }) => rest)
    const replay = (await traceMethods.trace_replayTransaction!([txs.nested, ['trace']], ctx)) as Record<string, unknown>
    expect(replay).toEqual({ output: (localized[0]!.result as { output: Hex }).output, stateDiff: null, trace: bare, vmTrace: null })
    // the same call on the state before it: the same frames (the tx was alone in its block)
    const receipt = await anvil.rpc<{ blockNumber: Hex }>('eth_getTransactionReceipt', [txs.nested])
    const parent = toHex(BigInt(receipt.blockNumber) - 1n)
    const traced = (await traceMethods.trace_call!([toCaller('nested', [target, 7n], 5n), ['trace'], parent], ctx)) as Record<string, unknown>
    expect(traced.trace).toEqual(bare)
  })

  it('trace_callMany carries state from one call to the next', async () => {
    const store = { from: SENDER, to: target, data: callData('Target', 'store', [41n]) }
    const read = { from: SENDER, to: target, data: callData('Target', 'read') }
    const results = (await traceMethods.trace_callMany!(
      [
        [
          [store, ['trace']],
          [read, ['trace']],
        ],
        'latest',
      ],
      ctx,
    )) as { output: Hex; trace: unknown[] }[]
    expect(results).toHaveLength(2)
    expect(BigInt(results[0]!.output)).toBe(82n)
    expect(BigInt(results[1]!.output)).toBe(41n)
    expect(results[1]!.trace).toHaveLength(1)
  })

  it('bad params: -32602 naming the param; an unknown trace type refused by name', async () => {
    const cases: [string, unknown[], RegExp][] = [
      ['trace_transaction', ['0x12'], /invalid argument 0: expected a 32-byte/],
      ['trace_transaction', [], /missing value for required argument 0/],
      ['trace_call', [{ from: SENDER, to: target }, ['VmTrace']], /invalid argument 1: \[0\]: unknown trace type "VmTrace"/],
      ['trace_call', [{ from: SENDER, to: target }, ['bogus']], /invalid argument 1: \[0\]: unknown trace type "bogus"/],
      ['trace_callMany', [[[{ from: SENDER }]]], /invalid argument 0: \[0\]: expected \[call, traceTypes\]/],
    ]
    for (const [method, params, message] of cases) {
      const e = await traceMethods[method]!(params, ctx).then(
        () => undefined,
        (x: unknown) => x,
      )
      expect(e, method).toBeInstanceOf(RpcError)
      expect((e as RpcError).code).toBe(-32602)
      expect((e as RpcError).message).toMatch(message)
    }
  })
})
