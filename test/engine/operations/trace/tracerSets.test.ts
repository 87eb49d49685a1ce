/**
 * How a trace builds its tracers (engine/operations/trace/traceService.ts): createTracers runs once per
 * traced transaction — the first set is built before any state is read, so a bad option still
 * fails first, and is the set that transaction uses — and the rule "which tracers were asked
 * for" is createTracers' own (tracersAskedFor), which the trace set reuses.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createDevnet, type Devnet } from '../../../../engine/chains/devnet/devnetChain.js'
import { createTraceService } from '../../../../engine/operations/trace/traceService.js'
import { createTraceSet } from '../../../../engine/operations/trace/traceSet.js'
import { createTracers, tracersAskedFor } from '../../../../tracers/createTracers.js'

vi.mock('../../../../tracers/createTracers.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../../tracers/createTracers.js')>()
  return { ...real, createTracers: vi.fn(real.createTracers) }
})
const built = vi.mocked(createTracers)

describe('tracer sets of a trace', () => {
  let devnet: Devnet
  beforeAll(async () => {
    devnet = await createDevnet()
  })
  afterAll(() => devnet?.close())

  it('createTracers runs once per traced transaction', async () => {
    const service = createTraceService(devnet, { gasCap: 50_000_000n, maxStructLogSteps: 100_000 })
    const config = { callTracer: {}, flatCallTracer: {} }
    built.mockClear()
    const block = await service.traceBlock({ block: { number: 5n }, tracerConfig: config })
    expect(block).toHaveLength(2)
    expect(built).toHaveBeenCalledTimes(2)
    const hash = block[1]!.txHash
    built.mockClear()
    const one = await service.traceTransaction(hash, config)
    expect(built).toHaveBeenCalledTimes(1)
    // the flat frames carry the block and transaction fields, filled in after the set was built
    expect((one.flatCallTracer as { transactionHash: string; blockNumber: number }[])[0]).toMatchObject({ transactionHash: hash, blockNumber: 5 })
    expect(one).toEqual((block[1] as { result: unknown }).result)
    built.mockClear()
    const call = { from: '0x0000000000000000000000000000000000000001' as const, to: '0x0000000000000000000000000000000000000002' as const, data: '0x' as const }
    await service.traceCallMany({ bundles: [{ transactions: [call, call] }, { transactions: [call] }], block: { tag: 'latest' }, tracerConfig: config })
    expect(built).toHaveBeenCalledTimes(3)
  })

  it('a bad tracer option fails before the block is looked for', async () => {
    const service = createTraceService(devnet, { gasCap: 50_000_000n, maxStructLogSteps: 100_000 })
    // geth's prestateTracer: diffMode and includeEmpty together are refused when the tracer is built
    const bad = { prestateTracer: { diffMode: true, includeEmpty: true } }
    for (const trace of [
      () => service.traceBlock({ block: { number: 999_999n }, tracerConfig: bad }),
      () => service.traceTransaction(`0x${'12'.repeat(32)}`, bad),
      () =>
        service.traceCall({
          call: { from: '0x0000000000000000000000000000000000000001', to: null, data: '0x' },
          block: { number: 999_999n },
          tracerConfig: bad,
        }),
    ]) {
      await expect(trace()).rejects.toThrow('cannot use diffMode with includeEmpty')
    }
  })

  it("which tracers were asked for: createTracers' rule, reused by the trace set", () => {
    expect(tracersAskedFor({})).toEqual([])
    expect(tracersAskedFor({ '4byteTracer': false, noopTracer: false })).toEqual([])
    expect(tracersAskedFor({ '4byteTracer': true, stateDiffTracer: true, callTracer: {} })).toEqual(['callTracer', '4byteTracer', 'stateDiffTracer'])
    // callTree alone runs no geth tracer; with one asked for, that one runs (no default callTracer)
    built.mockClear()
    expect(createTraceSet({ callTree: {} }, {}).tracers).toHaveLength(1)
    expect(built).not.toHaveBeenCalled()
    expect(createTraceSet({ callTree: {}, '4byteTracer': true }, {}).tracers).toHaveLength(2)
    expect(built).toHaveBeenCalledTimes(1)
  })
})
