/**
 * geth's TraceConfig (eth/tracers/api.go) → the engine's TracerConfig (tracers/config.ts), and the
 * engine's answer (keyed by tracer name) back to what geth prints for that config:
 *
 * | TraceConfig.tracer | engine tracer                                      | answer                    |
 * |--------------------|----------------------------------------------------|---------------------------|
 * | (none)             | structLogger; geth's enableMemory / disableStack / disableStorage / enableReturnData / limit | `{gas, failed, returnValue, structLogs}` |
 * | callTracer         | callTracer `{onlyTopCall, withLog}`                | the call frame            |
 * | prestateTracer     | prestateTracer `{diffMode, disableCode, disableStorage, includeEmpty}` | geth's prestate  |
 * | 4byteTracer        | 4byteTracer in geth's form                         | `{"0xsel-size": n}`       |
 * | noopTracer         | noopTracer                                         | `{}`                      |
 * | muxTracer          | each tracer named in tracerConfig, in ONE run      | `{name: answer}`, names sorted as Go prints a map |
 * | flatCallTracer     | flatCallTracer `{convertParityErrors, includePrecompiles}` | the flat frames      |
 * | callTree (ours)    | the decoded call tree `{internal}`                 | the tree, as REST's `callTree` |
 * | gasProfile (ours)  | gas by function and line (no options)              | as REST's `gasProfile`    |
 * | frameSteps (ours)  | one page of one frame's steps `{frame, fromStep, maxSteps, withFiles}` | as REST's `frameSteps` |
 *
 * `timeout` is a Go duration ("5s", "300ms", "1m30s"); geth's default is 5 s, and here it is
 * capped by the request timeout (a trace cannot outlive the HTTP request that asked for it).
 * Tracer options are checked strictly: an unknown option is refused (-32602), not ignored.
 *
 * @example
 * const { tracerConfig, shape, timeoutMs } = parseTraceConfig(params[1], 1, { maxTimeoutMs: 30_000 })
 * shape(await engine.traceTransaction(hash, tracerConfig, { timeoutMs }))
 */
import type { BlockOverrides, StateOverrides, TraceResult, TracerConfig } from '../../../engine/types.js'
import { formatPath, joinPath } from '../../errors/apiError.js'
import { isObject, typeName } from '../../params/grammar.js'
import { frameStepsOptions } from '../../schemas/frameSteps.js'
import { type OverrideRules, parseStateOverrides } from '../../params/stateOverrides.js'
import { invalidArgument, RpcError } from '../rpcError.js'
import { argReader, GETH } from './argReader.js'
import { parseBlockOverrides } from './blockOverrides.js'

/** TraceCallConfig's stateOverrides: slots of exactly 32 bytes, as geth reads them */
export const DEBUG_OVERRIDES: OverrideRules = { slots: 'exact', movePrecompile: { refused: 'not supported by debug_* methods here' } }

/** refuses keys nobody reads (geth would ignore them silently; we say so instead) */
function onlyKeys(obj: Record<string, unknown>, allowed: readonly string[], index: number, path: string): void {
  argReader(index, GETH).onlyKeys(obj, allowed, path)
}

/** a JSON-RPC positional integer that geth reads as hexutil.Uint (or a plain JSON number, as Erigon/reth take) */
function parseIndex(v: unknown, index: number, path: string): number {
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v) || v < 0) throw invalidArgument(index, `${path}: expected a non-negative integer`)
    return v
  }
  return Number(argReader(index, GETH).quantity(v, path, { max: 0xffffffffn }))
}

/** geth defaultTraceTimeout */
export const DEFAULT_TRACE_TIMEOUT_MS = 5_000

