/**
 * Stored simulations (decisions.md §6): every shape-A result is kept in the CacheStore under
 * `sim:<id>` for `simulation_ttl_seconds`, compactly (deflated JSON: results are mostly repeated
 * hex and keys, which compress 5-10x), and read back by GET /v1/simulations/{id}.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib'
import type { CacheStore } from '../cache/cacheStore.js'
import type { SimulationResult } from '../types.js'

const ID_PATTERN = /^sim_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

const keyOf = (id: string) => `sim:${id}`

export function newSimulationId(): string {
  return `sim_${crypto.randomUUID()}`
}

export async function storeSimulation(cache: CacheStore, result: SimulationResult, ttlSeconds: number): Promise<void> {
  // level 1: nearly the ratio of the default on hex-heavy JSON, at a fraction of the time (this runs in every /simulate)
  const bytes = deflateRawSync(Buffer.from(JSON.stringify(result)), { level: 1 })
  // a copy: zlib's output is a view into a 16 KiB chunk, which a view would keep alive per result
  await cache.set(keyOf(result.simulationId), new Uint8Array(bytes), ttlSeconds)
}

/** undefined for an unknown, expired or malformed id (the caller answers NOT_FOUND) */
export async function loadSimulation(cache: CacheStore, id: string): Promise<SimulationResult | undefined> {
  if (!ID_PATTERN.test(id)) return undefined
  const raw = await cache.get(keyOf(id))
  if (!raw) return undefined
  try {
    return JSON.parse(inflateRawSync(raw).toString('utf8')) as SimulationResult
  } catch {
    return undefined
  }
}
