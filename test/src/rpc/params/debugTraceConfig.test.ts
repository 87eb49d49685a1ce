/** geth's TraceConfig → the engine's TracerConfig, and the answer back (src/rpc/params/debugTraceConfig.ts). */
import { describe, expect, it } from 'vitest'
import { DEFAULT_TRACE_TIMEOUT_MS, parseGoDuration, parseTraceCallConfig, parseTraceConfig } from '../../../../src/rpc/params/debugTraceConfig.js'
import { RpcError } from '../../../../src/rpc/rpcError.js'

const limits = { maxTimeoutMs: 30_000 }
const parse = (cfg: unknown) => parseTraceConfig(cfg, 1, limits)

describe('parseTraceConfig', () => {
  it('maps each geth tracer to the engine tracer and unwraps its answer', () => {
    expect(parse(undefined).tracerConfig).toEqual({ structLogger: { disableMemory: true } })
    expect(parse({ enableMemory: true, disableStack: true, disableStorage: false, enableReturnData: true, limit: 10 }).tracerConfig).toEqual({
      structLogger: { disableMemory: false, disableStack: true, disableStorage: false, enableReturnData: true, limit: 10 },
    })
    expect(parse({ limit: -1 }).tracerConfig).toEqual({ structLogger: { disableMemory: true, limit: -1 } })
    expect(parse({ limit: 0 }).tracerConfig).toEqual({ structLogger: { disableMemory: true } })
    // the pre-1.11 name some tools still send
    expect(parse({ disableMemory: false }).tracerConfig).toEqual({ structLogger: { disableMemory: false } })
    expect(parse({ tracer: 'callTracer', tracerConfig: { onlyTopCall: true, withLog: false } }).tracerConfig).toEqual({
      callTracer: { onlyTopCall: true, withLog: false },
    })
    expect(parse({ tracer: 'prestateTracer', tracerConfig: { diffMode: true, includeEmpty: false } }).tracerConfig).toEqual({
      prestateTracer: { diffMode: true, includeEmpty: false },
    })
    expect(parse({ tracer: '4byteTracer' }).tracerConfig).toEqual({ '4byteTracer': { gethForm: true } })
    expect(parse({ tracer: 'noopTracer', tracerConfig: null }).tracerConfig).toEqual({ noopTracer: true })
    const mux = parse({ tracer: 'muxTracer', tracerConfig: { prestateTracer: {}, callTracer: { withLog: true } } })
    expect(mux.tracerConfig).toEqual({ callTracer: { withLog: true }, prestateTracer: {} })
    expect(mux.shape({ callTracer: 1, prestateTracer: 2 })).toEqual({ callTracer: 1, prestateTracer: 2 })
    expect(parse({ tracer: 'callTracer' }).shape({ callTracer: { type: 'CALL' } })).toEqual({ type: 'CALL' })
    expect(parse({}).shape({ structLogger: { gas: 1 } })).toEqual({ gas: 1 })
  })

  it("takes geth's timeout as a Go duration: 5 s by default, never longer than the request timeout", () => {
    expect(parse({}).timeoutMs).toBe(DEFAULT_TRACE_TIMEOUT_MS)
    expect(parseTraceConfig({}, 1, { maxTimeoutMs: 1_000 }).timeoutMs).toBe(1_000)
    expect(parse({ timeout: '1m' }).timeoutMs).toBe(30_000)
    expect(parse({ timeout: '250ms' }).timeoutMs).toBe(250)
    expect(parseGoDuration('1h2m3.5s')).toBe(3_723_500)
    expect(parseGoDuration('1.5s')).toBe(1_500)
    expect(parseGoDuration('300us')).toBeCloseTo(0.3)
    expect(parseGoDuration('0')).toBe(0)
    expect(parse({ timeout: '0s' }).timeoutMs).toBeGreaterThan(0)
    for (const bad of ['', '5', 's', '1x', '1s2', '.s']) expect(() => parseGoDuration(bad), bad).toThrow(`time: invalid duration ${JSON.stringify(bad)}`)
  })

  it('refuses what it would otherwise ignore, naming the field', () => {
    const err = (cfg: unknown) => {
      try {
        parse(cfg)
      } catch (e) {
        expect(e).toBeInstanceOf(RpcError)
        return `${(e as RpcError).code} ${(e as Error).message}`
      }
      throw new Error('no error')
    }
    expect(err({ tracer: 'callTracer', tracerConfig: { diffMode: true } })).toMatch(/^-32602 invalid argument 1: tracerConfig\.diffMode: unknown field/)
    expect(err({ tracer: 'muxTracer', tracerConfig: { muxTracer: {} } })).toBe(
      '-32602 invalid argument 1: tracerConfig.muxTracer: a muxTracer inside a muxTracer is not supported',
    )
    expect(err({ tracer: 'muxTracer', tracerConfig: { bogus: {} } })).toBe('-32000 tracer not found')
    expect(err({ tracerConfig: { withLog: true } })).toMatch(/^-32602 invalid argument 1: tracerConfig: given without a tracer/)
    expect(err({ overrides: {} })).toMatch(/^-32602 invalid argument 1: overrides: chain config overrides are not supported/)
    expect(err({ limit: '10' })).toBe('-32602 invalid argument 1: limit: expected an integer, got string')
    expect(err({ stateOverrides: {} })).toMatch(/^-32602 invalid argument 1: stateOverrides: unknown field/)
    expect(err([])).toBe('-32602 invalid argument 1: expected a trace config object, got array')
    expect(err({ tracer: 'flatCallTracer', tracerConfig: { convertParityErrors: 'yes' } })).toBe(
      '-32602 invalid argument 1: tracerConfig.convertParityErrors: expected a boolean, got string',
    )
  })

  it("flatCallTracer takes geth's two options", () => {
    expect(parseTraceConfig({ tracer: 'flatCallTracer', tracerConfig: { convertParityErrors: true } }, 1, { maxTimeoutMs: 30_000 }).tracerConfig).toEqual({
      flatCallTracer: { convertParityErrors: true },
    })
  })

  it("debug_traceCall's TraceCallConfig adds overrides and txIndex", () => {
    const cfg = parseTraceCallConfig(
      {
        tracer: 'callTracer',
        txIndex: '0x2',
        stateOverrides: { '0x00000000000000000000000000000000000000AA': { balance: '0x1' } },
        blockOverrides: { baseFeePerGas: '0x7', feeRecipient: '0x00000000000000000000000000000000000000bb' },
      },
      2,
      limits,
    )
    expect(cfg.txIndex).toBe(2)
    expect(cfg.stateOverrides).toEqual({ '0x00000000000000000000000000000000000000aa': { balance: 1n } })
    expect(cfg.blockOverrides).toEqual({ baseFee: 7n, coinbase: '0x00000000000000000000000000000000000000bb' })
    expect(() => parseTraceCallConfig({ blockOverrides: { baseFee: '0x1', baseFeePerGas: '0x2' } }, 2, limits)).toThrow(
      'invalid argument 2: blockOverrides.baseFeePerGas: baseFee is given twice',
    )
  })
})