/** the struct logger's options, top level in TraceConfig (geth embeds logger.Config) */
const LOGGER_KEYS = ['enableMemory', 'disableMemory', 'disableStack', 'disableStorage', 'enableReturnData', 'limit', 'debug'] as const
/** `reexec` and `debug` are read by geth but mean nothing here: accepted (docs/decisions/0046-debug-trace-config-and-strict-params.md) */
const TRACE_CONFIG_KEYS = ['tracer', 'tracerConfig', 'timeout', 'reexec', ...LOGGER_KEYS]
/** debug_traceCall's TraceCallConfig adds these */
const CALL_CONFIG_KEYS = [...TRACE_CONFIG_KEYS, 'stateOverrides', 'blockOverrides', 'txIndex']

type TracerName = 'callTracer' | 'prestateTracer' | '4byteTracer' | 'noopTracer' | 'flatCallTracer' | 'callTree' | 'gasProfile' | 'frameSteps'

export interface ParsedTraceConfig {
  tracerConfig: TracerConfig
  /** the engine's keyed answer → what geth answers for this TraceConfig */
  shape(result: TraceResult): unknown
  timeoutMs: number
}

export interface ParsedTraceCallConfig extends ParsedTraceConfig {
  stateOverrides?: StateOverrides
  blockOverrides?: BlockOverrides
  txIndex?: number
}

export interface TraceConfigLimits {
  /** the request timeout: no trace is given longer */
  maxTimeoutMs: number
}

/** geth's flatCallTracer (tracers/flatCallTracer.ts): `{convertParityErrors, includePrecompiles}` */
export function flatCallTracerConfig(options: Record<string, unknown>, index: number): TracerConfig {
  onlyKeys(options, ['convertParityErrors', 'includePrecompiles'], index, 'tracerConfig')
  const cfg: NonNullable<TracerConfig['flatCallTracer']> = {}
  for (const k of ['convertParityErrors', 'includePrecompiles'] as const) {
    const b = bool(options[k], index, `tracerConfig.${k}`)
    if (b !== undefined) cfg[k] = b
  }
  return { flatCallTracer: cfg }
}

function bool(v: unknown, index: number, path: string): boolean | undefined {
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'boolean') throw invalidArgument(index, `${path}: expected a boolean, got ${typeName(v)}`)
  return v
}

/** the options object a native tracer takes (`tracerConfig`); null and absent are `{}` as in geth */
function options(v: unknown, index: number, path: string): Record<string, unknown> {
  if (v === undefined || v === null) return {}
  if (!isObject(v)) throw invalidArgument(index, `${path}: expected an object, got ${typeName(v)}`)
  return v
}

/** one native tracer's options → its entry of the engine's TracerConfig */
function nativeTracer(name: TracerName, raw: unknown, index: number, path: string): TracerConfig {
  const o = options(raw, index, path)
  switch (name) {
    case 'callTracer': {
      onlyKeys(o, ['onlyTopCall', 'withLog'], index, path)
      const onlyTopCall = bool(o.onlyTopCall, index, `${path}.onlyTopCall`)
      const withLog = bool(o.withLog, index, `${path}.withLog`)
      return { callTracer: { ...(onlyTopCall !== undefined && { onlyTopCall }), ...(withLog !== undefined && { withLog }) } }
    }
    case 'prestateTracer': {
      onlyKeys(o, ['diffMode', 'disableCode', 'disableStorage', 'includeEmpty'], index, path)
      const cfg: NonNullable<TracerConfig['prestateTracer']> = {}
      for (const k of ['diffMode', 'disableCode', 'disableStorage', 'includeEmpty'] as const) {
        const b = bool(o[k], index, `${path}.${k}`)
        if (b !== undefined) cfg[k] = b
      }
      return { prestateTracer: cfg }
    }
    case '4byteTracer':
      onlyKeys(o, [], index, path)
      return { '4byteTracer': { gethForm: true } }
    case 'noopTracer':
      onlyKeys(o, [], index, path)
      return { noopTracer: true }
    case 'flatCallTracer':
      return flatCallTracerConfig(o, index)
    case 'callTree': {
      // the service's own decoded tree (no geth tracer): contracts, revert lines, internal calls
      onlyKeys(o, ['internal'], index, path)
      const internal = bool(o.internal, index, `${path}.internal`)
      return { callTree: internal ? { internal } : {} }
    }
    case 'gasProfile':
      onlyKeys(o, [], index, path)
      return { gasProfile: true }
    case 'frameSteps':
      return { frameSteps: frameStepsConfig(o, index, path) }
  }
}

