/**
 * The rate-limit counter of an HTTP process among several (host/cluster/leasedCounter.ts), over a
 * real memory store standing in for the primary's: far from the limit it reserves a block of
 * counts in one ask and hands them out itself; near it, or under a small limit, every request
 * asks; whatever the interleaving of processes, no more than the limit is admitted and no count
 * is handed out twice; a block is not used past its window.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { CacheStore } from '../../../engine/state/store/cacheStore.js'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { createLeasedCounter } from '../../../host/cluster/leasedCounter.js'

/** the primary's store, counting the asks that reach it */
function primary() {
  const store = createMemoryCacheStore()
  const asks: number[] = []
  const counting: Pick<CacheStore, 'increment'> = {
    increment: (key, windowSeconds, by = 1) => {
      asks.push(by)
      return store.increment(key, windowSeconds, by)
    },
  }
  return { counting, asks }
}

afterEach(() => vi.useRealTimers())

describe('a rate limit counted in blocks by each of several processes', () => {
  it('asks the primary on every request under a small limit, in its order', async () => {
    const { counting, asks } = primary()
    const [a, b] = [0, 1].map(() => createLeasedCounter(counting, { limit: 100, processes: 2 }))
    const counts = []
    for (let i = 0; i < 6; i++) counts.push((await (i % 2 ? b : a)!.increment('ip', 60)).count)
    expect(counts).toEqual([1, 2, 3, 4, 5, 6])
    expect(asks).toEqual([1, 1, 1, 1, 1, 1])
  })

  it('reserves a block far from a large limit and hands it out without asking', async () => {
    const { counting, asks } = primary()
    const counter = createLeasedCounter(counting, { limit: 1_000_000, processes: 2 })
    const counts = []
    for (let i = 0; i < 1001; i++) counts.push((await counter.increment('ip', 60)).count)
    expect(counts).toEqual(Array.from({ length: 1001 }, (_, i) => i + 1))
    expect(asks).toEqual([1000, 1000])
  })

  it('makes one ask for requests that arrive while it is out', async () => {
    const { counting, asks } = primary()
    const counter = createLeasedCounter(counting, { limit: 1_000_000, processes: 2 })
    const counts = (await Promise.all(Array.from({ length: 50 }, () => counter.increment('ip', 60)))).map((r) => r.count)
    expect(counts.sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
    expect(asks).toEqual([1000])
  })

  it('never admits more than the limit across processes, nor hands a count out twice', async () => {
    const limit = 20_000
    const { counting } = primary()
    const processes = [0, 1, 2].map(() => createLeasedCounter(counting, { limit, processes: 3 }))
    const counts: number[] = []
    // uneven traffic: the first process takes half the requests
    for (let i = 0; i < 2 * limit; i++) counts.push((await processes[i % 2 ? 0 : 1 + ((i >> 1) % 2)]!.increment('ip', 60)).count)
    expect(new Set(counts).size).toBe(counts.length)
    const admitted = counts.filter((c) => c <= limit).length
    expect(admitted).toBeLessThanOrEqual(limit)
    // counts reserved by one process and not yet used when the others were refused: at most its blocks
    expect(admitted).toBeGreaterThanOrEqual(limit - 2 * Math.floor(limit / 64 / 3))
  })

  it('drops a block a second before its window can end', async () => {
    vi.useFakeTimers({ now: 1_000_000 })
    const { counting, asks } = primary()
    const counter = createLeasedCounter(counting, { limit: 1_000_000, processes: 1 })
    expect((await counter.increment('ip', 3)).count).toBe(1)
    vi.advanceTimersByTime(1_999)
    expect((await counter.increment('ip', 3)).count).toBe(2)
    expect(asks).toEqual([1000])
    vi.advanceTimersByTime(1)
    const next = await counter.increment('ip', 3)
    expect(asks).toHaveLength(2)
    // still the primary's window (it ends at 3 s): the new block's counts follow the old block's
    expect(next.count).toBe(1001)
    vi.advanceTimersByTime(1_000)
    expect((await counter.increment('ip', 3)).count).toBe(1)
  })
})
