/**
 * Worker side of a `memory://` cache in a pool: the store lives in the main thread (one process,
 * one memory cache) and workers reach it by message. An HTTP process of several (host/cluster/)
 * reaches the primary's store the same way, over the process's IPC channel. Without it a
 * simulation stored by one worker could not be read back by id through another, and every worker
 * would fetch the same fork state upstream. Put a small local level in front (tieredCacheStore) so
 * hot reads stay in the worker.
 *
 * Like Redis, it never throws into a request: a failed or lost reply is a miss.
 *
 * `oneWayWrites`: a write is sent and not waited for (no reply, no timer). A worker thread's: its
 * port carries the write before the result, and the pool answers the result only once the writes
 * before it are done (workerPool.ts), so a GET by id after the answer finds the simulation. An
 * HTTP process of several answers its client itself: it waits for the primary to take a write,
 * since a GET through another process could overtake it (the primary reads each channel apart).
 */
import type { CacheStore } from '../../engine/state/store/cacheStore.js'
import type { CacheOp, CacheReply, CacheRequest } from '../protocol.js'

export interface ParentCacheStore extends CacheStore {
  /** feed the pool's `cacheReply` messages here */
  onReply(msg: CacheReply): void
}

/** where the requests go: a worker thread's parentPort, or a child process's IPC channel */
export interface CachePort {
  postMessage(msg: CacheRequest): void
}

export function createParentCacheStore(port: CachePort, opts: { timeoutMs?: number; oneWayWrites?: boolean } = {}): ParentCacheStore {
  const timeoutMs = opts.timeoutMs ?? 5000
  let nextId = 0
  const pending = new Map<number, { settle(ok: boolean, value?: unknown): void; timer: NodeJS.Timeout }>()
  // a counter that cannot reach the main thread still counts, per worker
  const localCounters = new Map<string, { count: number; resetAt: number }>()
  let closed = false

  function ask<T>(op: CacheOp, args: unknown[], otherwise: T): Promise<T> {
    if (closed) return Promise.resolve(otherwise)
    return new Promise<T>((resolve) => {
      const id = ++nextId
      const timer = setTimeout(() => {
        pending.delete(id)
        resolve(otherwise)
      }, timeoutMs)
      pending.set(id, { settle: (ok, value) => resolve(ok ? (value as T) : otherwise), timer })
      const msg: CacheRequest = { type: 'cache', id, op, args }
      port.postMessage(msg)
    })
  }

  /** a write nobody waits for (see oneWayWrites) */
  function tell(op: CacheOp, args: unknown[]): Promise<void> {
    if (!closed) port.postMessage({ type: 'cache', id: 0, op, args, oneWay: true })
    return Promise.resolve()
  }
  const write = opts.oneWayWrites ? tell : (op: CacheOp, args: unknown[]) => ask<void>(op, args, undefined)

  const fallbackIncrement = (key: string, windowSeconds: number, by = 1) => {
    const now = Date.now()
    let c = localCounters.get(key)
    if (!c || c.resetAt <= now) {
      c = { count: 0, resetAt: now + windowSeconds * 1000 }
      localCounters.set(key, c)
    }
    c.count += by
    return { count: c.count, resetSeconds: Math.max(1, Math.ceil((c.resetAt - now) / 1000)) }
  }

  return {
    onReply(msg) {
      const p = pending.get(msg.id)
      if (!p) return
      pending.delete(msg.id)
      clearTimeout(p.timer)
      p.settle(msg.ok, msg.ok ? msg.value : undefined)
    },
    get: (key) => ask<Uint8Array | undefined>('get', [key], undefined),
    set: (key, value, ttlSeconds) => write('set', [key, value, ttlSeconds]),
    getMany: async (keys) => {
      const values = await ask<(Uint8Array | undefined)[] | undefined>('getMany', [keys], undefined)
      return values ?? keys.map(() => undefined)
    },
    setMany: (entries) => write('setMany', [entries]),
    increment: async (key, windowSeconds, by = 1) =>
      (await ask<{ count: number; resetSeconds: number } | undefined>('increment', [key, windowSeconds, by], undefined)) ??
      fallbackIncrement(key, windowSeconds, by),
    ping: () => ask<boolean>('ping', [], false),
    async close() {
      closed = true
      for (const [, p] of pending) {
        clearTimeout(p.timer)
        p.settle(false)
      }
      pending.clear()
    },
  }
}
