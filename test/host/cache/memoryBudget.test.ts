/**
 * The memory budget's parts: the split of cache.max_memory_mb between the store and the engines
 * sums to the budget for any number of workers, and the in-process store counts what an entry
 * really costs and never keeps a bigger buffer than the value it was given.
 */
import { deflateRawSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { ENTRY_OVERHEAD_BYTES, entryBytes, ownBytes } from '../../../engine/state/store/entrySize.js'
import { splitMemoryBudget } from '../../../host/cache/memoryBudget.js'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'

describe('splitMemoryBudget', () => {
  it.each([1, 2, 3, 8, 64])('with %i engine(s) the parts sum to at most the budget, half for the store', (engines) => {
    const b = splitMemoryBudget(256, engines)
    const total = b.storeBytes + engines * (b.forkCacheBytes + b.workerCacheBytes)
    expect(total).toBeLessThanOrEqual(256 * 1024 * 1024)
    expect(total).toBeGreaterThan(256 * 1024 * 1024 - 64 * engines)
    expect(b.storeBytes).toBe(128 * 1024 * 1024)
    expect(b.workerCacheBytes === 0).toBe(engines === 1)
  })
})

describe('in-process store entries', () => {
  it('a zlib output view (a slice of a 16 KiB chunk) is stored as a compact copy', async () => {
    const view = deflateRawSync(Buffer.from(JSON.stringify({ calls: [{ status: 'success' }] })))
    expect(view.buffer.byteLength).toBeGreaterThan(view.byteLength * 10)
    const store = createMemoryCacheStore()
    await store.set('sim:x', new Uint8Array(view.buffer, view.byteOffset, view.byteLength))
    const kept = (await store.get('sim:x'))!
    expect(Buffer.from(kept).equals(view)).toBe(true)
    expect(kept.buffer.byteLength).toBe(view.byteLength)
    const own = new Uint8Array(8)
    expect(ownBytes(own)).toBe(own)
  })

  it('small entries are counted at their heap cost: a bound of 1 MiB holds about 1 MiB / (1 KiB + key + value)', async () => {
    const store = createMemoryCacheStore({ maxBytes: 1024 * 1024 })
    const key = (i: number) => `fs:1:a:s:${i.toString(16).padStart(104, '0')}`
    for (let i = 0; i < 5000; i++) await store.set(key(i), new Uint8Array(33))
    let kept = 0
    for (let i = 0; i < 5000; i++) if (await store.get(key(i))) kept++
    const per = entryBytes(key(0), 33)
    expect(per).toBeGreaterThan(ENTRY_OVERHEAD_BYTES)
    expect(kept).toBe(Math.floor((1024 * 1024) / per))
  })
})
