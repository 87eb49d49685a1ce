/**
 * The store's side of a cache operation asked by message (parentCacheStore.ts): a worker thread
 * asks its pool, an HTTP process asks the primary (host/cluster/), with the same messages (host/protocol.ts). A failed operation is answered
 * as such, never thrown: the asking side treats it as a miss. A one-way write is done and answered
 * with nothing: nobody waits for it.
 */
import type { CacheStore } from '../../engine/state/store/cacheStore.js'
import type { CacheReply, CacheRequest } from '../protocol.js'

export async function answerCacheOp(cache: CacheStore, msg: CacheRequest, reply: (r: CacheReply) => void): Promise<void> {
  let answer: CacheReply
  try {
    const fn = cache[msg.op] as (...a: unknown[]) => Promise<unknown>
    answer = { type: 'cacheReply', id: msg.id, ok: true, value: await fn.apply(cache, msg.args) }
  } catch (err) {
    answer = { type: 'cacheReply', id: msg.id, ok: false, message: (err as Error).message }
  }
  if (!msg.oneWay) reply(answer)
}
