/**
 * createTracers: turns a request's TracerConfig into the tracers to run and the TraceResult to
 * return. Every tracer asked for runs in ONE execution (like geth's muxTracer, but the struct
 * logger may be combined too); the result is keyed by tracer name (interface §8). No tracer
 * given → callTracer with its defaults (interface §8). Bad tracer options throw TracerError
 * VALIDATION_ERROR here, before anything runs.
 *
 * @example
 * const set = createTracers({ callTracer: { withLog: true }, '4byteTracer': true }, { maxStructLogSteps: 1e5 })
 * await executeCall(ctx, call, { tracers: set.tracers })
 * set.result() // { callTracer: {...}, '4byteTracer': {...} }
 */
import type { TraceResult, TracerConfig } from './config.js'
import { createCallTracer } from './callTracer.js'
import { createFourByteTracer } from './fourByteTracer.js'
import { createFlatCallTracer, type FlatCallContext } from './flatCallTracer.js'
import { createNoopTracer } from './noopTracer.js'
import { createPrestateTracer } from './prestateTracer.js'
import { createStateDiffTracer } from './stateDiffTracer.js'
import { createVmTraceTracer } from './vmTraceTracer.js'
import { createStructLogger, type StructLogSpill } from './structLogger.js'
import type { Tracer } from './types.js'

export type TracerName =
  | 'callTracer'
  | 'prestateTracer'
  | 'structLogger'
  | '4byteTracer'
  | 'noopTracer'
  | 'flatCallTracer'
  | 'stateDiffTracer'
  | 'vmTraceTracer'

export interface TracerSet {
  /** in a fixed order: callTracer, prestateTracer, structLogger, 4byteTracer, noopTracer, flatCallTracer, stateDiffTracer, vmTraceTracer */
  tracers: Tracer[]
  /** call after the execution finished; each tracer's result() is built once, here */
  result(): TraceResult
}

export interface CreateTracersOptions {
  /** struct logger refuses past this many steps (EngineOptions.maxStructLogSteps) */
  maxStructLogSteps?: number
  /**
   * the block/tx fields the flatCallTracer prints (geth takes them from the traced tx's receipt);
   * read when the result is built, so a caller may fill it in after creating the tracers
   */
  flatContext?: FlatCallContext
  /** where a long struct log's JSON goes (the engine's temporary file); absent: kept in memory */
  structLogSpill?: StructLogSpill
}

/**
 * Which tracers a config asks for — the one place this rule is written: a tracer is asked for by
 * a non-null config (`4byteTracer`, `noopTracer`, `stateDiffTracer`, `vmTraceTracer` by `true`;
 * `4byteTracer: false` is the same as leaving it out). None asked for: createTracers runs the
 * default callTracer.
 */
export function tracersAskedFor(config: TracerConfig): TracerName[] {
  const names: TracerName[] = []
  if (config.callTracer !== undefined && config.callTracer !== null) names.push('callTracer')
  if (config.prestateTracer !== undefined && config.prestateTracer !== null) names.push('prestateTracer')
  if (config.structLogger !== undefined && config.structLogger !== null) names.push('structLogger')
  // the spec's value is a boolean: `true` enables it, `false` is the same as leaving it out
  const fourByte = config['4byteTracer']
  if (fourByte === true || (typeof fourByte === 'object' && fourByte !== null)) names.push('4byteTracer')
  if (config.noopTracer === true) names.push('noopTracer')
  if (config.flatCallTracer !== undefined && config.flatCallTracer !== null) names.push('flatCallTracer')
  if (config.stateDiffTracer === true) names.push('stateDiffTracer')
  if (config.vmTraceTracer === true) names.push('vmTraceTracer')
  return names
}

export function createTracers(config: TracerConfig | undefined, opts: CreateTracersOptions = {}): TracerSet {
  const cfg: TracerConfig = config ?? {}
  let names = tracersAskedFor(cfg)
  if (names.length === 0) names = ['callTracer']

  const entries: [TracerName, Tracer][] = names.map((name) => {
    switch (name) {
      case 'callTracer':
        return [name, createCallTracer(cfg.callTracer ?? {})]
      case 'prestateTracer':
        return [name, createPrestateTracer(cfg.prestateTracer ?? {})]
      case 'structLogger':
        return [name, createStructLogger(cfg.structLogger ?? {}, { maxSteps: opts.maxStructLogSteps, spill: opts.structLogSpill })]
      case '4byteTracer': {
        const o = cfg['4byteTracer']
        return [name, createFourByteTracer({ gethForm: typeof o === 'object' && o?.gethForm === true })]
      }
      case 'noopTracer':
        return [name, createNoopTracer()]
      case 'flatCallTracer':
        return [name, createFlatCallTracer(cfg.flatCallTracer ?? {}, opts.flatContext)]
      case 'stateDiffTracer':
        return [name, createStateDiffTracer()]
      case 'vmTraceTracer':
        return [name, createVmTraceTracer({ maxSteps: opts.maxStructLogSteps })]
    }
  })

  return {
    tracers: entries.map(([, t]) => t),
    result(): TraceResult {
      const out: TraceResult = {}
      for (const [name, t] of entries) out[name] = t.result()
      return out
    },
  }
}
