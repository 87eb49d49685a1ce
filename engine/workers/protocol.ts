/**
 * The messages between the pool (main thread) and its workers, and how an error crosses the
 * thread boundary. Structured clone carries bigints and Uint8Arrays as they are; it would turn an
 * EngineError into a plain object, so errors travel as data and are rebuilt on the other side
 * with code, message, details and suggestion intact.
 */
import { EngineError, isEngineError, type EngineErrorCode } from '../errors.js'
import type { Engine, EngineOptions } from '../types.js'

/** the Engine methods a worker serves (close is the pool's own) */
export type EngineMethod = Exclude<keyof Engine, 'close'>
export const ENGINE_METHODS: readonly EngineMethod[] = [
  'simulate',
  'simulateSteps',
  'getSimulation',
  'accessList',
  'traceTransaction',
  'traceCall',
  'traceCallMany',
  'simulateV1',
  'traceBlock',
  'call',
  'estimateGas',
  'readChain',
  'createFork',
  'getFork',
  'listForks',
  'deleteFork',
  'onFork',
  'forkRpc',
  'health',
]

export type CacheOp = 'get' | 'set' | 'getMany' | 'setMany' | 'increment' | 'ping'

export interface WorkerSetup {
  /** the engine options that can cross a thread (no cache store, no logger) */
  engine: Omit<EngineOptions, 'cache' | 'logger' | 'forkStore'>
  /** redis:// or rediss://: the worker opens its own connection; otherwise it uses the pool's store */
  cacheUrl?: string
  cachePrefix?: string
  /** the worker's in-process cache level, bytes */
  localCacheBytes: number
  /** module exporting createEngine (default: engine/index) */
  engineModule?: string
}

export type SerializedError =
  | { kind: 'engine'; code: EngineErrorCode; message: string; details?: Record<string, unknown>; suggestion?: string }
  | { kind: 'other'; name: string; message: string; stack?: string }

export type ToWorker =
  | { type: 'call'; id: number; method: EngineMethod; args: unknown[] }
  | { type: 'cacheReply'; id: number; ok: true; value: unknown }
  | { type: 'cacheReply'; id: number; ok: false; message: string }
  | { type: 'close' }

export type FromWorker =
  | { type: 'ready' }
  | { type: 'initError'; error: SerializedError }
  | { type: 'result'; id: number; ok: true; value: unknown }
  | { type: 'result'; id: number; ok: false; error: SerializedError }
  /** `oneWay`: a write nobody waits for, answered with nothing (parentCacheStore.ts) */
  | { type: 'cache'; id: number; op: CacheOp; args: unknown[]; oneWay?: true }
  | { type: 'log'; level: 'info' | 'warn' | 'error'; obj: object; msg?: string }
  | { type: 'closed' }

export function serializeError(err: unknown): SerializedError {
  if (isEngineError(err)) {
    return { kind: 'engine', code: err.code, message: err.message, details: err.details, suggestion: err.suggestion }
  }
  const e = err instanceof Error ? err : new Error(String(err))
  return { kind: 'other', name: e.name, message: e.message, stack: e.stack }
}

export function deserializeError(s: SerializedError): Error {
  if (s.kind === 'engine') return new EngineError(s.code, s.message, s.details, s.suggestion)
  // not an EngineError: rebuilt as a plain Error so the HTTP layer treats it as the bug it is
  const e = new Error(s.message)
  e.name = s.name
  if (s.stack) e.stack = s.stack
  return e
}

/**
 * JSON-safe copy for the rare value structured clone refuses (a function or class instance in
 * error details or a log object): bigints become hex strings, the rest what JSON makes of it.
 */
export function plainCopy<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? (v < 0n ? `-0x${(-v).toString(16)}` : `0x${v.toString(16)}`) : v)) ?? 'null',
  ) as T
}
