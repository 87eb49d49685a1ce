/**
 * The messages of the host, in one place: between a pool and its worker threads (host/workers/)
 * and between the primary and its HTTP processes (host/cluster/). Both carry the same cache
 * operations: a worker thread reaches its pool's store, and an HTTP process the primary's, with
 * one request (`cache`) and one reply (`cacheReply`) — host/workers/parentCacheStore.ts asks,
 * host/workers/answerCacheOp.ts answers, on either channel. Threads add engine calls (one per operation of ENGINE_OPERATIONS, engine/types.ts)
 * and the worker's word of when a call waits on the upstream (`upstreamWait`); processes add the
 * lookup of a stored simulation among siblings and the request to stop.
 *
 * Structured clone carries bigints and Uint8Arrays as they are (the primary sets up its channels
 * with `serialization: 'advanced'` for that); it would turn an EngineError into a plain object, so
 * errors travel as data and are rebuilt on the other side with code, message, details and
 * suggestion intact.
 */
import { EngineError, isEngineError, type EngineErrorCode } from '../engine/platform/errors.js'
import { toQuantity } from '../engine/platform/quantity.js'
import type { EngineOperation, EngineOptions } from '../engine/types.js'

/** the CacheStore operations that cross a channel (close is each side's own) */
export type CacheOp = 'get' | 'set' | 'getMany' | 'setMany' | 'increment' | 'ping'

/** asks the store at the other end; `oneWay`: a write nobody waits for, answered with nothing */
export interface CacheRequest {
  type: 'cache'
  id: number
  op: CacheOp
  args: unknown[]
  oneWay?: true
}
/** the store's answer; a failed operation is answered as such (the asking side takes a miss) */
export type CacheReply = { type: 'cacheReply'; id: number; ok: true; value: unknown } | { type: 'cacheReply'; id: number; ok: false; message: string }

/** primary → HTTP process: "do you keep this key?" (a stored simulation: host/cluster/siblingLookup.ts) */
export interface LookupRequest {
  type: 'lookup'
  id: number
  key: string
}
/** HTTP process → primary: its answer (undefined: not here) */
export interface LookupReply {
  type: 'lookupReply'
  id: number
  value: Uint8Array | undefined
}
/**
 * The instance's metrics when several HTTP processes serve (host/cluster/metricsGather.ts): the
 * process asked for /metrics asks the primary (`metricsAsk`), which asks every process for its own
 * (`metricsCollect`, answered `metricsCollected` with prom-client's JSON form) and answers the
 * asker with all of them and its own (`metricsGathered`); the asker combines them.
 */
export interface MetricsAsk {
  type: 'metricsAsk'
  id: number
}
export interface MetricsCollect {
  type: 'metricsCollect'
  id: number
}
export interface MetricsCollected {
  type: 'metricsCollected'
  id: number
  metrics: object[]
}
export interface MetricsGathered {
  type: 'metricsGathered'
  id: number
  parts: object[][]
}

/** primary → HTTP process: finish the requests in flight and exit (host/cluster/stopRequest.ts) */
export const STOP_MESSAGE = { type: 'stop' } as const

export interface WorkerSetup {
  /** the engine options that can cross a thread (no cache store, no logger) */
  engine: Omit<EngineOptions, 'cache' | 'logger'>
  /** redis://, rediss:// or redis+cluster://: the worker opens its own connection; otherwise it uses the pool's store */
  cacheUrl?: string
  cachePrefix?: string
  /** the worker's in-process cache level, bytes */
  localCacheBytes: number
  /** module exporting createEngine (default: engine/index) */
  engineModule?: string
  /**
   * one Int32 flag per call in flight (`StopMark.index`), shared with the pool: it sets a call's
   * flag when the call's request is given up, and the worker's run, even one that never yields,
   * reads it every few thousand EVM steps (engine/execution/runStop.ts)
   */
  stopFlags?: SharedArrayBuffer
}

/** where a call's run stops: its flag in WorkerSetup.stopFlags, and its deadline (epoch ms) */
export interface StopMark {
  /** -1: no flag was free (the deadline alone stops the run) */
  index: number
  deadline?: number
}

export type SerializedError =
  | { kind: 'engine'; code: EngineErrorCode; message: string; details?: Record<string, unknown>; suggestion?: string }
  | { kind: 'other'; name: string; message: string; stack?: string }

/** pool → worker thread */
export type ToWorker = { type: 'call'; id: number; method: EngineOperation; args: unknown[]; stop?: StopMark } | CacheReply | { type: 'close' }

/** worker thread → pool */
export type FromWorker =
  /** `chainId`: its chain's id, which a replacement worker is started with (EngineOptions.knownChainId) */
  | { type: 'ready'; chainId?: number }
  | { type: 'initError'; error: SerializedError }
  | { type: 'result'; id: number; ok: true; value: unknown }
  | { type: 'result'; id: number; ok: false; error: SerializedError }
  /**
   * call `id` waits on the upstream (true) or computes again (false): the pool counts a waiting
   * call apart from its worker's computing ones (RunStop.onUpstreamWait, engine/execution/types.ts)
   */
  | { type: 'upstreamWait'; id: number; waiting: boolean }
  | CacheRequest
  | { type: 'log'; level: 'info' | 'warn' | 'error'; obj: object; msg?: string }
  | { type: 'closed' }

/** primary → HTTP process */
export type ToProcess = CacheReply | LookupRequest | MetricsCollect | MetricsGathered | typeof STOP_MESSAGE

/** HTTP process → primary */
export type FromProcess = CacheRequest | LookupReply | MetricsAsk | MetricsCollected

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
  return JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? (v < 0n ? `-${toQuantity(-v)}` : toQuantity(v)) : v)) ?? 'null') as T
}
