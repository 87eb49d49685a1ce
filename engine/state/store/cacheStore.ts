/**
 * The key-value cache store "configured by a URL" (interface §11): one interface serves the fork-state
 * cache, stored simulations and rate-limit counters. `memory://` → in-process LRU
 * (`memoryCacheStore.ts`); `redis://` / `rediss://` → Redis (`redisCacheStore.ts`).
 * Values are bytes so callers choose a compact encoding.
 */
export interface CacheStore {
  get(key: string): Promise<Uint8Array | undefined>
  /** ttlSeconds undefined: kept until evicted */
  set(key: string, value: Uint8Array, ttlSeconds?: number): Promise<void>
  getMany(keys: string[]): Promise<(Uint8Array | undefined)[]>
  setMany(entries: { key: string; value: Uint8Array; ttlSeconds?: number }[]): Promise<void>
  /**
   * Atomically adds `by` (default 1) to a counter that lives `windowSeconds` from its first
   * increment; returns the new count and the seconds until the window resets (fixed-window rate
   * limiting; `by` > 1 reserves several counts at once: host/cluster/leasedCounter.ts).
   */
  increment(key: string, windowSeconds: number, by?: number): Promise<{ count: number; resetSeconds: number }>
  /** true when the store answers now (health reports `degraded` otherwise) */
  ping(): Promise<boolean>
  close(): Promise<void>
}
