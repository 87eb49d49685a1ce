/**
 * The tracing adapter's own translations, where ethereumjs and geth differ (geth-reference §4):
 * frames ethereumjs never announces (a CALL failing its balance check, SELFDESTRUCT), CALL step
 * cost including the forwarded gas, log indexes given back by reverted frames, geth's error
 * strings for faults seen at a step, and the order of hooks. Anvil is the oracle where it agrees
 * with geth; geth's own rule is asserted directly where Anvil deviates (§5).
 */
import { encodeDeployData, encodeFunctionData, toHex, type Address, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { createRpcChain, type RpcChain } from '../../../engine/chains/remote/rpcChain.js'
import { EngineError } from '../../../engine/platform/errors.js'
import { executeCall } from '../../../engine/execution/executeTransaction.js'
import type { CallInput, ExecutionContext } from '../../../engine/execution/types.js'
import { executionContext } from '../../../engine/run/blockEnvironment.js'
import { createCallTracer, type CallFrameJson } from '../../../tracers/callTracer.js'
import type { OpcodeStep, Tracer } from '../../../tracers/types.js'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../../support/anvil.js'
import { compile, type CompiledContract } from '../../support/solc.js'

const SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Probe {
  event Note(uint256 n);
  function tooMuch(address to) external { (bool ok,) = to.call{value: 1 ether}(""); ok; }
  function kill(address payable b) external payable { selfdestruct(b); }
  function inner() external { emit Note(2); revert("inner"); }
  function logs() external {
    emit Note(1);
    try this.inner() {} catch {}
    emit Note(3);
  }
  function forward(address to) external payable { (bool ok,) = to.call{value: msg.value, gas: 50000}(""); ok; }
  function readOnly(address self) external view returns (uint256) { return Probe(self).writeProbe(); }
  uint256 x;
  function writeProbe() external view returns (uint256) { return x; }
  function write() external { x = 1; }
  function staticWrite() external { (bool ok,) = address(this).staticcall(abi.encodeWithSelector(this.write.selector)); ok; }
}
`

const hasAnvil = requireAnvil()
const FROM = DEV_ACCOUNTS[0] as Address
const OTHER = '0x00000000000000000000000000000000000b0b00' as Address

describe.runIf(hasAnvil)('tracing adapter', () => {
  let anvil: AnvilInstance
  let chain: RpcChain
  let probe: CompiledContract
  let at: Address

  const context = async (): Promise<ExecutionContext> => {
    const header = await chain.resolveBlock({ tag: 'latest' })
    return executionContext(chain, header, await chain.stateAfter(header.number))
  }
  const data = (fn: string, args: unknown[] = []): Hex => encodeFunctionData({ abi: probe.abi, functionName: fn, args } as never)
  const call = (fn: string, args: unknown[] = [], value = 0n): CallInput => ({ from: FROM, to: at, data: data(fn, args), value, gas: 500_000n })
  const traceOurs = async (c: CallInput, extra: Tracer[] = []): Promise<CallFrameJson> => {
    const t = createCallTracer({ withLog: true })
    await executeCall(await context(), c, { tracers: [t, ...extra] })
    return t.result()
  }
  const traceAnvil = (c: CallInput, config: Record<string, unknown>) =>
    anvil.rpc<Record<string, unknown>>('debug_traceCall', [
      { from: c.from, to: c.to, data: c.data, value: toHex(c.value ?? 0n), gas: toHex(c.gas!) },
      'latest',
      config,
    ])

  beforeAll(async () => {
    anvil = await startAnvil()
    chain = await createRpcChain({ url: anvil.url, timeoutMs: 10_000, cache: createMemoryCacheStore() })
    probe = compile({ 'Probe.sol': SOURCE }).Probe!
    const hash = await anvil.rpc<Hex>('eth_sendTransaction', [
      { from: FROM, data: encodeDeployData({ abi: probe.abi, bytecode: probe.bytecode }), gas: toHex(3_000_000n) },
    ])
    // Anvil automines, but the receipt may show a moment after the hash
    let receipt: { contractAddress: Address } | null = null
    for (let i = 0; !receipt && i < 100; i++) {
      receipt = await anvil.rpc<{ contractAddress: Address } | null>('eth_getTransactionReceipt', [hash])
      if (!receipt) await new Promise((r) => setTimeout(r, 20))
    }
    at = receipt!.contractAddress.toLowerCase() as Address
  }, 60_000)

  afterAll(async () => {
    await chain?.close()
    await anvil?.stop()
  })

  it('synthesizes the frame of a CALL that fails its balance check, as geth (and Anvil) show it', async () => {
    const c = call('tooMuch', [OTHER])
    const ours = await traceOurs(c)
    const theirs = (await traceAnvil(c, { tracer: 'callTracer' })) as unknown as CallFrameJson
    expect(ours.calls).toHaveLength(1)
    expect(ours.calls![0]).toMatchObject({
      from: at,
      to: OTHER,
      type: 'CALL',
      gasUsed: '0x0',
      error: 'insufficient balance for transfer',
      value: toHex(10n ** 18n),
    })
    expect(ours.calls).toEqual(theirs.calls)
  })

  it('emits a SELFDESTRUCT frame nested in the caller: value = balance, gas 0', async () => {
    const c = call('kill', [OTHER], 5n)
    const t = createCallTracer()
    await executeCall(await context(), c, { tracers: [t] })
    const frame = t.result()
    expect(frame.calls).toEqual([{ from: at, gas: '0x0', gasUsed: '0x0', to: OTHER, input: '0x', type: 'SELFDESTRUCT', value: '0x5' }])
    const theirs = (await traceAnvil(c, { tracer: 'callTracer' })) as unknown as CallFrameJson
    expect(frame.calls).toEqual(theirs.calls)
  })

  it('numbers logs tx-wide; a reverted frame gives its numbers back (geth rule, Anvil deviates §5.3)', async () => {
    const frame = await traceOurs(call('logs'))
    // Note(1) index 0 before any call; Note(2) in the reverted inner call is dropped and returns
    // its index; Note(3) therefore gets index 1, after one finished sub-call (position 1)
    expect(frame.logs?.map((l) => [l.index, l.position])).toEqual([
      ['0x0', '0x0'],
      ['0x1', '0x1'],
    ])
    expect(frame.calls?.[0]?.error).toBe('execution reverted')
    expect(frame.calls?.[0]?.revertReason).toBe('inner')
    expect(frame.calls?.[0]?.logs).toBeUndefined()
  })

  it('CALL step cost includes the forwarded gas (no stipend), as geth/Anvil struct logs', async () => {
    const steps: OpcodeStep[] = []
    const collector: Tracer = { onOpcode: (s) => void (s.op === 'CALL' && steps.push(s)), result: () => steps }
    const c = call('forward', [OTHER], 7n)
    await traceOurs(c, [collector])
    const theirs = (await traceAnvil(c, {})) as { structLogs: { op: string; gasCost: number; gas: number; depth: number }[] }
    const anvilCalls = theirs.structLogs.filter((s) => s.op === 'CALL')
    expect(steps).toHaveLength(1)
    expect(anvilCalls).toHaveLength(1)
    expect(Number(steps[0]!.gas)).toBe(anvilCalls[0]!.gas)
    expect(Number(steps[0]!.cost)).toBe(anvilCalls[0]!.gasCost)
    expect(steps[0]!.depth).toBe(1)
    // value-bearing CALL: the callee frame's gas is the 50000 requested plus the 2300 stipend
    const frame = await traceOurs(c)
    expect(frame.calls?.[0]?.gas).toBe(toHex(52_300n))
  })

  it('a state write under STATICCALL is geth’s "write protection"', async () => {
    const frame = await traceOurs(call('staticWrite'))
    expect(frame.calls?.[0]).toMatchObject({ type: 'STATICCALL', error: 'write protection' })
    expect(frame.calls?.[0]?.value).toBeUndefined()
  })

  it('faults seen at a step read as geth prints them', async () => {
    const run = async (initcode: Hex) => {
      const steps: OpcodeStep[] = []
      const t = createCallTracer()
      const r = await executeCall(
        await context(),
        { from: FROM, to: null, data: initcode, gas: 100_000n },
        {
          tracers: [t, { onOpcode: (s) => void steps.push(s), result: () => steps }],
        },
      )
      return { r, frame: t.result(), last: steps[steps.length - 1]! }
    }
    const underflow = await run('0x01')
    expect(underflow.r.status).toBe('failed')
    expect(underflow.frame.error).toBe('stack underflow (0 <=> 2)')
    expect(underflow.last.error).toBe('stack underflow (0 <=> 2)')
    expect(underflow.frame.to).toBeUndefined()
    expect(underflow.frame.gasUsed).toBe(toHex(100_000n))

    const invalid = await run('0xfe')
    expect(invalid.frame.error).toBe('invalid opcode: INVALID')
    expect(invalid.last.error).toBeUndefined()

    const undefinedOp = await run('0x0c')
    expect(undefinedOp.frame.error).toBe('invalid opcode: opcode 0xc not defined')
    expect(undefinedOp.last.op).toBe('opcode 0xc not defined')

    const badJump = await run('0x600056')
    expect(badJump.frame.error).toBe('invalid jump destination')

    // RETURNDATACOPY(0, 0, 1) with no return data
    const oob = await run('0x6001600060003e00')
    expect(oob.frame.error).toBe('return data out of bounds')

    // CALL with an absurd argument size: out of gas, and the adapter must not try to read it
    const huge = await run('0x6000600060ff60ff1b60006000600061fffff100')
    expect(huge.frame.error).toBe('out of gas')

    const keccak = await run('0x60006000200000')
    expect(keccak.last.op).toBe('STOP')
    expect(keccak.r.status).toBe('success')
  })

  it('a tracer that gives up (e.g. a step limit) aborts the run with its EngineError', async () => {
    let n = 0
    const limited: Tracer = {
      onOpcode: () => {
        if (++n > 3) throw new EngineError('PAYLOAD_TOO_LARGE', 'too many steps')
      },
      result: () => n,
    }
    const err = await executeCall(await context(), call('logs'), { tracers: [limited] }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(EngineError)
    expect((err as EngineError).code).toBe('PAYLOAD_TOO_LARGE')
    expect(n).toBe(4)
  })

  it('hooks come in geth order: txStart, enter(0), opcodes, exit(0) with receipt gas, txEnd', async () => {
    const seen: string[] = []
    const spy: Tracer = {
      onTxStart: (ctx) => void seen.push(`start:${ctx.gasLimit}`),
      onEnter: (e) => void seen.push(`enter:${e.depth}:${e.type}:${e.gas}`),
      onExit: (e) => void seen.push(`exit:${e.depth}:${e.gasUsed}`),
      onTxEnd: (e) => void seen.push(`end:${e.gasUsed}`),
      result: () => seen,
    }
    const r = await executeCall(await context(), { from: FROM, to: OTHER, data: '0x', value: 1n, gas: 30_000n }, { tracers: [spy] })
    expect(seen).toEqual(['start:30000', 'enter:0:CALL:30000', `exit:0:${r.gasUsed}`, `end:${r.gasUsed}`])
  })

  it('a step shows the memory in use to tracers that may read it, and none when no tracer of the run does', async () => {
    const seen = (readsMemory: boolean | undefined) => {
      const sizes: number[] = []
      const t: Tracer = {
        ...(readsMemory === undefined ? {} : { readsMemory }),
        onOpcode: (s: OpcodeStep) => void sizes.push(s.memory.length),
        result: () => sizes,
      }
      return t
    }
    const [unsaid, reads, never, alone] = [seen(undefined), seen(true), seen(false), seen(false)]
    // logs() writes its events' data to memory (Solidity's free pointer puts 0x80 bytes in use first)
    await executeCall(await context(), call('logs'), { tracers: [unsaid, reads, never] })
    await executeCall(await context(), call('logs'), { tracers: [alone] })
    const [a, b, c, d] = [unsaid, reads, never, alone].map((t) => t.result() as number[])
    expect(a!.length).toBeGreaterThan(100)
    expect(Math.max(...a!)).toBeGreaterThanOrEqual(0x80)
    expect(a!.every((n) => n % 32 === 0)).toBe(true)
    expect(b).toEqual(a)
    // one view per step serves every tracer of the run
    expect(c).toEqual(a)
    expect(d).toEqual(a!.map(() => 0))
  })
})