/** REST's options of `frameSteps`, checked by the same schema */
function frameStepsConfig(o: Record<string, unknown>, index: number, path: string): NonNullable<TracerConfig['frameSteps']> {
  const parsed = frameStepsOptions.safeParse(o)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]!
  throw invalidArgument(index, `${joinPath(path, formatPath(issue.path))}: ${issue.message}`)
}

const NATIVE: readonly TracerName[] = ['callTracer', 'prestateTracer', '4byteTracer', 'noopTracer', 'flatCallTracer', 'callTree', 'gasProfile', 'frameSteps']

function unknownTracer(name: string): RpcError {
  // geth DefaultDirectory.New: a name that is no native tracer is compiled as JavaScript
  if (/[{}()]/.test(name))
    return new RpcError(
      -32000,
      'JavaScript tracers are not supported by this endpoint (use callTracer, prestateTracer, 4byteTracer, muxTracer, noopTracer, flatCallTracer, callTree, gasProfile, frameSteps or the struct logger)',
    )
  return new RpcError(-32000, 'tracer not found')
}

/** Go's time.ParseDuration, in milliseconds */
export function parseGoDuration(s: string): number {
  const units: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1e3, m: 60e3, h: 3600e3 }
  const invalid = () => new RpcError(-32000, `time: invalid duration ${JSON.stringify(s)}`)
  let rest = s
  let sign = 1
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1
    rest = rest.slice(1)
  }
  if (rest === '0') return 0
  if (rest === '') throw invalid()
  let total = 0
  const part = /^([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)/
  while (rest.length > 0) {
    const m = part.exec(rest)
    if (!m || m[1] === '' || m[1] === '.') throw invalid()
    total += Number(m[1]) * units[m[2]!]!
    rest = rest.slice(m[0].length)
  }
  return sign * total
}

function parseTimeout(v: unknown, index: number, limits: TraceConfigLimits): number {
  if (v === undefined || v === null) return Math.min(DEFAULT_TRACE_TIMEOUT_MS, limits.maxTimeoutMs)
  if (typeof v !== 'string') throw invalidArgument(index, `timeout: expected a duration string such as "10s", got ${typeName(v)}`)
  const ms = parseGoDuration(v)
  // a zero or negative timeout has already expired (geth: context.WithTimeout fires at once)
  return Math.min(Math.max(ms, Number.MIN_VALUE), limits.maxTimeoutMs)
}

function structLoggerConfig(cfg: Record<string, unknown>, index: number): TracerConfig {
  const enableMemory = bool(cfg.enableMemory, index, 'enableMemory')
  // `disableMemory` is the pre-1.11 geth name, still sent by some tools
  const disableMemory = bool(cfg.disableMemory, index, 'disableMemory')
  const out: NonNullable<TracerConfig['structLogger']> = { disableMemory: enableMemory !== undefined ? !enableMemory : (disableMemory ?? true) }
  for (const k of ['disableStack', 'disableStorage', 'enableReturnData'] as const) {
    const b = bool(cfg[k], index, k)
    if (b !== undefined) out[k] = b
  }
  if (cfg.limit !== undefined && cfg.limit !== null) {
    if (typeof cfg.limit !== 'number' || !Number.isSafeInteger(cfg.limit))
      throw invalidArgument(index, `limit: expected an integer, got ${typeName(cfg.limit)}`)
    if (cfg.limit !== 0) out.limit = cfg.limit
  }
  return { structLogger: out }
}

