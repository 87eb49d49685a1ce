/**
 * The in-process memory budget (`cache.max_memory_mb`, CACHE_MAX_MEMORY_MB) shared out between
 * the caches that grow with traffic, so the sum of their bounds is the budget whatever the number
 * of worker threads:
 *
 * - half for the instance's cache store (the `memory://` LRU: fork state, stored simulations,
 *   token metadata; with Redis, its local level);
 * - half for the engines, split evenly: each engine's fork-state hot layer (decoded accounts,
 *   slots and code) and, in a worker thread, its local level in front of the shared store.
 *
 * Everything else a process holds (code, the VM, requests in flight) is not cache and not in the
 * budget; docs/operations.md "Memory budget" says what RSS to expect on top.
 */
export interface MemoryBudget {
  /** bound of the instance's cache store (memory:// or Redis's local level), bytes */
  storeBytes: number
  /** bound of each engine's fork-state hot layer, bytes */
  forkCacheBytes: number
  /** bound of each worker thread's local cache level, bytes (0 in-process: it uses the store) */
  workerCacheBytes: number
}

const MIB = 1024 * 1024

export function splitMemoryBudget(maxMemoryMb: number, engines: number): MemoryBudget {
  const total = Math.max(1, maxMemoryMb) * MIB
  const n = Math.max(1, Math.floor(engines))
  const perEngine = Math.floor(total / 2 / n)
  return n === 1
    ? { storeBytes: Math.floor(total / 2), forkCacheBytes: perEngine, workerCacheBytes: 0 }
    : { storeBytes: Math.floor(total / 2), forkCacheBytes: Math.floor(perEngine / 2), workerCacheBytes: Math.floor(perEngine / 2) }
}
