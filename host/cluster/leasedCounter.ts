/**
 * The rate-limit counter of one HTTP process among several on `memory://` (host/cluster/): the
 * counts live in the primary, and asking it on every request (a message, a reply, a third process
 * woken) was, after the stored simulation, the last IPC of a warm /simulate. Far from the limit,
 * a process reserves a block of counts in one ask and hands them to its next requests itself.
 *
 * Every request still gets a count of its own (ordinals unique across the processes), and one is
 * let through only if its count is within the limit, so the instance never admits more than the
 * limit in a window. A block is at most 1/64 of the limit per process and never more than 1,000,
 * and only a block of at least 8 is reserved: under about 1,000 requests a window per process
 * (the default 100 a minute, say) every request asks the primary, and the counts follow
 * the order the primary saw them in. The price, near the limit: a request can be refused while
 * counts another process reserved are still unused, at most its blocks' worth (1/64 of the limit
 * for each other process). A block is dropped a second before its window could end, so no count
 * of an old window is used in the next.
 */
import type { CacheStore } from '../../engine/state/store/cacheStore.js'

export interface LeasedCounterOptions {
  /** the rate limit (requests per window) */
  limit: number
  /** the HTTP processes sharing it */
  processes: number
  /** largest block reserved at once (default 1,000) */
  maxBlock?: number
}

const MIN_BLOCK = 8

interface Block {
  /** the next count to hand out, and the last reserved within the limit */
  next: number
  last: number
  /** when the block stops being used, ms */
  usableUntil: number
  /** the window's end as the primary said (for RateLimit-Reset), ms */
  resetAt: number
}

export function createLeasedCounter(store: Pick<CacheStore, 'increment'>, opts: LeasedCounterOptions): Pick<CacheStore, 'increment'> {
  const maxBlock = opts.maxBlock ?? 1000
  /** per key: the count the primary last answered (it sizes the next block), and the block */
  const keys = new Map<string, { seen: number; block?: Block }>()
  /** one ask per key at a time: requests arriving meanwhile wait for its block */
  const asking = new Map<string, Promise<void>>()

  const take = (key: string, now: number) => {
    const b = keys.get(key)?.block
    if (!b || b.next > b.last || now >= b.usableUntil) return undefined
    return { count: b.next++, resetSeconds: Math.max(1, Math.ceil((b.resetAt - now) / 1000)) }
  }

  const blockSize = (key: string) => {
    const left = opts.limit - (keys.get(key)?.seen ?? 0)
    const size = Math.min(maxBlock, Math.floor(opts.limit / 64 / opts.processes), Math.floor(left / (4 * opts.processes)))
    return size >= MIN_BLOCK ? size : 1
  }

  async function ask(key: string, windowSeconds: number): Promise<{ count: number; resetSeconds: number }> {
    const by = blockSize(key)
    const answer = await store.increment(key, windowSeconds, by)
    const now = Date.now()
    const first = answer.count - by + 1
    // resetSeconds is rounded up: the window may end up to a second sooner
    const block =
      by > 1 && first < opts.limit
        ? {
            next: first + 1,
            last: Math.min(answer.count, opts.limit),
            usableUntil: now + (answer.resetSeconds - 1) * 1000,
            resetAt: now + answer.resetSeconds * 1000,
          }
        : undefined
    // keys of clients gone quiet are dropped now and then, so the map cannot grow without bound
    if (keys.size > 10_000) for (const [k, v] of keys) if (!v.block || v.block.usableUntil <= now) keys.delete(k)
    keys.set(key, { seen: answer.count, ...(block && { block }) })
    return { count: first, resetSeconds: answer.resetSeconds }
  }

  return {
    async increment(key, windowSeconds) {
      for (;;) {
        const local = take(key, Date.now())
        if (local) return local
        const pending = asking.get(key)
        if (!pending) break
        await pending
      }
      let done!: () => void
      asking.set(key, new Promise<void>((resolve) => (done = resolve)))
      try {
        return await ask(key, windowSeconds)
      } finally {
        asking.delete(key)
        done()
      }
    },
  }
}