function parseWith(
  raw: unknown,
  index: number,
  limits: TraceConfigLimits,
  keys: readonly string[],
): { parsed: ParsedTraceConfig; cfg: Record<string, unknown> } {
  const cfg = raw === undefined || raw === null ? {} : raw
  if (!isObject(cfg)) throw invalidArgument(index, `expected a trace config object, got ${typeName(cfg)}`)
  if (cfg.overrides !== undefined) throw invalidArgument(index, 'overrides: chain config overrides are not supported by this endpoint')
  onlyKeys(cfg, keys, index, '')
  if (cfg.reexec !== undefined && cfg.reexec !== null) parseIndex(cfg.reexec, index, 'reexec')
  bool(cfg.debug, index, 'debug')
  const timeoutMs = parseTimeout(cfg.timeout, index, limits)

  if (cfg.tracer === undefined || cfg.tracer === null) {
    if (cfg.tracerConfig !== undefined && cfg.tracerConfig !== null)
      throw invalidArgument(index, 'tracerConfig: given without a tracer (the struct logger takes its options at the top level)')
    return { cfg, parsed: { tracerConfig: structLoggerConfig(cfg, index), shape: (r) => r.structLogger, timeoutMs } }
  }
  if (typeof cfg.tracer !== 'string') throw invalidArgument(index, `tracer: expected a tracer name, got ${typeName(cfg.tracer)}`)
  const name = cfg.tracer
  if (name === 'muxTracer') {
    const mux = options(cfg.tracerConfig, index, 'tracerConfig')
    let tracerConfig: TracerConfig = {}
    const names = Object.keys(mux).sort()
    for (const inner of names) {
      if (inner === 'muxTracer') throw invalidArgument(index, 'tracerConfig.muxTracer: a muxTracer inside a muxTracer is not supported')
      if (!(NATIVE as readonly string[]).includes(inner)) throw unknownTracer(inner)
      tracerConfig = { ...tracerConfig, ...nativeTracer(inner as TracerName, mux[inner], index, `tracerConfig.${inner}`) }
    }
    // geth's mux with no tracers runs and answers {}
    if (names.length === 0) tracerConfig = { noopTracer: true }
    return {
      cfg,
      parsed: {
        tracerConfig,
        timeoutMs,
        shape: (r) => Object.fromEntries(names.map((n) => [n, (r as Record<string, unknown>)[n]])),
      },
    }
  }
  if (!(NATIVE as readonly string[]).includes(name)) throw unknownTracer(name)
  const tracerName = name as TracerName
  return {
    cfg,
    parsed: {
      tracerConfig: nativeTracer(tracerName, cfg.tracerConfig, index, 'tracerConfig'),
      timeoutMs,
      shape: (r) => (r as Record<string, unknown>)[tracerName],
    },
  }
}

/** debug_traceTransaction / debug_traceBlockBy* / debug_traceCallMany: TraceConfig */
export function parseTraceConfig(raw: unknown, index: number, limits: TraceConfigLimits): ParsedTraceConfig {
  return parseWith(raw, index, limits, TRACE_CONFIG_KEYS).parsed
}

/** debug_traceCall: TraceCallConfig (TraceConfig + stateOverrides, blockOverrides, txIndex) */
export function parseTraceCallConfig(raw: unknown, index: number, limits: TraceConfigLimits): ParsedTraceCallConfig {
  const { parsed, cfg } = parseWith(raw, index, limits, CALL_CONFIG_KEYS)
  const out: ParsedTraceCallConfig = { ...parsed }
  const stateOverrides = parseStateOverrides(argReader(index, GETH), cfg.stateOverrides, 'stateOverrides', DEBUG_OVERRIDES)
  if (stateOverrides) out.stateOverrides = stateOverrides
  const blockOverrides = parseBlockOverrides(cfg.blockOverrides, index, 'blockOverrides')
  if (blockOverrides) out.blockOverrides = blockOverrides
  if (cfg.txIndex !== undefined && cfg.txIndex !== null) out.txIndex = parseIndex(cfg.txIndex, index, 'txIndex')
  return out
}
