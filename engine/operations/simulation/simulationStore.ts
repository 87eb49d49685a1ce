/**
 * Stored simulations (interface §6): every shape-A result is kept in the CacheStore under
 * `sim:<id>` for `simulation_ttl_seconds`, compactly (deflated JSON: results are mostly repeated
 * hex and keys, which compress 5-10x), and read back by GET /v1/simulations/{id}. A small result
 * (a transfer's is about 1 KB) is kept as its JSON: deflating it saves a few hundred bytes at the
 * cost of a zlib stream set up and torn down on every /simulate. Stored JSON is marked by a first
 * byte of 0x06, which no raw deflate stream starts with (bits 1-2 of its first byte are the block
 * type, and 11 is reserved).
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib'
import type { CacheStore } from '../../state/store/cacheStore.js'
import type { SimulationResult } from '../../types.js'

const ID_PATTERN = /^sim_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

const KEY_PREFIX = 'sim:'
const keyOf = (id: string) => `${KEY_PREFIX}${id}`

/** a stored simulation's cache key (several HTTP processes keep these where they ran: host/cluster/) */
export const isSimulationKey = (key: string): boolean => key.startsWith(KEY_PREFIX)

export function newSimulationId(): string {
  return `sim_${crypto.randomUUID()}`
}

/** results up to this many bytes of JSON are kept as they are */
const RAW_MAX_BYTES = 2048
const RAW_JSON = 0x06

export async function storeSimulation(cache: CacheStore, result: SimulationResult, ttlSeconds: number): Promise<void> {
  const json = Buffer.from(JSON.stringify(result))
  let bytes: Uint8Array
  if (json.byteLength <= RAW_MAX_BYTES) {
    bytes = new Uint8Array(json.byteLength + 1)
    bytes[0] = RAW_JSON
    bytes.set(json, 1)
  } else {
    // level 1: nearly the ratio of the default on hex-heavy JSON, at a fraction of the time.
    // A copy: zlib's output is a view into a 16 KiB chunk, which a view would keep alive per result
    bytes = new Uint8Array(deflateRawSync(json, { level: 1 }))
  }
  await cache.set(keyOf(result.simulationId), bytes, ttlSeconds)
}

/** undefined for an unknown, expired or malformed id (the caller answers NOT_FOUND) */
export async function loadSimulation(cache: CacheStore, id: string): Promise<SimulationResult | undefined> {
  if (!ID_PATTERN.test(id)) return undefined
  const raw = await cache.get(keyOf(id))
  if (!raw) return undefined
  try {
    const json = raw[0] === RAW_JSON ? Buffer.from(raw.buffer, raw.byteOffset + 1, raw.byteLength - 1) : inflateRawSync(raw)
    return JSON.parse(json.toString('utf8')) as SimulationResult
  } catch {
    return undefined
  }
}
